import Hummingbird
import NIOCore
import RemindAPI
import RemindCore

/// Building the API's responses: compact JSON, and RFC 9457 problems for every error.
enum HTTPResponses {
    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(status: HTTPResponse.Status = .ok, _ build: (inout JSONWriter) -> Void) -> Response {
        var writer = JSONWriter()
        build(&writer)
        return json(writer.bytes, status: status)
    }

    static func problem(_ problem: Problem) -> Response {
        var headers: HTTPFields = [.contentType: Problem.mediaType]
        if problem.status == 401 { headers[.wwwAuthenticate] = "Bearer" }
        return Response(
            status: HTTPResponse.Status(code: problem.status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: problem.jsonBytes)))
    }

    static func problem(_ status: Int, _ title: String, _ detail: String, field: String? = nil) -> Response {
        problem(Problem(status: status, title: title, detail: detail, field: field))
    }

    static func badRequest(_ error: ValidationError) -> Response {
        problem(badRequestProblem(error))
    }

    static func badRequestProblem(_ error: ValidationError) -> Problem {
        Problem(
            status: error.status,
            title: error.status == 422 ? "Unprocessable request" : error.status == 404 ? "Not found" : "Invalid request",
            detail: error.field.isEmpty ? error.reason : "\(error.field) \(error.reason)",
            field: error.field.isEmpty ? nil : error.field)
    }

    /// A report's answer (``ReportAnswer``) as the router sends it.
    static func answer(_ answer: ReportAnswer) -> Response {
        var headers: HTTPFields = [.contentType: answer.contentType]
        if let retryAfter = answer.retryAfter { headers[.retryAfter] = retryAfter }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// The 413 refusing a body of more than `limit` bytes.
    static func tooLargeProblem(limit: Int) -> Problem {
        Problem(status: 413, title: "Payload too large", detail: "the body must be at most \(limit) bytes")
    }

    static func notFound(_ detail: String) -> Response {
        problem(404, "Not found", detail)
    }
}
