#define _GNU_SOURCE
#include "csystem.h"
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

// Fixed storage, so the handler reads only memory that exists for the whole process. A slot's path is written
// while the slot is marked unused and published with a release store; the handler reads it after an acquire load.
#define SLOTS 256
static char paths[SLOTS][PATH_MAX];
static atomic_int used[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int driftfix_cleanup_add(const char *path) {
    size_t length = strlen(path);
    if (length >= PATH_MAX) return -1;
    pthread_mutex_lock(&lock);
    int slot = -1;
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load_explicit(&used[i], memory_order_relaxed) == 0) {
            slot = i;
            break;
        }
    }
    if (slot >= 0) {
        memcpy(paths[slot], path, length + 1);
        atomic_store_explicit(&used[slot], 1, memory_order_release);
    }
    pthread_mutex_unlock(&lock);
    return slot;
}

void driftfix_cleanup_remove(int slot) {
    if (slot < 0 || slot >= SLOTS) return;
    pthread_mutex_lock(&lock);
    atomic_store_explicit(&used[slot], 0, memory_order_release);
    pthread_mutex_unlock(&lock);
}

void driftfix_cleanup_run(void) {
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load_explicit(&used[i], memory_order_acquire)) unlink(paths[i]);
    }
}

// What each signal did before: restored before the signal is raised again, so a crash still reaches the Swift
// runtime's backtracer and a termination still ends the process as the parent expects.
static struct sigaction previous[NSIG];

static void on_signal(int number) {
    driftfix_cleanup_run();
    sigaction(number, &previous[number], NULL);
    raise(number);
}

static void install(int number) {
    // A signal the process was started with ignored (a background job's SIGINT, a SIGPIPE the parent ignores)
    // stays ignored: catching it would turn a harmless signal into a failed job.
    struct sigaction current;
    if (sigaction(number, NULL, &current) == 0 && current.sa_handler == SIG_IGN) return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    action.sa_flags = SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(number, &action, &previous[number]);
}

void driftfix_cleanup_install(int terminating) {
    const int always[] = {SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF, SIGXCPU,
                          SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
    const int stops[] = {SIGINT, SIGTERM, SIGHUP};
    // A parent may hand down a signal mask with these blocked (a thread that spawned us had them blocked): a blocked
    // signal would wait unseen until the end, so the ones handled here are unblocked for this thread and the threads
    // it starts from now on.
    sigset_t handled;
    sigemptyset(&handled);
    for (unsigned i = 0; i < sizeof always / sizeof always[0]; i++) {
        install(always[i]);
        sigaddset(&handled, always[i]);
    }
    if (terminating) {
        for (unsigned i = 0; i < sizeof stops / sizeof stops[0]; i++) {
            install(stops[i]);
            sigaddset(&handled, stops[i]);
        }
    }
    pthread_sigmask(SIG_UNBLOCK, &handled, NULL);
    signal(SIGXFSZ, SIG_IGN);
}
