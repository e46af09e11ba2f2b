#ifndef MARQUEE_CJPEG_SHIM_H
#define MARQUEE_CJPEG_SHIM_H

// libjpeg-turbo (libjpeg62-turbo-dev). libjpeg reports fatal errors through
// an `error_exit` callback that must not return, which in C means longjmp.
// Swift cannot call setjmp, so the whole decode runs in this one C function:
// the longjmp only ever crosses libjpeg's frames and this function's, never a
// Swift frame.

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

/// Size of the message buffers below (`JMSG_LENGTH_MAX`).
enum { marquee_JPEG_MESSAGE_LENGTH = JMSG_LENGTH_MAX };

/// What `marquee_jpeg_decode` produced.
typedef struct marquee_jpeg_image {
  /// `width * height * components` bytes, row by row, no padding; allocated
  /// with malloc, released with `marquee_jpeg_free`. NULL on failure.
  unsigned char *pixels;
  unsigned int width;
  unsigned int height;
  /// 1 (gray), or 4: R, G, B, 255 for colour JPEGs, C, M, Y, K for CMYK/YCCK.
  int components;
  /// The JPEG holds CMYK (or YCCK, converted to CMYK by libjpeg).
  int is_cmyk;
  /// An Adobe APP14 marker was present: Adobe writes CMYK inverted
  /// (0 = full ink), as every reader that follows Photoshop assumes.
  int saw_adobe_marker;
  /// Number of libjpeg warnings that are not damage (padding before the
  /// end-of-image marker, an unknown JFIF revision, a bad ICC marker).
  int warnings;
  /// The data ended before the image was complete (`JWRN_JPEG_EOF`); the
  /// missing rows were filled by libjpeg.
  int premature_end;
  /// The first warning's text.
  char warning[JMSG_LENGTH_MAX];
  /// Warnings that mean part of the picture is wrong (see
  /// `marquee_jpeg_is_damage`), and the first one's text.
  int damage_warnings;
  char damage[JMSG_LENGTH_MAX];
} marquee_jpeg_image;

typedef struct marquee_jpeg_error_mgr {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  marquee_jpeg_image *image;
  char message[JMSG_LENGTH_MAX];
  /// The whole file (`jpeg_mem_src`), to read the bytes libjpeg skipped.
  const unsigned char *data;
} marquee_jpeg_error_mgr;

static inline void marquee_jpeg_error_exit(j_common_ptr cinfo) {
  marquee_jpeg_error_mgr *err = (marquee_jpeg_error_mgr *)cinfo->err;
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->jump, 1);
}

/// Whether the warning libjpeg is emitting means part of the picture is
/// wrong: entropy-coded data it could not decode (a bad Huffman or
/// arithmetic code, a marker inside a segment, a lost restart marker it
/// had to resynchronise after, bytes of garbage before a marker inside the
/// image data), a scan that breaks the progression, or data that ends early.
/// libjpeg conceals each of these (it fills what it could not decode) and
/// carries on. Bytes skipped before the end-of-image marker are damage
/// unless every one is a zero: zero fill is padding some cameras and
/// encoders write, while anything else is entropy-coded data the decoder
/// never reached (it decoded garbage or a hole of zeros as codes, lost its
/// place and finished its last block early). An unknown JFIF revision, an
/// unknown Adobe transform code or a bad ICC marker leave every pixel
/// decoded: they are not damage.
static inline int marquee_jpeg_is_damage(j_common_ptr cinfo) {
  switch (cinfo->err->msg_code) {
  case JWRN_HIT_MARKER:
  case JWRN_HUFF_BAD_CODE:
  case JWRN_ARITH_BAD_CODE:
  case JWRN_MUST_RESYNC:
  case JWRN_BOGUS_PROGRESSION:
  case JWRN_NOT_SEQUENTIAL:
  case JWRN_JPEG_EOF:
    return 1;
  case JWRN_EXTRANEOUS_DATA: {
    /* msg_parm.i[0] bytes were skipped, msg_parm.i[1] is the marker they
       precede (0xD9 is EOI); they end where the marker's 0xFF starts, at
       the source's synced read position (jdmarker.c, next_marker). */
    if (cinfo->err->msg_parm.i[1] != 0xD9 || !cinfo->is_decompressor) return 1;
    const marquee_jpeg_error_mgr *err = (const marquee_jpeg_error_mgr *)cinfo->err;
    const unsigned char *end = ((j_decompress_ptr)cinfo)->src->next_input_byte;
    long skipped = cinfo->err->msg_parm.i[0];
    if (err->data == NULL || end == NULL || skipped < 0 || end - err->data < skipped) return 1;
    for (long i = 1; i <= skipped; i++) {
      if (end[-i] != 0x00) return 1;
    }
    return 0;
  }
  default:
    return 0;
  }
}

