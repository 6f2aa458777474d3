import Foundation
import RemindTesting
import Systemd
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension ProcessEnvironmentTests {
    @Suite(.ownThread)
    struct ListenFDsTests {
        /// Under socket activation a named Unix stream socket arrives as fd 3 with its FileDescriptorName.
        @Test func returnsNamedUnixStreamSocketWhenActivated() throws {
            let listener = try UnixStreamListener()
            let activated = try withDescriptor3(replacedBy: listener.fd) {
                try withEnvironment(activation(names: "api")) {
                    (try ListenFDs.fromEnvironment(), ListenFDs.socketKind(of: 3))
                }
            }
            #expect(activated.0.map(\.fd) == [3])
            #expect(activated.0.map(\.name) == ["api"])
            #expect(activated.1 == .unixStream)
        }

        /// The first read is kept for the life of the process, even after the environment changes.
        @Test func inheritedReturnsFirstReadWhenEnvironmentChangesLater() throws {
            let listener = try UnixStreamListener()
            let (first, second) = try withDescriptor3(replacedBy: listener.fd) {
                let first = try withEnvironment(activation(names: "api")) { try ListenFDs.inherited() }
                let second = try withEnvironment(["LISTEN_PID": nil, "LISTEN_FDS": nil, "LISTEN_FDNAMES": nil]) {
                    try ListenFDs.inherited()
                }
                return (first, second)
            }
            #expect(first.map(\.fd) == second.map(\.fd))
            #expect(first.map(\.name) == second.map(\.name))
        }

        /// Outside socket activation there are no fds.
        @Test func emptyWhenNotSocketActivated() throws {
            let fds = try withEnvironment(["LISTEN_PID": nil, "LISTEN_FDS": nil, "LISTEN_FDNAMES": nil]) {
                try ListenFDs.fromEnvironment()
            }
            #expect(fds.isEmpty)
        }

        /// Sockets passed to another process (LISTEN_PID is not ours) are not taken.
        @Test func emptyWhenListenPIDNamesAnotherProcess() throws {
            let fds = try withEnvironment(["LISTEN_PID": "1", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "api"]) {
                try ListenFDs.fromEnvironment()
            }
            #expect(fds.isEmpty)
        }

        /// Without LISTEN_FDNAMES systemd's convention is the name "unknown".
        @Test func nameIsUnknownWhenFDNamesMissing() throws {
            let listener = try UnixStreamListener()
            let fds = try withDescriptor3(replacedBy: listener.fd) {
                try withEnvironment(activation(names: nil)) { try ListenFDs.fromEnvironment() }
            }
            #expect(fds.map(\.name) == ["unknown"])
        }

        private func activation(names: String?) -> [String: String?] {
            ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "1", "LISTEN_FDNAMES": names]
        }
    }
}

/// Tells socket kinds apart; fds need not be passed by systemd for this.
@Suite(.ownThread)
struct SocketKindTests {
    /// A listening Unix stream socket is a Unix stream socket.
    @Test func unixStreamWhenBoundUnixStreamSocket() throws {
        let listener = try UnixStreamListener()
        #expect(ListenFDs.socketKind(of: listener.fd) == .unixStream)
    }

    /// A listening TCP socket on loopback is TCP.
    @Test func tcpWhenListeningOnLoopback() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0)
        try #require(listen(fd, 1) == 0)
        #expect(ListenFDs.socketKind(of: fd) == .tcp)
    }

    /// A datagram socket, a pipe and a closed fd are none of the kinds remindd serves.
    @Test func otherWhenDatagramSocketPipeOrClosedFD() throws {
        let datagram = try DatagramListener()
        var pipeFDs: [Int32] = [0, 0]
        try #require(pipe(&pipeFDs) == 0)
        defer {
            close(pipeFDs[0])
            close(pipeFDs[1])
        }
        #expect(ListenFDs.socketKind(of: pipeFDs[0]) == .other)
        #expect(ListenFDs.socketKind(of: -1) == .other)
        #expect(ListenFDs.socketKind(of: datagram.fd) == .other)
    }
}

/// A listening `AF_UNIX` stream socket in a fresh temporary folder, like a socket unit's `ListenStream=`.
final class UnixStreamListener {
    let fd: Int32
    let directory: String

    init() throws {
        var template = Array("/tmp/systemd-tests-XXXXXX".utf8CString)
        guard let directory = mkdtemp(&template) else { throw POSIXError(.EIO) }
        self.directory = String(cString: directory)
        self.fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((self.directory + "/api.sock").utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.prefix($0.count - 1)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(self.fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard self.fd >= 0, bound == 0, listen(self.fd, 1) == 0 else { throw POSIXError(.EIO) }
    }

    deinit {
        close(self.fd)
        unlink(self.directory + "/api.sock")
        rmdir(self.directory)
    }
}

/// Puts `fd` at fd 3, where systemd passes the first socket, around `body`.
///
/// The test runner may already use fd 3; it is moved aside to a high fd and put back afterwards, so the runner
/// finds it unchanged. Only serialized tests may call this.
func withDescriptor3<Result>(replacedBy fd: Int32, _ body: () throws -> Result) throws -> Result {
    let savedFlags = fcntl(3, F_GETFD)
    let saved = fcntl(3, F_DUPFD_CLOEXEC, 100)
    guard dup2(fd, 3) == 3 else { throw POSIXError(.EBADF) }
    defer {
        if saved >= 0 {
            dup2(saved, 3)
            _ = fcntl(3, F_SETFD, savedFlags)
            close(saved)
        } else {
            close(3)
        }
    }
    return try body()
}
