#pragma once
// FFmpeg's libraries (libavformat, libavcodec, libavutil), imported only by DriftAV. The helpers below stand in for
// what Swift cannot reach: function-like macros (AVERROR, FFERRTAG codes, AV_NOPTS_VALUE) and a log callback that
// keeps the library quiet while remembering its last message for error reports (in shim.c: a log callback takes a
// va_list, and the message store is thread-local).
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static inline int driftfix_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int driftfix_averror_eof(void) { return AVERROR_EOF; }
static inline int driftfix_averror_enospc(void) { return AVERROR(ENOSPC); }
static inline int driftfix_averror_erofs(void) { return AVERROR(EROFS); }
static inline int64_t driftfix_av_nopts(void) { return AV_NOPTS_VALUE; }

/// Routes FFmpeg's log to a callback that keeps the last error-level message of each thread (decoder and demuxer
/// details for error reports): nothing reaches standard error.
void driftfix_av_quiet(void);

/// Forgets this thread's last message.
void driftfix_av_clear_message(void);

/// This thread's last error-level message from FFmpeg ("" when none).
const char *driftfix_av_message(void);
