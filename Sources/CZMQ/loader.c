// libzmq loaded at first use: by its soname (libzmq.so.5, the ABI of every libzmq since 4.1; a library of another ABI
// is refused by the loader, never called into), every function looked up once into a table, and a forwarding
// driftfix_<name> per function. Loaded RTLD_LOCAL: its symbols stay out of the global scope.
#include "driftfix_zmq.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define DRIFTFIX_ZMQ_SONAME "libzmq.so.5"

static struct {
#define DRIFTFIX_ZMQ(type, name, parameters, arguments, failure) __typeof__(name) *name;
#include "zmq_functions.def"
#undef DRIFTFIX_ZMQ
    __typeof__(zmq_errno) *zmq_errno;
    __typeof__(zmq_strerror) *zmq_strerror;
} functions;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int outcome = -1;
static char failure[512];

#define DRIFTFIX_ZMQ_FIND(name)                                                                 \
    functions.name = (__typeof__(name) *)dlsym(library, #name);                                 \
    if (functions.name == NULL) {                                                               \
        snprintf(failure, sizeof failure, "%s has no %s", DRIFTFIX_ZMQ_SONAME, #name);          \
        return;                                                                                 \
    }

static void load(void) {
    void *library = dlopen(DRIFTFIX_ZMQ_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason ? reason : "dlopen " DRIFTFIX_ZMQ_SONAME " failed");
        return;
    }
#define DRIFTFIX_ZMQ(type, name, parameters, arguments, value) DRIFTFIX_ZMQ_FIND(name)
#include "zmq_functions.def"
#undef DRIFTFIX_ZMQ
    DRIFTFIX_ZMQ_FIND(zmq_errno)
    DRIFTFIX_ZMQ_FIND(zmq_strerror)
    outcome = 0;
}

int driftfix_zmq_load(void) {
    pthread_once(&once, load);
    return outcome;
}

const char *driftfix_zmq_load_error(void) {
    pthread_once(&once, load);
    return failure;
}

int driftfix_zmq_errno(void) {
    return driftfix_zmq_load() == 0 ? functions.zmq_errno() : errno;
}

const char *driftfix_zmq_strerror(int code) {
    return driftfix_zmq_load() == 0 ? functions.zmq_strerror(code) : strerror(code);
}

#define DRIFTFIX_ZMQ(type, name, parameters, arguments, value) \
    type driftfix_##name parameters {                          \
        if (driftfix_zmq_load() != 0) {                        \
            errno = ELIBACC;                                   \
            return value;                                      \
        }                                                      \
        return functions.name arguments;                       \
    }
#include "zmq_functions.def"
#undef DRIFTFIX_ZMQ
