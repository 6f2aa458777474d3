import Crypto
import Foundation
import Hummingbird
import NIOCore
import RemindAPI
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Who may do what on a listener (DESIGN §3).
///
/// - On the Unix socket anyone who can connect may read; requests that change state are
///   allowed for peers whose uid is 0 or the daemon's, or whose gid is the socket's group
///   (SO_PEERCRED), else 403.
/// - On TCP every request needs `Authorization: Bearer <token>`, else 401. The comparison
///   takes the same time wherever the tokens differ, so response timing leaks nothing.
public enum AccessPolicy: Sendable {
    case unixSocket(daemonUID: uid_t, socketGID: gid_t)
    case bearer(token: [UInt8])
    /// No checks: in-process tests, which have no socket to ask.
    case open

    /// nil when allowed, else the problem to answer with.
    func check(_ request: Request, context: RemindRequestContext) async -> Problem? {
        switch self {
        case .open:
            return nil
        case .bearer(let token):
            guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
                Self.constantTimeEqual(Array(header.utf8.dropFirst(7)), token)
            else {
                return Problem(
                    status: 401, title: "Unauthorized", detail: "a valid Authorization: Bearer token is required")
            }
            return nil
        case .unixSocket(let daemonUID, let socketGID):
            guard
                request.method == .post || request.method == .delete || request.method == .put
                    || request.method == .patch
            else { return nil }
            guard let credentials = await PeerCredentials.cached(context.channel) else {
                return Problem(status: 403, title: "Forbidden", detail: "peer credentials unavailable")
            }
            if credentials.uid == 0 || credentials.uid == daemonUID || credentials.gid == socketGID {
                return nil
            }
            return Problem(
                status: 403, title: "Forbidden",
                detail:
                    "uid \(credentials.uid) may read but not change state: run as root, as the daemon's user, or in the socket's group"
            )
        }
    }

    /// Whether a bearer listener admits a request with this `Authorization` header.
    func admitsBearer(_ header: String?) -> Bool {
        guard case .bearer(let token) = self else { return false }
        guard let header, header.hasPrefix("Bearer ") else { return false }
        return Self.constantTimeEqual(Array(header.utf8.dropFirst(7)), token)
    }

    /// Whether a Unix-socket listener lets this peer change state.
    func admits(_ credentials: PeerCredentials) -> Bool {
        guard case .unixSocket(let daemonUID, let socketGID) = self else { return false }
        return credentials.uid == 0 || credentials.uid == daemonUID || credentials.gid == socketGID
    }

    /// Compares SHA-256 digests of both, every byte whatever the first difference: the time
    /// taken tells neither how much of a guessed token was right nor how long the token is.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        let left = Array(SHA256.hash(data: lhs))
        let right = Array(SHA256.hash(data: rhs))
        var difference: UInt8 = 0
        for index in 0..<left.count { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

/// SO_PEERCRED of a connected Unix socket.
struct PeerCredentials: Sendable {
    var pid: pid_t
    var uid: uid_t
    var gid: gid_t

    /// The connection's credentials, asked of the kernel once per connection: a Unix socket's
    /// peer cannot change, and asking means a hop to the channel's event loop and back on
    /// every report (issue 17).
    static func cached(_ channel: (any Channel)?) async -> PeerCredentials? {
        guard let channel else { return nil }
        let key = ObjectIdentifier(channel)
        if let known = known.withLock({ $0[key] }) { return known }
        guard let fetched = await of(channel) else { return nil }
        if known.withLock({ $0.updateValue(fetched, forKey: key) == nil }) {
            // Gone with the connection, before another channel can take its identifier.
            channel.closeFuture.whenComplete { _ in _ = known.withLock { $0.removeValue(forKey: key) } }
        }
        return fetched
    }

    private static let known = Mutex<[ObjectIdentifier: PeerCredentials]>([:])

    /// The credentials as a future; on the channel's event loop it is complete at once.
    static func future(_ channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let option = NIOBSDSocket.Option(rawValue: SO_PEERCRED)
        let credentials: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(level: .socket, name: option)
        return credentials.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }.recover { _ in nil }
    }

    static func of(_ channel: (any Channel)?) async -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let option = NIOBSDSocket.Option(rawValue: SO_PEERCRED)
        guard let credentials: UCred = try? await provider.unsafeGetSocketOption(level: .socket, name: option).get()
        else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    /// `struct ucred` of <sys/socket.h>, which Swift's Glibc module hides behind _GNU_SOURCE:
    /// the kernel fills these three 32-bit fields in this order.
    private struct UCred: Sendable {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
    }
}
