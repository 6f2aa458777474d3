import Hummingbird
import HummingbirdAuth

/// Puts the caller into every request's context, from the listener's credentials (a bearer
/// token on TCP, the peer's SO_PEERCRED on a Unix socket): the first middleware after the
/// problem mapping, so it runs for unknown routes too.
///
/// A TCP request without a valid token is refused here with 401, whatever its route: on TCP
/// nothing is answered to a caller nobody knows, not even a 404 that would tell which routes
/// exist. What each route needs beyond that is its group's ``RequireScope``.
struct CallerAuthenticator: AuthenticatorMiddleware {
    typealias Context = RemindRequestContext

    let access: AccessPolicy

    func authenticate(request: Request, context: Context) async throws -> Caller? {
        let caller = access.caller(authorization: request.headers[.authorization], peer: context.peer)
        if caller == nil, let refusal = access.refusal(of: nil, required: .read, action: "") { throw refusal }
        return caller
    }
}
