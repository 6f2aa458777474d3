import Foundation
import RemindAPI
import RemindConfig

#if canImport(Glibc)
    import Glibc
#endif

/// Who may do what on a listener. See docs/api.md "Access".
///
/// Every route group declares the scope (`AccessScope`) its routes need (``RequireScope``); this
/// type only says who the caller is and whether that caller has the scope, for the router's
/// middleware and the report fast path alike.
/// - On the Unix socket anyone who can connect reads; peers whose uid is 0 or the daemon's, or
///   whose gid is the socket's group (SO_PEERCRED), are `admin`; others get 403 for the rest.
/// - On TCP every request needs `Authorization: Bearer <token>` of a holder in the
///   `TokenTable`, else 401; a holder whose scope is too small gets 403 naming the scope needed.
public enum AccessPolicy: Sendable {
    case unixSocket(daemonUID: uid_t, socketGID: gid_t)
    case bearer(TokenTable)
    /// No checks: in-process tests, which have no socket to ask.
    case open

    /// The caller a request's credentials name: the token's holder on TCP (nil without a
    /// valid token), the peer on a Unix socket (nil when its credentials could not be read).
    func caller(authorization: String?, peer: PeerCredentials?) -> Caller? {
        switch self {
        case .open:
            return Caller(name: "in-process", scope: .admin, transport: .unix)
        case .bearer(let tokens):
            return tokens.holder(authorization: authorization).map {
                Caller(name: $0.name, scope: $0.scope, transport: .tcp)
            }
        case .unixSocket:
            return peer.map {
                Caller(name: "uid:\($0.uid)", scope: admits($0) ? .admin : .read, transport: .unix)
            }
        }
    }

    /// Why `caller` may not do what needs `required` (to `action`, "GET /v1/status"), or nil
    /// when it may.
    func refusal(of caller: Caller?, required: AccessScope, action: @autoclosure () -> String) -> Problem? {
        switch self {
        case .open:
            return nil
        case .bearer:
            guard let caller else {
                return Problem(
                    status: 401, title: "Unauthorized", detail: "a valid Authorization: Bearer token is required")
            }
            guard caller.scope >= required else {
                return Self.forbidden(
                    "\(action()) needs the \(required.rawValue) scope; \(caller.name) has \(caller.scope.rawValue)")
            }
            return nil
        case .unixSocket:
            // Anyone who can connect reads, credentials or not.
            guard required > .read else { return nil }
            guard let caller else { return Self.forbidden("peer credentials unavailable") }
            guard caller.scope >= required else {
                return Self.forbidden(
                    "\(caller.name) may read but not change state: run as root, as the daemon's user, or in the socket's group"
                )
            }
            return nil
        }
    }

    private static func forbidden(_ detail: String) -> Problem {
        Problem(status: 403, title: "Forbidden", detail: detail)
    }

    /// Whether a Unix-socket listener lets this peer change state.
    func admits(_ credentials: PeerCredentials) -> Bool {
        guard case .unixSocket(let daemonUID, let socketGID) = self else { return false }
        return credentials.uid == 0 || credentials.uid == daemonUID || credentials.gid == socketGID
    }
}
