import Hummingbird
import RemindCore

/// The HTTP API (docs/api.md) and the console's files: one Hummingbird router per listener,
/// composed here from a route collection per area.
///
/// A request passes, in order: ``ProblemMiddleware`` (every error becomes problem+json), the
/// console's routes (no credentials), ``CallerAuthenticator`` (the caller into the context; 401
/// on TCP without a valid token, whatever the route), ``EmptySegmentMiddleware``, then the
/// route's scope group (``ScopedRoutes``) and its handler. A known path asked with a method it
/// does not take is a 405 naming the methods it does (``RouteTable``); an unknown path a 404.
///
/// Adding an endpoint is a line in its collection's `register` plus its handler.
public struct APIRoutes: Sendable {
    typealias Context = RemindRequestContext

    let runtime: DaemonRuntime
    let reportRoutes: ReportRoutes

    public init(runtime: DaemonRuntime) {
        self.runtime = runtime
        reportRoutes = ReportRoutes(runtime: runtime)
    }

    /// The report endpoint, for the report fast path in front of the router.
    var reports: ReportEndpoint { reportRoutes.reports }

    /// The router of a listener whose callers are checked by `access`.
    public func router(access: AccessPolicy) -> Router<RemindRequestContext> {
        let router = Router(context: Context.self, options: .autoGenerateHeadEndpoints)
        let runtime = self.runtime
        let problems = ProblemMiddleware(noteStoreFailure: { runtime.noteStoreFailure($0) })
        let table = RouteTable(router)
        table.add(middleware: problems)
        ConsoleRoutes(runtime: runtime, problems: problems).register(on: table)
        table.add(middleware: CallerAuthenticator(access: access))
        table.add(middleware: EmptySegmentMiddleware())
        let routes = ScopedRoutes(on: table, access: access)
        reportRoutes.register(on: routes)
        UserRoutes(runtime: runtime).register(on: routes)
        OperationRoutes(runtime: runtime).register(on: routes)
        table.answerOtherMethods()
        return router
    }
}
