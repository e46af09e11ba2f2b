#ifndef MARQUEE_CWEBP_SHIM_H
#define MARQUEE_CWEBP_SHIM_H
#include <webp/encode.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/mux.h>
#endif
