import Hummingbird
import RemindConfig

/// Where a route collection declares its routes: one router group per access scope, each
/// behind its ``RequireScope``. A route is declared on the group of the scope it needs —
/// `routes.read.get(…)`, `routes.report.post(…)`, `routes.admin.delete(…)` — and that is the
/// whole of its access rule.
struct ScopedRoutes {
    typealias Context = RemindRequestContext

    let read: RouterGroup<Context>
    let report: RouterGroup<Context>
    let admin: RouterGroup<Context>

    init(on routes: some RouterMethods<Context>, access: AccessPolicy) {
        read = routes.group().add(middleware: RequireScope(scope: .read, access: access))
        report = routes.group().add(middleware: RequireScope(scope: ReportRoutes.scope, access: access))
        admin = routes.group().add(middleware: RequireScope(scope: .admin, access: access))
    }
}
