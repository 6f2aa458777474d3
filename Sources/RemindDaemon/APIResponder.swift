import Foundation
import Hummingbird
import Logging
import NIOCore
import RemindAPI
import RemindCore
import RemindStore

/// The HTTP API (docs/api.md) and the console's files as one responder.
///
/// Routing is done here on the raw path rather than by Hummingbird's router: a user ID is a
/// percent-encoded path segment, and `a%2Fb` must reach the ID check (and get its 400), not be
/// decoded into two segments first; and every miss must still answer problem+json.
public struct APIResponder: HTTPResponder {
    public typealias Context = RemindRequestContext

    let runtime: DaemonRuntime
    let access: AccessPolicy
    /// The report endpoint of this responder's runtime, for the route and the fast path.
    let reports: ReportEndpoint
    /// `POST /v1/reports`, built on `reports`.
    let bulkReports: BulkReportEndpoint

    public init(runtime: DaemonRuntime, access: AccessPolicy) {
        self.runtime = runtime
        self.access = access
        reports = ReportEndpoint(
            repeats: runtime.store.repeatAnswering, metrics: runtime.metrics,
            storeChange: { report, userID, receivedAt in
                try await Self.store(report, for: userID, receivedAt: receivedAt, runtime: runtime)
            },
            noteFailure: { runtime.noteStoreFailure($0) })
        bulkReports = BulkReportEndpoint(
            reports: reports,
            storeBatch: { accepted, receivedAt in
                try await Self.storeBatch(accepted, receivedAt: receivedAt, runtime: runtime)
            })
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        let segments = Array(request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        // The console's pages and assets hold no data: they are served without credentials, and
        // every figure they show comes from an API call made with the caller's own.
        if segments.first == "ui", runtime.configuration.console.enabled {
            return console(request, segments: segments.dropFirst())
        }
        let isWhoAmI = segments.count == 2 && segments[0] == "v1" && segments[1] == "whoami"
        let caller: Caller?
        switch access.authorize(request, segments: segments, context: context, identify: isWhoAmI) {
        case .success(let known): caller = known
        case .failure(let problem): return HTTPResponses.problem(problem)
        }
        do {
            return try await route(request, segments: segments, caller: caller)
        } catch let error as StoreError {
            return storeFailure(error)
        } catch let error as ValidationError {
            return HTTPResponses.badRequest(error)
        }
    }

    private func route(_ request: Request, segments: [Substring], caller: Caller?) async throws -> Response {
        let actor = caller?.name ?? "unknown"
        // The report route, recognised as the fast path recognises it.
        if request.method == .post, let userID = try ReportEndpoint.userID(reportSegments: segments) {
            return try await postReport(request, userID: userID)
        }
        switch (segments.first, segments.dropFirst().first) {
        case ("v1", "users") where segments.count == 2:
            guard request.method == .get else { return methodNotAllowed(request, allowed: "GET") }
            return try await getUsers(request)
        case ("v1", "users") where segments.count == 3 || segments.count == 4:
            let userID = try UserID(pathSegment: segments[2])
            let action = segments.count == 4 ? segments[3] : nil
            switch (request.method, action) {
            case (.get, nil): return try await getUser(userID)
            case (.delete, nil): return try await deleteUser(userID, actor: actor)
            case (.get, "history"): return try await getHistory(request, userID: userID)
            case (.get, "explain"): return try await getExplanation(userID)
            case (_, nil): return methodNotAllowed(request, allowed: "GET, DELETE")
            case (_, "reports"): return methodNotAllowed(request, allowed: "POST")
            case (_, "history"), (_, "explain"): return methodNotAllowed(request, allowed: "GET")
            default: break
            }
        case ("v1", "reports") where segments.count == 2:
            guard request.method == .post else { return methodNotAllowed(request, allowed: "POST") }
            return try await postBulkReports(request)
        case ("v1", "reminders") where segments.count == 2:
            guard request.method == .get else { return methodNotAllowed(request, allowed: "GET") }
            return try await getReminders(request)
        case ("v1", "stats") where segments.count == 2:
            guard request.method == .get else { return methodNotAllowed(request, allowed: "GET") }
            return try await getStats(request)
        case ("v1", "status") where segments.count == 2:
            guard request.method == .get else { return methodNotAllowed(request, allowed: "GET") }
            return await getStatus()
        case ("v1", "config") where segments.count == 2:
            guard request.method == .get else { return methodNotAllowed(request, allowed: "GET") }
            return getConfiguration()
        case ("v1", "reload") where segments.count == 2:
            guard request.method == .post else { return methodNotAllowed(request, allowed: "POST") }
            return await postReload(actor: actor)
        case ("v1", "dead-letters") where segments.count == 2:
            guard request.method == .get else { return methodNotAllowed(request, allowed: "GET") }
            return await getDeadLetters()
        case ("v1", "dead-letters") where segments.count == 3 && segments[2] == "replay":
            guard request.method == .post else { return methodNotAllowed(request, allowed: "POST") }
            return try await postReplay(request, actor: actor)
        case ("v1", "whoami") where segments.count == 2:
            guard request.method == .get else { return methodNotAllowed(request, allowed: "GET") }
            guard let caller else { return HTTPResponses.problem(403, "Forbidden", "the caller is unknown") }
            return HTTPResponses.json(caller.jsonBytes)
        case ("metrics", nil) where segments.count == 1:
            guard request.method == .get else { return methodNotAllowed(request, allowed: "GET") }
            return await getMetrics()
        default:
            break
        }
        return HTTPResponses.notFound("no route for \(request.method) \(request.uri.path)")
    }

    private func methodNotAllowed(_ request: Request, allowed: String) -> Response {
        var response = HTTPResponses.problem(
            405, "Method not allowed", "\(request.method) is not allowed on \(request.uri.path); use \(allowed)")
        response.headers[.allow] = allowed
        return response
    }

    private func storeFailure(_ error: StoreError) -> Response {
        runtime.noteStoreFailure(error)
        return HTTPResponses.answer(.storeFailure(error))
    }

    enum Body {
        case success(ByteBuffer)
        /// The body could not be taken: answer with this response.
        case failure(Response)
    }

    /// Reads the body, at most `limit` bytes (64 KiB unless told); a 413 response when larger.
    func body(of request: Request, limit: Int = APIPaths.maximumBodySize) async throws -> Body {
        // Made only when needed: every report passes here.
        func tooLarge() -> Response {
            HTTPResponses.problem(413, "Payload too large", "the body must be at most \(limit) bytes")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            return .failure(tooLarge())
        }
        var request = request
        do {
            return .success(try await request.collectBody(upTo: limit))
        } catch is NIOTooManyBytesError {
            return .failure(tooLarge())
        }
    }
}
