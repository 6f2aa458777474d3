import HTTPTypes
import Hummingbird

/// `GET /ui/…`: the web console's files (docs/console.md), served by Hummingbird's
/// `FileMiddleware` from the embedded ``ConsoleAssets``. The pages and assets hold no data:
/// they are served without credentials, and every figure they show comes from an API call made
/// with the caller's own, so these routes are added before the router's authenticator.
struct ConsoleRoutes {
    typealias Context = RemindRequestContext

    let runtime: DaemonRuntime
    let problems: ProblemMiddleware

    /// Whether a request path is one of the console's.
    static func serves(_ path: String) -> Bool {
        path == "/ui" || path.hasPrefix("/ui/")
    }

    func register(on routes: some RouterMethods<Context>) {
        let group = routes.group("ui")
            .add(middleware: ConsoleMiddleware(runtime: runtime, problems: problems))
            .add(
                middleware: FileMiddleware(
                    fileProvider: ConsoleAssets.embedded, urlBasePath: "/ui",
                    // Revalidated every time, so a new binary's console is never mixed with a cached one.
                    cacheControl: CacheControl([(MediaType(type: .any), [.noCache])]), searchForIndexHtml: true
                ).withAdditionalMediaTypes(forFileExtensions: ConsoleAssets.mediaTypes))
        // The file middleware answers what the router would not find; HEAD comes with GET.
        group.get(use: Self.noFile)
        group.get("**", use: Self.noFile)
    }

    @Sendable private static func noFile(_ request: Request, context: Context) throws -> Response {
        throw HTTPError(.notFound)
    }
}

/// The console's security headers on every answer under `/ui` (its problems too), `/ui`
/// redirected to `/ui/`, and nothing at all while `console.enabled` is false.
struct ConsoleMiddleware: RouterMiddleware {
    typealias Context = RemindRequestContext

    private static let referrerPolicy = HTTPField.Name("Referrer-Policy") ?? .contentSecurityPolicy

    /// No script, style or frame from anywhere but the daemon itself (so no inline script
    /// either), no type sniffing, no referrer leaving it.
    static let headers: HTTPFields = [
        .contentSecurityPolicy: "default-src 'self'; frame-ancestors 'none'",
        .xContentTypeOptions: "nosniff",
        referrerPolicy: "no-referrer",
    ]

    let runtime: DaemonRuntime
    let problems: ProblemMiddleware

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // Read per request: a reload may turn the console off or on.
        guard runtime.configuration.console.enabled else { throw HTTPError(.notFound) }
        var response: Response
        if request.uri.path == "/ui" {
            response = Response(status: .permanentRedirect, headers: [.location: "/ui/"])
        } else {
            do {
                response = try await next(request, context)
            } catch {
                response = problems.response(to: error, request: request, logger: context.logger)
            }
        }
        response.headers.append(contentsOf: Self.headers)
        return response
    }
}
