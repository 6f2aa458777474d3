import Foundation
import Hummingbird
import NIOCore
import RemindAPI
import RemindConfig

#if canImport(Glibc)
    import Glibc
#endif

/// Who may do what on a listener. See docs/api.md "Access".
///
/// Every route needs a scope (`AccessScope`): `GET` needs `read`, the report routes `report`,
/// everything else `admin`.
/// - On the Unix socket anyone who can connect reads; peers whose uid is 0 or the daemon's, or
///   whose gid is the socket's group (SO_PEERCRED), are `admin`; others get 403 for the rest.
/// - On TCP every request needs `Authorization: Bearer <token>` of a holder in the
///   `TokenTable`, else 401; a holder whose scope is too small gets 403 naming the scope needed.
public enum AccessPolicy: Sendable {
    case unixSocket(daemonUID: uid_t, socketGID: gid_t)
    case bearer(TokenTable)
    /// No checks: in-process tests, which have no socket to ask.
    case open

    /// The scope a request needs: decided by the method and path alone, before routing, so an
    /// unknown route is refused the same way as a known one.
    static func requiredScope(_ method: HTTPRequest.Method, segments: [Substring]) -> AccessScope {
        if method == .get || method == .head { return .read }
        if method == .post, isReportRoute(segments) { return .report }
        return .admin
    }

    /// `POST /v1/users/{id}/reports` (and the bulk route beside it).
    static func isReportRoute(_ segments: [Substring]) -> Bool {
        if segments.count == 2, segments[0] == "v1", segments[1] == "reports" { return true }
        return segments.count == 4 && segments[0] == "v1" && segments[1] == "users" && segments[3] == "reports"
    }

    /// The caller when the request may go on, else the problem to answer with. A Unix-socket
    /// reader's caller is only worked out when `identify` asks for it (`whoami`): other reads
    /// need no credentials, and asking costs a hop to the channel's event loop.
    func authorize(
        _ request: Request, segments: [Substring], context: RemindRequestContext, identify: Bool
    ) -> Result<Caller?, Problem> {
        let required = Self.requiredScope(request.method, segments: segments)
        switch self {
        case .open:
            return .success(Caller(name: "in-process", scope: .admin, transport: .unix))
        case .bearer(let tokens):
            guard let holder = tokens.holder(authorization: request.headers[.authorization]) else {
                return .failure(
                    Problem(
                        status: 401, title: "Unauthorized", detail: "a valid Authorization: Bearer token is required"))
            }
            guard holder.scope >= required else {
                return .failure(
                    Self.forbidden(
                        "\(request.method) \(request.uri.path) needs the \(required.rawValue) scope; \(holder.name) has \(holder.scope.rawValue)"
                    ))
            }
            return .success(Caller(name: holder.name, scope: holder.scope, transport: .tcp))
        case .unixSocket:
            guard required > .read || identify else { return .success(nil) }
            guard let credentials = context.peer else {
                return .failure(Self.forbidden("peer credentials unavailable"))
            }
            let caller = Caller(
                name: "uid:\(credentials.uid)", scope: admits(credentials) ? .admin : .read, transport: .unix)
            guard caller.scope >= required else {
                return .failure(
                    Self.forbidden(
                        "uid \(credentials.uid) may read but not change state: run as root, as the daemon's user, or in the socket's group"
                    ))
            }
            return .success(caller)
        }
    }

    private static func forbidden(_ detail: String) -> Problem {
        Problem(status: 403, title: "Forbidden", detail: detail)
    }

    /// Whether a bearer listener lets the holder of this `Authorization` header report.
    func admitsReport(authorization header: String?) -> Bool {
        guard case .bearer(let tokens) = self, let holder = tokens.holder(authorization: header) else { return false }
        return holder.scope >= .report
    }

    /// Whether a Unix-socket listener lets this peer change state.
    func admits(_ credentials: PeerCredentials) -> Bool {
        guard case .unixSocket(let daemonUID, let socketGID) = self else { return false }
        return credentials.uid == 0 || credentials.uid == daemonUID || credentials.gid == socketGID
    }
}
