import Foundation
import NIOCore
import NIOHTTP1
import RemindAPI
import RemindCore
import RemindStore

#if canImport(Glibc)
    import Glibc
#endif

/// What the event loops need to answer a repeated report themselves: the store's repeat rows,
/// the listener's access policy, the clock and the metrics.
struct RepeatFastPath: Sendable {
    let answering: any RepeatAnswering
    let access: AccessPolicy
    let wallClock: @Sendable () -> Date
    let metrics: DaemonMetrics

    /// The fast path of a responder's listener; nil when its store keeps no repeat rows.
    init?(_ responder: APIResponder) {
        guard let answering = responder.runtime.store.repeatAnswering else { return nil }
        self.answering = answering
        access = responder.access
        wallClock = responder.runtime.wallClock
        metrics = responder.runtime.metrics
    }
}

/// Answers `POST /v1/users/{id}/reports` on the connection's event loop when the report only
/// repeats the user's state (issue 17): an HTTP parse, a hash lookup and a canned answer, with
/// no task, actor or thread hop. Everything else (a change, a new user, a bad body, a peer that
/// may not change state, a request it cannot judge) goes on to Hummingbird unchanged, which
/// answers exactly as before.
///
/// It sits after ``ConnectionDeadlineHandler``, so the deadlines see its answers like any
/// other. While a request it passed on is unanswered it passes every request on, so answers
/// keep the order of the requests on a pipelined connection.
final class RepeatReportHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case passing
        case collecting(HTTPRequestHead, UserID, ByteBuffer?)
    }

    private let fastPath: RepeatFastPath
    private var state = State.idle
    /// Requests passed on and not yet answered.
    private var forwarded = 0
    /// The peer's SO_PEERCRED on a Unix socket, asked once.
    private var credentials: PeerCredentials?
    private var askedCredentials = false
    private var date = (second: 0, text: "")

    init(_ fastPath: RepeatFastPath) {
        self.fastPath = fastPath
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (state, unwrapInboundIn(data)) {
        case (.idle, .head(let head)):
            if forwarded == 0, let userID = candidate(head, context: context) {
                state = .collecting(head, userID, nil)
                return
            }
            state = .passing
            forwarded += 1
            context.fireChannelRead(data)
        case (.collecting(let head, let userID, var body), .body(var chunk)):
            if body == nil {
                body = chunk
            } else {
                body!.writeBuffer(&chunk)
            }
            if body!.readableBytes > APIPaths.maximumBodySize {
                // Hummingbird answers 413.
                passOn(head, body, context: context)
                state = .passing
            } else {
                state = .collecting(head, userID, body)
            }
        case (.collecting(let head, let userID, let body), .end(let trailers)):
            state = .idle
            if trailers == nil, let answer = answer(userID, body: body) {
                respond(answer, version: head.version, context: context)
            } else {
                passOn(head, body, context: context)
                context.fireChannelRead(data)
            }
        case (.passing, .end):
            state = .idle
            context.fireChannelRead(data)
        default:
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), forwarded > 0 { forwarded -= 1 }
        context.write(data, promise: promise)
    }

    private func passOn(_ head: HTTPRequestHead, _ body: ByteBuffer?, context: ChannelHandlerContext) {
        forwarded += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
        if let body { context.fireChannelRead(wrapInboundOut(.body(body))) }
    }

    /// The user of a report this handler may answer: a keep-alive HTTP/1.1 POST to the report
    /// route with a valid ID, from a peer allowed to change state.
    private func candidate(_ head: HTTPRequestHead, context: ChannelHandlerContext) -> UserID? {
        guard head.method == .POST, head.version == .http1_1, head.isKeepAlive,
            !head.headers.contains(name: "expect")
        else { return nil }
        let uri = head.uri.utf8
        let prefix = "/v1/users/".utf8
        let suffix = "/reports".utf8
        guard uri.count > prefix.count + suffix.count, uri.starts(with: prefix),
            uri.reversed().starts(with: suffix.reversed())
        else { return nil }
        let segment = head.uri.dropFirst(prefix.count).dropLast(suffix.count)
        guard !segment.contains("/"), !segment.contains("?"), let userID = try? UserID(pathSegment: segment) else {
            return nil
        }
        if let length = head.headers.first(name: "content-length").flatMap(Int.init),
            length > APIPaths.maximumBodySize
        {
            return nil
        }
        return mayChange(head, context: context) ? userID : nil
    }

    private func mayChange(_ head: HTTPRequestHead, context: ChannelHandlerContext) -> Bool {
        switch fastPath.access {
        case .open:
            return true
        case .bearer:
            return fastPath.access.admitsBearer(head.headers.first(name: "authorization"))
        case .unixSocket:
            if !askedCredentials {
                askedCredentials = true
                // On the channel's event loop the answer is there at once.
                let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
                PeerCredentials.future(context.channel).whenSuccess { handler.value.credentials = $0 }
            }
            return credentials.map(fastPath.access.admits) ?? false
        }
    }

    private func answer(_ userID: UserID, body: ByteBuffer?) -> [UInt8]? {
        guard let body else { return nil }
        let receivedAt = fastPath.wallClock()
        guard let report = try? PermissionReport(json: body.readableBytesView, receivedAt: receivedAt),
            let status = fastPath.answering.answerRepeat(report, of: userID, receivedAt: receivedAt)
        else { return nil }
        fastPath.metrics.recordReport(changed: false)
        return status
    }

    private func respond(_ status: [UInt8], version: HTTPVersion, context: ChannelHandlerContext) {
        // The headers Hummingbird's answer carries.
        let headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("Content-Length", String(status.count)),
            ("Date", httpDate()), ("Server", "remindd"),
        ])
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .ok, headers: headers))), promise: nil)
        context.write(
            wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: status)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// `Date` as RFC 9110 writes it, made once a second.
    private func httpDate() -> String {
        var now = time(nil)
        if Int(now) == date.second { return date.text }
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [Int8](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        date = (Int(now), String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        return date.text
    }
}
