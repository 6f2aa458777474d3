import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A client connection on the daemon's Unix socket that writes whatever bytes a test wants,
/// as slowly as it wants, and can tell when the daemon closed it: what a hostile client does,
/// which `DaemonHTTPClient` is too well-behaved to.
final class RawConnection {
    enum Failure: Error { case connect(Int32) }

    let fd: Int32

    /// Connects, waiting at most `timeout` for the daemon to take the connection into its
    /// backlog (a full backlog makes `connect` wait).
    init(socketPath: String, timeout: Duration = .seconds(30)) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.connect(errno) }
        var limit = timeval(
            tv_sec: Int(timeout.components.seconds),
            tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in socketPath.utf8.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            close(fd)
            throw Failure.connect(error)
        }
    }

    deinit { close(fd) }

    /// Writes all of `bytes`; false once the daemon no longer takes them (closed or reset).
    @discardableResult
    func write(_ bytes: some Collection<UInt8>) -> Bool {
        let bytes = Array(bytes)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Reads what the daemon sends until it closes the connection, waiting at most until
    /// `deadline`; `closed` is false when the deadline came first.
    func readUntilClosed(deadline: ContinuousClock.Instant) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(max(1, min(1000, left.components.seconds * 1000)))
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            // 0 is the daemon's FIN; an error (ECONNRESET) is a close too.
            if count <= 0 { return (received, true) }
            received += buffer[0..<count]
        }
        return (received, false)
    }

    /// True when the daemon closed the connection (a read would return end of file or an error)
    /// within `timeout`; false while it is still open.
    func isClosed(within timeout: Duration = .zero) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }

    /// True when the daemon closed its socket entirely within `timeout`. Reading end of file only
    /// says it will send nothing more, which a half-close (`shutdown(SHUT_WR)`) also says; a Unix
    /// socket reports `POLLHUP` only once the peer's socket is gone.
    func isHungUp(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(
                max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            // No events asked for: poll still reports POLLHUP, and returns 0 at the deadline.
            var descriptor = pollfd(fd: fd, events: 0, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            return ready > 0 && descriptor.revents & Int16(POLLHUP) != 0
        }
    }

    /// Waits until the daemon closed at least `count` of `connections` (end of file), or until
    /// `deadline`; returns how many it closed. One `poll` over all of them: it returns as soon as
    /// any has news.
    static func waitUntilClosed(
        _ connections: [RawConnection], count: Int, deadline: ContinuousClock.Instant
    ) -> Int {
        var open = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var closed = 0
        while closed < count, !open.isEmpty {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            let milliseconds = Int32(
                left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&open, nfds_t(open.count), max(1, milliseconds))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var byte: UInt8 = 0
            let before = open.count
            open.removeAll { $0.revents != 0 && recv($0.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0 }
            closed += before - open.count
            for index in open.indices { open[index].revents = 0 }
        }
        return closed
    }

    /// The status code of the first HTTP response in `bytes`, if there is one.
    static func status(of bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }
}
