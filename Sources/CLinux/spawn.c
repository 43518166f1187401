#define _GNU_SOURCE
#include "csystem.h"
#include <fcntl.h>
#include <unistd.h>

int driftfix_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int driftfix_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
