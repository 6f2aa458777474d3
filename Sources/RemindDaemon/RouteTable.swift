import HTTPTypes
import Hummingbird
import NIOCore

/// The router's routes as they are declared, remembered by path so that any other method on a
/// known path is answered `405` with an `Allow` header naming the declared ones (Hummingbird's
/// router answers such a request 404). Route collections add their routes through it like
/// through any router; ``answerOtherMethods()`` then adds the middleware that answers the 405s.
final class RouteTable<Context: RequestContext>: RouterMethods {
    private let router: Router<Context>
    /// The methods declared on each path, in the order they were declared.
    private var declared: [(path: RouterPath, methods: [HTTPRequest.Method])] = []

    init(_ router: Router<Context>) {
        self.router = router
    }

    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        router.on(path, method: method, responder: responder)
        if let index = declared.firstIndex(where: { $0.path.description == path.description }) {
            declared[index].methods.append(method)
        } else {
            declared.append((path, [method]))
        }
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }

    /// Adds the middleware that turns the router's 404 for a declared path into a 405. It is a
    /// router middleware, so it also wraps the router's answer to an unknown route, and it is
    /// added last: innermost, after the authenticator (a stranger on TCP still gets a 401).
    func answerOtherMethods() {
        // The declared paths alone, each under one method: where the request's path is found
        // here, the path exists and only its method is wrong.
        let paths = Router(context: Context.self)
        for (path, methods) in declared {
            let allow = methods.map(\.rawValue).joined(separator: ", ")
            paths.get(path) { _, _ in Response(status: .methodNotAllowed, headers: [.allow: allow]) }
        }
        router.add(middleware: MethodNotAllowedMiddleware(paths: paths.buildResponder()))
    }
}

/// Answers a request the router found no route for with a 405 problem naming the methods its
/// path takes, when some route has that path (``RouteTable``).
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let paths: RouterResponder<Context>

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError where error.status == .notFound {
            var head = request.head
            head.method = .get
            let probe = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
            guard let found = try? await paths.respond(to: probe, context: context),
                let allow = found.headers[.allow],
                !allow.split(separator: ",").contains(where: {
                    $0.trimmingCharacters(in: .whitespaces) == request.method.rawValue
                })
            else { throw error }
            var response = HTTPResponses.problem(
                405, "Method not allowed", "\(request.method) is not allowed on \(request.uri.path); use \(allow)")
            response.headers[.allow] = allow
            return response
        }
    }
}
