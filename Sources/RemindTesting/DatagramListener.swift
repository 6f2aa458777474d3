import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A bound `AF_UNIX` datagram socket in a fresh temporary folder, standing in for systemd's `NOTIFY_SOCKET`.
///
/// Receiving waits on the socket itself with a bounded timeout, so tests never sleep to wait for a message.
public final class DatagramListener: Sendable {
    /// The folder holding the socket; removed with the listener.
    public let directory: String
    /// The socket's path, what `NOTIFY_SOCKET` is set to.
    public let path: String
    /// The bound socket.
    public let fd: Int32

    public init() throws {
        var template = Array("/tmp/systemd-tests-XXXXXX".utf8CString)
        guard let directory = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        self.directory = String(cString: directory)
        self.path = self.directory + "/notify.sock"
        self.fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard self.fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let result = Self.withAddress(of: self.path) { bind(self.fd, $0, $1) }
        guard result == 0 else {
            let error = errno
            close(self.fd)
            throw POSIXError(.init(rawValue: error) ?? .EIO)
        }
    }

    deinit {
        close(self.fd)
        unlink(self.path)
        rmdir(self.directory)
    }

    /// The next datagram as text, or nil when none arrives within `timeout`.
    public func receive(timeout: Duration = .seconds(5)) throws -> String? {
        var descriptor = pollfd(fd: self.fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let ready = poll(&descriptor, 1, milliseconds)
        guard ready > 0 else {
            if ready < 0 { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            return nil
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(self.fd, &buffer, buffer.count, 0)
        guard count >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Whether some process has a datagram socket bound at `path`: connecting sends nothing, and fails with
    /// `ENOENT` (no file) or `ECONNREFUSED` (a file left over from a process that is gone).
    public static func isListening(at path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return Self.withAddress(of: path) { connect(fd, $0, $1) } == 0
    }

    private static func withAddress(
        of path: String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            sunPath.copyBytes(from: bytes.prefix(sunPath.count - 1))
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
