// FFmpeg loaded at first use: the libraries by their sonames (the major versions of the headers built against, so an
// ABI change is refused by the loader, never called into), every function looked up once into a table, and a
// forwarding driftfix_<name> per function. Loaded RTLD_LOCAL: FFmpeg's symbols stay out of the global scope, so no
// library loaded later binds to them by accident.
#include "cffmpeg.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define DRIFTFIX_SONAME(name, major) "lib" name ".so." AV_STRINGIFY(major)

static struct {
#define DRIFTFIX_AV(type, name, parameters, arguments) __typeof__(name) *name;
#define DRIFTFIX_AV_VOID(name, parameters, arguments) __typeof__(name) *name;
#include "ffmpeg_functions.def"
#undef DRIFTFIX_AV
#undef DRIFTFIX_AV_VOID
} functions;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int outcome = -1;
static char failure[512];

static void load(void) {
    // libavformat's own dependencies bring libavcodec and libavutil; dlsym on its handle searches all three.
    void *library = dlopen(DRIFTFIX_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason ? reason : "dlopen failed");
        return;
    }
#define DRIFTFIX_AV(type, name, parameters, arguments)                                              \
    functions.name = (__typeof__(name) *)dlsym(library, #name);                                     \
    if (functions.name == NULL) {                                                                   \
        snprintf(failure, sizeof failure, "%s has no %s", DRIFTFIX_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), \
                 #name);                                                                            \
        return;                                                                                     \
    }
#define DRIFTFIX_AV_VOID(name, parameters, arguments) DRIFTFIX_AV(void, name, parameters, arguments)
#include "ffmpeg_functions.def"
#undef DRIFTFIX_AV
#undef DRIFTFIX_AV_VOID
    outcome = 0;
    driftfix_av_quiet();
}

int driftfix_av_load(void) {
    pthread_once(&once, load);
    return outcome;
}

const char *driftfix_av_load_error(void) {
    pthread_once(&once, load);
    return failure;
}

#define DRIFTFIX_AV(type, name, parameters, arguments) \
    type driftfix_##name parameters { return functions.name arguments; }
#define DRIFTFIX_AV_VOID(name, parameters, arguments) \
    void driftfix_##name parameters { functions.name arguments; }
#include "ffmpeg_functions.def"
#undef DRIFTFIX_AV
#undef DRIFTFIX_AV_VOID