static inline void marquee_jpeg_emit_message(j_common_ptr cinfo, int level) {
  marquee_jpeg_error_mgr *err = (marquee_jpeg_error_mgr *)cinfo->err;
  if (level >= 0) return; /* trace output, not a warning */
  marquee_jpeg_image *image = err->image;
  if (marquee_jpeg_is_damage(cinfo)) {
    if (image->damage_warnings == 0) (*cinfo->err->format_message)(cinfo, image->damage);
    image->damage_warnings += 1;
  } else {
    if (image->warnings == 0) (*cinfo->err->format_message)(cinfo, image->warning);
    image->warnings += 1;
  }
  if (cinfo->err->msg_code == JWRN_JPEG_EOF) image->premature_end = 1;
  cinfo->err->num_warnings += 1;
}

static inline void marquee_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

/// Decodes a complete JPEG held in memory (`jpeg_mem_src`).
///
/// Gray JPEGs come out as 1 byte per pixel, YCbCr/RGB as RGBA
/// (`JCS_EXT_RGBA`, alpha 255), CMYK and Adobe YCCK as CMYK (libjpeg does
/// the YCC→CMY step for YCCK; inversion is left to the caller, see
/// `saw_adobe_marker`).
///
/// - scale_denom: 1, 2, 4 or 8: libjpeg's DCT-domain downscale
///   (`scale_num = 1`), each side becomes ceil(side / scale_denom).
/// - max_memory: libjpeg's working-memory cap in bytes (0 = default).
/// - message: a buffer of `marquee_JPEG_MESSAGE_LENGTH` bytes that receives
///   libjpeg's error text on failure.
/// Returns 0 on success, -1 on failure (nothing to free then).
static inline int marquee_jpeg_decode(const unsigned char *data, unsigned long size,
                                      unsigned int scale_denom, long max_memory,
                                      marquee_jpeg_image *out, char *message) {
  struct jpeg_decompress_struct cinfo;
  marquee_jpeg_error_mgr err;
  unsigned char *volatile pixels = NULL;
  memset(out, 0, sizeof(*out));
  memset(&cinfo, 0, sizeof(cinfo));
  memset(&err, 0, sizeof(err));
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = marquee_jpeg_error_exit;
  err.pub.emit_message = marquee_jpeg_emit_message;
  err.pub.output_message = marquee_jpeg_output_message;
  err.image = out;
  err.data = data;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    free(pixels);
    memcpy(message, err.message, JMSG_LENGTH_MAX);
    message[JMSG_LENGTH_MAX - 1] = 0;
    out->pixels = NULL;
    return -1;
  }
  jpeg_create_decompress(&cinfo);
  if (max_memory > 0) cinfo.mem->max_memory_to_use = max_memory;
  jpeg_mem_src(&cinfo, data, size);
  jpeg_read_header(&cinfo, TRUE);
  switch (cinfo.jpeg_color_space) {
  case JCS_GRAYSCALE:
    cinfo.out_color_space = JCS_GRAYSCALE;
    break;
  case JCS_CMYK:
  case JCS_YCCK:
    cinfo.out_color_space = JCS_CMYK;
    out->is_cmyk = 1;
    break;
  default:
    cinfo.out_color_space = JCS_EXT_RGBA;
    break;
  }
  out->saw_adobe_marker = cinfo.saw_Adobe_marker ? 1 : 0;
  cinfo.scale_num = 1;
  cinfo.scale_denom = (scale_denom == 2 || scale_denom == 4 || scale_denom == 8) ? scale_denom : 1;
  jpeg_start_decompress(&cinfo);
  size_t row = (size_t)cinfo.output_width * (size_t)cinfo.output_components;
  if (cinfo.output_width == 0 || cinfo.output_height == 0 || cinfo.output_components <= 0 ||
      (size_t)cinfo.output_height > SIZE_MAX / row) {
    snprintf(err.message, JMSG_LENGTH_MAX, "invalid output size %ux%u", cinfo.output_width, cinfo.output_height);
    longjmp(err.jump, 1);
  }
  pixels = (unsigned char *)malloc(row * cinfo.output_height);
  if (pixels == NULL) {
    snprintf(err.message, JMSG_LENGTH_MAX, "out of memory for %ux%u pixels", cinfo.output_width, cinfo.output_height);
    longjmp(err.jump, 1);
  }
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW rowp = pixels + row * cinfo.output_scanline;
    if (jpeg_read_scanlines(&cinfo, &rowp, 1) != 1) break;
  }
  out->width = cinfo.output_width;
  out->height = cinfo.output_height;
  out->components = cinfo.output_components;
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  out->pixels = pixels;
  return 0;
}

/// Releases `marquee_jpeg_image.pixels`.
static inline void marquee_jpeg_free(unsigned char *pixels) { free(pixels); }

#endif
