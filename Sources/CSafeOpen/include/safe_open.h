#pragma once
// openat2(2) with RESOLVE_BENEATH: the kernel resolves the whole path below a directory descriptor in one step and
// refuses any `..`, absolute link or symbolic link that would leave it - so a path checked is the path opened.
// glibc 2.36 has no wrapper, and Swift cannot call the variadic syscall(2) itself.

/// Opens `path` (relative) beneath the directory `dirfd`; returns a descriptor or -1 with errno set
/// (EXDEV or ELOOP when the path would leave the directory, ENOSYS before Linux 5.6).
int driftfix_open_beneath(int dirfd, const char *path, int flags, unsigned int mode);
