#pragma once
// What the tests' process runner needs from glibc that hides behind _GNU_SOURCE, which Swift's Glibc module does not
// define.
#include <spawn.h>

/// pipe2(fds, O_CLOEXEC): a pipe no concurrently spawned child inherits.
int driftfix_test_pipe_cloexec(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor from `from` up.
int driftfix_test_spawn_closefrom(posix_spawn_file_actions_t *actions, int from);
