#ifndef MARQUEE_CAVIF_SHIM_H
#define MARQUEE_CAVIF_SHIM_H
// libavif (Debian 12: 0.11.1, built with libaom for encoding and dav1d
// for decoding).
#include <avif/avif.h>
#endif
