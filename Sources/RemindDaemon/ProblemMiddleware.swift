import Hummingbird
import Logging
import NIOCore
import RemindAPI
import RemindCore
import RemindStore

/// The one place errors become answers: every error a handler or middleware throws is turned
/// into an `application/problem+json` response here (docs/api.md "Errors").
/// - ``Problem``: as it is (401 with `WWW-Authenticate`).
/// - `ValidationError`: 400 naming the field.
/// - `StoreError`: 503 with `Retry-After` while storage is unavailable, else 500; recorded as
///   the daemon's last error.
/// - Hummingbird's errors (no route: 404; a body too large: 413): their status, as a problem.
/// - Anything else: 500, logged.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = RemindRequestContext

    let noteStoreFailure: @Sendable (any Error) -> Void

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return response(to: error, request: request, logger: context.logger)
        }
    }

    func response(to error: any Error, request: Request, logger: Logger) -> Response {
        switch error {
        case let problem as Problem:
            return HTTPResponses.problem(problem)
        case let error as ValidationError:
            return HTTPResponses.badRequest(error)
        case let error as StoreError:
            noteStoreFailure(error)
            return HTTPResponses.answer(.storeFailure(error))
        case let error as any HTTPResponseError where error.status == .notFound:
            return HTTPResponses.notFound("no route for \(request.method) \(request.uri.path)")
        case let error as any HTTPResponseError:
            let reason = error.status.reasonPhrase
            return HTTPResponses.problem(Int(error.status.code), reason, (error as? HTTPError)?.body ?? reason)
        default:
            logger.error("request failed: \(error)")
            return HTTPResponses.problem(500, "Internal error", "the request failed; the daemon's log says why")
        }
    }
}
