#ifndef MARQUEE_CLCMS2_SHIM_H
#define MARQUEE_CLCMS2_SHIM_H

#include <lcms2.h>

// Little CMS builds its pixel-format words with function-like macros
// (COLORSPACE_SH, CHANNELS_SH, …), which Swift cannot import. These prefixed
// constants stand in for the formats MediaIO uses.

/// `TYPE_RGBA_8`: R, G, B, A bytes; alpha is an extra channel.
static const cmsUInt32Number marquee_TYPE_RGBA_8 = TYPE_RGBA_8;
/// `TYPE_RGB_8`.
static const cmsUInt32Number marquee_TYPE_RGB_8 = TYPE_RGB_8;
/// `TYPE_GRAY_8`.
static const cmsUInt32Number marquee_TYPE_GRAY_8 = TYPE_GRAY_8;
/// `TYPE_CMYK_8`: 0 = no ink.
static const cmsUInt32Number marquee_TYPE_CMYK_8 = TYPE_CMYK_8;
/// `TYPE_CMYK_8_REV`: 0 = full ink (Adobe's inverted CMYK JPEGs).
static const cmsUInt32Number marquee_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;

#endif
