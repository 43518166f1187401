#define _GNU_SOURCE
#include "csystem.h"
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <string.h>

int driftfix_open_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (unsigned long long)flags;
    how.mode = (flags & 0100 /* O_CREAT */) ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}
