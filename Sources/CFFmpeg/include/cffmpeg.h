#pragma once
// FFmpeg's libraries (libavformat, libavcodec, libavutil), imported only by DriftAV. They are loaded at first use
// (loader.c), not linked: they bring some 130 shared libraries with them (codecs, TLS, image formats), which cost every
// process ~35 ms of dynamic linking and ~20 MiB of resident pages, though most jobs read WAV through libsndfile. Their
// headers give the types; each function is called as driftfix_<name> (ffmpeg_functions.def), after driftfix_av_load().
// The helpers below stand in for what Swift cannot reach: function-like macros (AVERROR, FFERRTAG codes,
// AV_NOPTS_VALUE) and a log callback that keeps the library quiet while remembering its last message for error
// reports (in shim.c: a log callback takes a va_list, and the message store is thread-local).
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

#define DRIFTFIX_AV(type, name, parameters, arguments) type driftfix_##name parameters;
#define DRIFTFIX_AV_VOID(name, parameters, arguments) void driftfix_##name parameters;
#include "ffmpeg_functions.def"
#undef DRIFTFIX_AV
#undef DRIFTFIX_AV_VOID

/// Loads libavformat (and with it libavcodec and libavutil) and every function driftfix calls, once per process, and
/// quiets its log (driftfix_av_quiet). Returns 0, or -1 with the reason in driftfix_av_load_error(); every caller
/// after the first gets the first's answer. No driftfix_<name> function may be called before it returned 0.
int driftfix_av_load(void);

/// Why driftfix_av_load failed: dlopen's or dlsym's words ("" when it did not).
const char *driftfix_av_load_error(void);

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
