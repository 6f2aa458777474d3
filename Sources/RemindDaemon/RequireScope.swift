import Hummingbird
import RemindConfig

/// Lets a request of a route group through only when its caller (``CallerAuthenticator``) has
/// the scope the group's routes need, else answers the listener's 401 or 403 naming the scope.
struct RequireScope: RouterMiddleware {
    typealias Context = RemindRequestContext

    let scope: AccessScope
    let access: AccessPolicy

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let refusal = access.refusal(
            of: context.identity, required: scope, action: "\(request.method) \(request.uri.path)")
        {
            throw refusal
        }
        return try await next(request, context)
    }
}
