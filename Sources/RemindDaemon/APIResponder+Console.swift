import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension APIResponder {
    private static let referrerPolicy = HTTPField.Name("Referrer-Policy") ?? .contentSecurityPolicy

    /// The headers of every console answer: no script, style or frame from anywhere but the
    /// daemon itself (so no inline script either), no type sniffing, no referrer leaving it.
    static let consoleHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'self'; frame-ancestors 'none'",
        .xContentTypeOptions: "nosniff",
        referrerPolicy: "no-referrer",
    ]

    /// `GET /ui/…`: the console's files. `/ui` redirects to `/ui/`, which is `index.html`.
    func console(_ request: Request, segments: ArraySlice<Substring>) -> Response {
        var response = consoleFile(request, segments: segments)
        response.headers.append(contentsOf: Self.consoleHeaders)
        return response
    }

    private func consoleFile(_ request: Request, segments: ArraySlice<Substring>) -> Response {
        guard request.method == .get || request.method == .head else {
            var response = HTTPResponses.problem(405, "Method not allowed", "the console's files are read with GET")
            // HEAD is served as well, as for any GET resource; Allow names what the API documents.
            response.headers[.allow] = "GET"
            return response
        }
        guard let first = segments.first else {
            return Response(status: .permanentRedirect, headers: [.location: "/ui/"])
        }
        let name = first.isEmpty ? "index.html" : String(first)
        guard segments.count == 1, let asset = ConsoleAssets.embedded[name] else {
            return HTTPResponses.notFound("the console has no file \(request.uri.path)")
        }
        var headers: HTTPFields = [
            .eTag: asset.etag,
            // Revalidated every time, so a new binary's console is never mixed with a cached one.
            .cacheControl: "no-cache",
        ]
        if let presented = request.headers[.ifNoneMatch],
            presented.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        // A HEAD answer has no body but says how long the GET's is.
        if request.method == .head { headers[.contentLength] = String(asset.body.readableBytes) }
        return Response(
            status: .ok, headers: headers,
            body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: asset.body))
    }
}
