import HTTPTypes
import Hummingbird

/// The router's routes as they are declared, remembered by path so that every other method on
/// a known path is answered `405` with an `Allow` header naming the declared ones (Hummingbird's
/// router answers such a request 404). Route collections add their routes through it like
/// through any router; ``answerOtherMethods()`` then adds the 405s.
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

    /// The methods a 405 is answered for; HEAD is answered wherever GET is (the router's own
    /// HEAD endpoints), and any other method is a 404.
    private static var answered: [HTTPRequest.Method] { [.get, .head, .post, .put, .patch, .delete, .options] }

    /// Adds a 405 responder for every method a declared path does not take.
    func answerOtherMethods() {
        for (path, methods) in declared {
            let allow = methods.map(\.rawValue).joined(separator: ", ")
            for method in Self.answered where !methods.contains(method) && !(method == .head && methods.contains(.get))
            {
                router.on(
                    path, method: method,
                    responder: CallbackResponder { request, _ in
                        var response = HTTPResponses.problem(
                            405, "Method not allowed",
                            "\(request.method) is not allowed on \(request.uri.path); use \(allow)")
                        response.headers[.allow] = allow
                        return response
                    })
            }
        }
    }
}
