import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension DaemonHTTPClient {
    /// Sends a request whose successful answer is a stream: each part of its body goes to
    /// `onBody` as it arrives (nothing of the stream is held here), on the client's thread,
    /// before the next part is read, so a slow consumer slows the daemon rather than filling
    /// memory. A non-2xx answer is collected whole and returned with an empty body streamed.
    ///
    /// The stream has no deadline: it lasts as long as the daemon has users to send. A daemon
    /// that ends it early (a store failure midway) closes the connection without the last
    /// chunk, which is thrown as a protocol error, never taken for a complete answer.
    public func stream(
        _ method: String, _ path: String, headers: [String: String] = [:],
        onBody: @escaping @Sendable ([UInt8]) -> Void
    ) throws(ClientError) -> HTTPReply {
        let request = try makeRequest(method, path, body: nil, headers: headers)
        let delegate = StreamDelegate(onBody: onBody)
        do {
            return try Self.shared.execute(request: request, delegate: delegate, deadline: nil).wait()
        } catch {
            throw classify(error)
        }
    }
}

/// Hands a 2xx answer's body on part by part, and keeps an error answer's body.
private final class StreamDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    // Touched only on the connection's event loop, one callback after another.
    private var status = 0
    private var headers: [String: String] = [:]
    private var errorBody: [UInt8] = []
    private let onBody: @Sendable ([UInt8]) -> Void

    init(onBody: @escaping @Sendable ([UInt8]) -> Void) {
        self.onBody = onBody
    }

    func didReceiveHead(task: HTTPClient.Task<HTTPReply>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        status = Int(head.status.code)
        for (name, value) in head.headers { headers[name.lowercased()] = value }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<HTTPReply>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        if (200..<300).contains(status) {
            onBody(Array(buffer.readableBytesView))
        } else {
            errorBody += buffer.readableBytesView
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<HTTPReply>) throws -> HTTPReply {
        HTTPReply(status: status, headers: headers, body: errorBody)
    }
}
