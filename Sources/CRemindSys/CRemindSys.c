#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/socket.h>
#include "CRemindSys.h"

int remindsys_syncfs(int fd) {
    return syncfs(fd);
}

int remindsys_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int remindsys_rename_exchange(const char *first, const char *second) {
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
}

int remindsys_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

int remindsys_fix_mmap_threshold(unsigned long bytes) {
    return mallopt(M_MMAP_THRESHOLD, (int)bytes);
}

int remindsys_open_read_noatime(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOATIME);
    if (fd < 0 && errno == EPERM) fd = open(path, O_RDONLY | O_CLOEXEC);
    return fd;
}
