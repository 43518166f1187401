#pragma once
// Linux system calls and signal-context code that Swift cannot reach or must not run: openat2(2) and renameat2(2)
// have no wrapper Swift can call (glibc 2.36 lacks openat2, and renameat2 hides behind _GNU_SOURCE), and a signal
// handler may only touch async-signal-safe state, which a Swift closure cannot promise.
#ifndef __linux__
#error "driftfix builds on Linux only (openat2, renameat2, /proc/self/fd)"
#endif
#include <spawn.h>

/// Opens `path` (relative) beneath the directory `dirfd` with RESOLVE_BENEATH; returns a descriptor or -1 with errno
/// set (EXDEV or ELOOP when the path would leave the directory, ENOSYS before Linux 5.6). The kernel resolves the
/// whole path below the directory in one step and refuses any `..`, absolute link or symbolic link that would leave
/// it - so a path checked is the path opened.
int driftfix_open_beneath(int dirfd, const char *path, int flags, unsigned int mode);

/// renameat2(from, to, RENAME_NOREPLACE): fails with EEXIST instead of replacing `to`; EINVAL where the file
/// system cannot do it (NFS, some FUSE).
int driftfix_rename_noreplace(const char *from, const char *to);

/// sync_file_range(fd, 0, to the end, SYNC_FILE_RANGE_WRITE): starts writing the file's dirty pages back to the disk
/// without waiting for them (a hint: fsync is still what makes them durable). 0, or -1 with errno set.
int driftfix_start_writeback(int fd);

/// renameat2(a, b, RENAME_EXCHANGE): swaps the two names atomically (both must exist); EINVAL where unsupported.
int driftfix_rename_exchange(const char *a, const char *b);

/// Registers a temporary file to delete if the process dies of a signal; returns a slot for
/// `driftfix_cleanup_remove`, or -1 when every slot is taken or the path is too long.
int driftfix_cleanup_add(const char *path);

/// Forgets a slot (the file was renamed into place or deleted).
void driftfix_cleanup_remove(int slot);

/// Deletes every registered file now (async-signal-safe: only unlink(2)).
void driftfix_cleanup_run(void);

/// Installs handlers that delete the registered files and then let the signal take its default course (the process
/// still dies of it, so its parent sees why). `terminating` adds SIGINT, SIGTERM and SIGHUP - for commands that have
/// no graceful stop of their own - to the signals always covered: SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
/// SIGVTALRM, SIGPROF, SIGXCPU and the crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS).
/// SIGXFSZ is ignored instead, so an over-large write fails with EFBIG and is reported like any write error.
void driftfix_cleanup_install(int terminating);

/// The CPU ids this process may run on (sched_getaffinity, behind _GNU_SOURCE), ascending, at most `capacity` of
/// them written to `ids`; returns how many there are, or -1 with errno set.
int driftfix_allowed_cpus(int *ids, int capacity);

/// pipe2(fds, O_CLOEXEC): a pipe no concurrently spawned child inherits (the fixtures' process runner).
int driftfix_pipe_cloexec(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor from `from` up.
int driftfix_spawn_closefrom(posix_spawn_file_actions_t *actions, int from);
