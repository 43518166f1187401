#define _GNU_SOURCE
#include "csystem.h"
#include <fcntl.h>

int driftfix_start_writeback(int fd) { return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); }
