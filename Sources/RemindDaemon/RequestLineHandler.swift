import NIOCore

/// Answers `400` at once to a connection whose first request line has no HTTP version.
///
/// `GET /` with nothing after the path is an HTTP/0.9 request. NIO's parser (llhttp) takes it
/// as such and waits for more, so without this the client would wait for the header deadline
/// to end the connection, and learn nothing. remindd speaks HTTP/1.1 only: the line is refused
/// as soon as its end arrives. It sits in front of the HTTP decoder and removes itself once the
/// first line is seen to carry a version; a later request on a kept-alive connection is left to
/// the header deadline (``ConnectionDeadlines``).
final class RequestLineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let refusal = Array(
        ("HTTP/1.1 400 Bad Request\r\nServer: remindd\r\nConnection: close\r\n"
            + "Content-Type: application/problem+json\r\nContent-Length: \(RequestLineHandler.problem.utf8.count)\r\n\r\n"
            + RequestLineHandler.problem).utf8)
    static let problem =
        #"{"type":"about:blank","title":"Bad Request","status":400,"#
        + #""detail":"the request line has no HTTP version; remindd speaks HTTP/1.1"}"#

    private var check = RequestLineCheck()
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Whatever follows a refused line is dropped: the connection is closing.
        guard !refused else { return }
        let buffer = unwrapInboundIn(data)
        switch check.consume(buffer.readableBytesView) {
        case .undecided:
            context.fireChannelRead(data)
        case .hasVersion:
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        case .noVersion:
            refused = true
            let response = context.channel.allocator.buffer(bytes: Self.refusal)
            context.writeAndFlush(wrapOutboundOut(response)).whenComplete { _ in context.close(promise: nil) }
        }
    }
}

/// Whether the first request line carries an HTTP version, decided from the bytes as they come.
struct RequestLineCheck: Sendable {
    enum Verdict: Equatable, Sendable {
        case undecided
        case hasVersion
        case noVersion
    }

    /// Beyond this the line is the decoder's to refuse (its field size limit).
    static let maximumLength = 8 * 1024
    private var line: [UInt8] = []
    private var verdict = Verdict.undecided

    mutating func consume(_ bytes: some Collection<UInt8>) -> Verdict {
        guard verdict == .undecided else { return verdict }
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                line.append(byte)
                if line.count > Self.maximumLength {
                    verdict = .hasVersion
                    return verdict
                }
                continue
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            // Empty lines before the request line are allowed (RFC 9112 §2.2).
            guard !line.isEmpty else { continue }
            let lastWord = line.split(separator: UInt8(ascii: " ")).last ?? []
            verdict =
                lastWord.starts(with: Array("HTTP/".utf8)) && line.contains(UInt8(ascii: " "))
                ? .hasVersion : .noVersion
            return verdict
        }
        return verdict
    }
}
