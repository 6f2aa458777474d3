#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H

// The journal's location macros wrap sd_journal_sendv() in a variadic-free but
// __FILE__-based form that would stamp this header's location on every entry;
// Swift passes its own CODE_FILE/CODE_LINE/CODE_FUNC fields instead.
#define SD_JOURNAL_SUPPRESS_LOCATION 1

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

// sd_notify(3) without the wait. libsystemd sends on a blocking socket, so when the receiver
// stops reading (its queue holds net.unix.max_dgram_qlen datagrams) the caller blocks, and a
// daemon whose few cooperative threads all block on a status line stops answering anything.
// The same protocol (a datagram to $NOTIFY_SOCKET, '@' for the abstract namespace), sent with
// MSG_DONTWAIT: a full queue is reported as -EAGAIN and the message is dropped. Returns like
// sd_notify: > 0 sent, 0 without NOTIFY_SOCKET, < 0 a negative errno.
static inline int csystemd_notify_nonblocking(const char *state) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (path == NULL || path[0] == '\0') return 0;
    if (path[0] != '/' && path[0] != '@') return -EAFNOSUPPORT;
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    size_t length = strlen(path);
    if (length >= sizeof address.sun_path) return -EINVAL;
    memcpy(address.sun_path, path, length);
    int abstract = path[0] == '@';
    if (abstract) address.sun_path[0] = '\0';
    socklen_t address_length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length + (abstract ? 0 : 1));
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    ssize_t sent = sendto(fd, state, strlen(state), MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&address,
                          address_length);
    int error = errno;
    close(fd);
    return sent < 0 ? -error : 1;
}

// sd_journal_sendv(3) without the wait, for callers that must not stall (the journal sink).
// libsystemd sends on a blocking socket: once journald stops reading (stopped, rate-limited,
// a slow disk) and its queue holds net.unix.max_dgram_qlen datagrams, the caller blocks until
// it reads again. This sends one entry, already in journald's native protocol (NAME=value
// lines, or NAME\n<64-bit LE length><value>\n for values with newlines), as one datagram with
// MSG_DONTWAIT: a full queue is -EAGAIN, no journald is -ENOENT or -ECONNREFUSED, an entry too
// big for one datagram is -EMSGSIZE. Returns 0 when sent, else a negative errno.
static inline int csystemd_journal_send_nonblocking(const void *entry, size_t size) {
    static const char path[] = "/run/systemd/journal/socket";
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    memcpy(address.sun_path, path, sizeof path);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    ssize_t sent = sendto(fd, entry, size, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&address,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) + sizeof path));
    int error = errno;
    close(fd);
    return sent < 0 ? -error : 0;
}

#endif
