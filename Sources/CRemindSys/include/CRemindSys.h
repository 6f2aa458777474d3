// A minimal C boundary for the Linux calls Swift's Glibc module does not import.
// Every function carries the `remindsys_` prefix. The header includes no system header:
// the implementation needs _GNU_SOURCE, which must not leak into Swift's view of Glibc.
#ifndef CREMINDSYS_H
#define CREMINDSYS_H

// syncfs(2): flushes the whole file system holding `fd` (a GNU extension).
int remindsys_syncfs(int fd);

// pipe2(fds, O_CLOEXEC): a pipe whose ends no concurrently spawned child inherits.
int remindsys_pipe_cloexec(int fds[2]);

// renameat2(RENAME_EXCHANGE): swaps two paths atomically, so neither inode is freed.
// Returns 0, or -1 with errno (ENOENT when either is missing, EINVAL where unsupported).
int remindsys_rename_exchange(const char *first, const char *second);

// sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE): starts writing the file's dirty pages
// back without waiting, so a later fdatasync finds them done.
int remindsys_start_writeback(int fd);

// mallopt(M_MMAP_THRESHOLD, bytes): allocations of `bytes` or more get pages of their own,
// given back when freed, and glibc stops raising the threshold (and the trim threshold with
// it) each time such a block is freed. Returns 1 on success.
int remindsys_fix_mmap_threshold(unsigned long bytes);

// open(path, O_RDONLY | O_CLOEXEC | O_NOATIME), falling back to no O_NOATIME where the
// caller does not own the file (EPERM): reading a user file must not dirty its inode.
int remindsys_open_read_noatime(const char *path);

#endif
