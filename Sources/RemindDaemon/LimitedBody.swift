import Hummingbird
import NIOCore
import RemindAPI

/// Reading a request's body within a limit, for every route that takes one.
enum LimitedBody {
    /// The body, at most `limit` bytes (64 KiB unless told); throws the 413 problem when larger,
    /// before reading it when `Content-Length` says so.
    static func collect(_ request: Request, limit: Int = APIPaths.maximumBodySize) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw HTTPResponses.tooLargeProblem(limit: limit)
        }
        var request = request
        do {
            return try await request.collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw HTTPResponses.tooLargeProblem(limit: limit)
        }
    }
}
