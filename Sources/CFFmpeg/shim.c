#include "cffmpeg.h"

static __thread char last_message[256];

static void log_callback(void *context, int level, const char *format, va_list arguments) {
    (void)context;
    if (level > AV_LOG_ERROR) return;
    vsnprintf(last_message, sizeof last_message, format, arguments);
    size_t length = strlen(last_message);
    while (length > 0 && (last_message[length - 1] == '\n' || last_message[length - 1] == '\r')) {
        last_message[--length] = 0;
    }
}

void driftfix_av_quiet(void) { driftfix_av_log_set_callback(log_callback); }

void driftfix_av_clear_message(void) { last_message[0] = 0; }

const char *driftfix_av_message(void) { return last_message; }
