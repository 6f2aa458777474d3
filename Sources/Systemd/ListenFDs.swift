import CSystemd

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The sockets systemd passed to this process by socket activation (`sd_listen_fds_with_names(3)`).
///
/// The environment (`LISTEN_PID`, `LISTEN_FDS`, `LISTEN_FDNAMES`) is never unset, so reading it again returns the
/// same answer; children cannot take the sockets over by accident because `LISTEN_PID` names this process only.
/// Because a daemon may close or hand over an fd after taking it, use ``inherited()`` when the answer must be the
/// one from the first read for the life of the process.
public enum ListenFDs {
    /// The first passed fd (`SD_LISTEN_FDS_START`); the others follow without gaps.
    public static let start: Int32 = Int32(SD_LISTEN_FDS_START)

    /// What kind of socket an fd is, for choosing how to serve it.
    public enum SocketKind: Sendable, Hashable {
        /// `AF_UNIX`, `SOCK_STREAM` (e.g. `ListenStream=/run/remindd/api.sock`).
        case unixStream
        /// `AF_INET` or `AF_INET6`, `SOCK_STREAM` (e.g. `ListenStream=127.0.0.1:8080`).
        case tcp
        /// Anything else: a datagram socket, a FIFO, a regular file or an invalid fd.
        case other
    }

    /// Reads the passed fds now: `(fd, name)` pairs from fd 3 on, empty outside socket activation.
    ///
    /// A name is the unit's `FileDescriptorName=` (default: the socket unit's name) or "unknown" when systemd
    /// sent no `LISTEN_FDNAMES`. The fds are marked close-on-exec so that spawned sinks do not inherit them.
    public static func fromEnvironment() throws(SystemdError) -> [(fd: Int32, name: String)] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        let count = sd_listen_fds_with_names(0, &names)
        defer { Self.freeNames(names) }
        if count < 0 {
            throw .invalidListenFDs(errno: -count)
        }
        return (0..<count).map { index in
            let name = names?[Int(index)].map { String(cString: $0) } ?? "unknown"
            return (fd: Self.start + index, name: name)
        }
    }

    /// The passed fds as first read in this process; later calls return the same answer even if the environment
    /// changed since, so that every part of the daemon agrees on what systemd passed.
    public static func inherited() throws(SystemdError) -> [(fd: Int32, name: String)] {
        try Self.firstRead.get()
    }

    // A static let is initialised once, thread-safely, on first use: exactly the "read once" needed.
    private static let firstRead: Result<[(fd: Int32, name: String)], SystemdError> = Result {
        () throws(SystemdError) in try fromEnvironment()
    }

    /// Tells a Unix stream socket from a TCP socket (`sd_is_socket_unix(3)`, `sd_is_socket_inet(3)`), listening
    /// or not.
    public static func socketKind(of fd: Int32) -> SocketKind {
        if sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), -1, nil, 0) > 0 {
            return .unixStream
        }
        if sd_is_socket_inet(fd, Int32(AF_UNSPEC), Int32(SOCK_STREAM.rawValue), -1, 0) > 0 {
            return .tcp
        }
        return .other
    }

    /// libsystemd allocates the array and each name with malloc; the array is NULL-terminated.
    private static func freeNames(_ names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
        guard let names else { return }
        var index = 0
        while let name = names[index] {
            free(name)
            index += 1
        }
        free(names)
    }
}
