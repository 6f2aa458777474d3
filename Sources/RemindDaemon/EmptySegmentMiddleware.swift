import Hummingbird
import RemindCore

/// Keeps the API's paths exact where Hummingbird's router is lenient: the router passes over
/// empty path segments, so `/v1/status/` would be `/v1/status` and `/v1/users//reports` would
/// be `/v1/users/reports` (a user named "reports"). An empty segment where a user ID goes is
/// that ID, empty, refused with the 400 naming `userID` that any invalid ID gets; anywhere
/// else the path names nothing: 404. The console's paths are the file middleware's (`/ui/` is
/// its index).
struct EmptySegmentMiddleware: RouterMiddleware {
    typealias Context = RemindRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard path.count > 1, path.hasSuffix("/") || path.contains("//"), !ConsoleRoutes.serves(path) else {
            return try await next(request, context)
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if segments.count >= 3, segments.starts(with: ["v1", "users"]), segments.dropFirst(2).first == "" {
            _ = try UserID(pathSegment: "")
        }
        throw HTTPError(.notFound)
    }
}
