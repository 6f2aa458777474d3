import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// SO_PEERCRED of a connected Unix socket.
struct PeerCredentials: Sendable {
    var pid: pid_t
    var uid: uid_t
    var gid: gid_t

    /// The credentials as a future; on the channel's event loop it is complete at once.
    static func future(_ channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let option = NIOBSDSocket.Option(rawValue: SO_PEERCRED)
        let credentials: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(level: .socket, name: option)
        return credentials.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }.recover { _ in nil }
    }

    /// `struct ucred` of <sys/socket.h>, which Swift's Glibc module hides behind _GNU_SOURCE:
    /// the kernel fills these three 32-bit fields in this order.
    private struct UCred: Sendable {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
    }
}
