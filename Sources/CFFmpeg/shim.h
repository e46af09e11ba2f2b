#ifndef MARQUEE_CFFMPEG_SHIM_H
#define MARQUEE_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libavutil/imgutils.h>
#include <libavutil/display.h>
#include <libavutil/channel_layout.h>
#include <libavutil/pixdesc.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/dict.h>
#include <libavutil/log.h>
#include <libavutil/sha.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

// Swift cannot import function-like macros or macro constants built from
// them; these prefixed inline functions stand in for them.

/// `AVERROR(e)`: a POSIX errno as an FFmpeg status code.
static inline int marquee_AVERROR(int e) { return AVERROR(e); }
/// `AVERROR_EOF`.
static inline int marquee_AVERROR_EOF(void) { return AVERROR_EOF; }
/// `AVERROR(EAGAIN)`.
static inline int marquee_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
/// `AVERROR_INVALIDDATA`.
static inline int marquee_AVERROR_INVALIDDATA(void) { return AVERROR_INVALIDDATA; }
/// `AV_NOPTS_VALUE`.
static inline int64_t marquee_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
/// `AV_TIME_BASE_Q`.
static inline AVRational marquee_AV_TIME_BASE_Q(void) { return AV_TIME_BASE_Q; }

#endif
