#ifndef MARQUEE_CHEIF_SHIM_H
#define MARQUEE_CHEIF_SHIM_H

#include <libheif/heif.h>

#endif
