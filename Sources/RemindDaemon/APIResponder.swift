import Hummingbird

/// The API of one listener as one responder: its router (``APIRoutes``) for the listener's
/// access policy, and the report endpoint the listener's fast path shares with the router.
/// In-process tests serve it through Hummingbird's `Application`.
public struct APIResponder: HTTPResponder {
    public typealias Context = RemindRequestContext

    let runtime: DaemonRuntime
    let access: AccessPolicy
    /// The report endpoint of the router's report route, for the fast path.
    let reports: ReportEndpoint
    private let router: RouterResponder<RemindRequestContext>

    public init(runtime: DaemonRuntime, access: AccessPolicy) {
        let routes = APIRoutes(runtime: runtime)
        self.runtime = runtime
        self.access = access
        reports = routes.reports
        router = routes.router(access: access).buildResponder()
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        try await router.respond(to: request, context: context)
    }
}
