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
    /// Stores a report that is not a repeat and returns the user's status (`APIResponder.store`).
    let store: @Sendable (PermissionReport, UserID, Date) async throws -> [UInt8]?

    init(
        answering: any RepeatAnswering, access: AccessPolicy, wallClock: @escaping @Sendable () -> Date,
        metrics: DaemonMetrics, store: @escaping @Sendable (PermissionReport, UserID, Date) async throws -> [UInt8]?
    ) {
        self.answering = answering
        self.access = access
        self.wallClock = wallClock
        self.metrics = metrics
        self.store = store
    }

    /// The fast path of a responder's listener; nil when its store keeps no repeat rows.
    init?(_ responder: APIResponder) {
        guard let answering = responder.runtime.store.repeatAnswering else { return nil }
        self.init(
            answering: answering, access: responder.access, wallClock: responder.runtime.wallClock,
            metrics: responder.runtime.metrics,
            store: { report, userID, receivedAt in
                try await responder.store(report, for: userID, receivedAt: receivedAt)
            })
    }
}

/// Answers `POST /v1/users/{id}/reports` itself (ARCHITECTURE.md "The report path"). A report that only repeats the
/// user's state is answered on the connection's event loop: an HTTP parse, a hash lookup and a
/// canned answer, with no task, actor or thread hop. A valid report that changes something is
/// stored by a task of its own (the route's work, `APIResponder.store`) and answered from the
/// event loop: Hummingbird's router, its async channel and a second decode of the body were a
/// fifth of a change's CPU. Everything else (a bad body, a peer that may not change state, a
/// request it cannot judge, a store error) goes on to Hummingbird unchanged, which answers
/// exactly as before; a failed write changes nothing, so Hummingbird's attempt after it is the
/// first that counts.
///
/// It sits after ``ConnectionDeadlineHandler``, so the deadlines see its answers like any
/// other. While a request it passed on is unanswered it passes every request on, and while it
/// stores a change it reads nothing more from the socket and holds what was read already, so
/// answers keep the order of the requests on a pipelined connection.
final class RepeatReportHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case passing
        case collecting(HTTPRequestHead, UserID, ByteBuffer?)
        /// A change is being stored; what arrives meanwhile waits in `held`.
        case storing
    }

    private let fastPath: RepeatFastPath
    private var state = State.idle
    private var held: [HTTPServerRequestPart] = []
    /// A `read` asked for while storing, passed on once the answer is written.
    private var readHeld = false
    /// A graceful shutdown's request to wind the connection down, held while a change is being
    /// stored (Hummingbird sees no request in flight and would close the connection before the
    /// answer), passed on once it is written.
    private var quiesceHeld: Any?
    /// Requests passed on and not yet answered.
    private var forwarded = 0
    /// The peer's SO_PEERCRED on a Unix socket, read when the connection was set up.
    private let peer: PeerCredentials?
    private var date = (second: 0, text: "")

    init(_ fastPath: RepeatFastPath, peer: PeerCredentials?) {
        self.fastPath = fastPath
        self.peer = peer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if isStoring {
            held.append(unwrapInboundIn(data))
            return
        }
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
            let receivedAt = fastPath.wallClock()
            guard trailers == nil, let body,
                let report = try? PermissionReport(json: body.readableBytesView, receivedAt: receivedAt)
            else {
                passOn(head, body, context: context)
                context.fireChannelRead(data)
                return
            }
            if let status = fastPath.answering.answerRepeat(report, of: userID, receivedAt: receivedAt) {
                fastPath.metrics.recordReport(changed: false)
                respond(status, version: head.version, context: context)
            } else {
                store(report, of: userID, receivedAt: receivedAt, request: (head, body), context: context)
            }
        case (.passing, .end):
            state = .idle
            context.fireChannelRead(data)
        default:
            context.fireChannelRead(data)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if isStoring, event is ChannelShouldQuiesceEvent {
            quiesceHeld = event
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func read(context: ChannelHandlerContext) {
        if isStoring {
            readHeld = true
        } else {
            context.read()
        }
    }

    /// Stores a change off the event loop and answers it there.
    private func store(
        _ report: PermissionReport, of userID: UserID, receivedAt: Date, request: (HTTPRequestHead, ByteBuffer),
        context: ChannelHandlerContext
    ) {
        state = .storing
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        let store = fastPath.store
        Task {
            let result: Result<[UInt8]?, any Error>
            do {
                result = .success(try await store(report, userID, receivedAt))
            } catch {
                result = .failure(error)
            }
            loop.execute {
                let (handler, context) = bound.value
                handler.stored(result, request: request, context: context)
            }
        }
    }

    /// Answers a stored change, or lets Hummingbird answer the request (a store error, which
    /// changed nothing), then takes up what arrived meanwhile.
    private func stored(
        _ result: Result<[UInt8]?, any Error>, request: (head: HTTPRequestHead, body: ByteBuffer),
        context: ChannelHandlerContext
    ) {
        state = .idle
        // The peer went away meanwhile: nothing to answer, and nothing after it to take up.
        guard context.channel.isActive else {
            held = []
            return
        }
        switch result {
        case .success(let status?):
            respond(status, version: request.head.version, context: context)
        case .success(nil):
            respond(
                APIResponder.noState.jsonBytes, status: .internalServerError, contentType: Problem.mediaType,
                version: request.head.version, context: context)
        case .failure:
            passOn(request.head, request.body, context: context)
            context.fireChannelRead(wrapInboundOut(.end(nil)))
        }
        let parts = held
        held = []
        // A part may start another change: the rest are held again, in order.
        for part in parts { channelRead(context: context, data: wrapInboundOut(part)) }
        // Hummingbird's async channel hands reads on at the end of a read burst: this is one.
        context.fireChannelReadComplete()
        if let event = quiesceHeld, !isStoring {
            quiesceHeld = nil
            context.fireUserInboundEventTriggered(event)
        }
        if readHeld, !isStoring {
            readHeld = false
            context.read()
        }
    }

    private var isStoring: Bool {
        if case .storing = state { true } else { false }
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
            return fastPath.access.admitsReport(authorization: head.headers.first(name: "authorization"))
        case .unixSocket:
            return peer.map(fastPath.access.admits) ?? false
        }
    }

    private func respond(
        _ body: [UInt8], status: HTTPResponseStatus = .ok, contentType: String = "application/json",
        version: HTTPVersion, context: ChannelHandlerContext
    ) {
        // The headers Hummingbird's answer carries.
        let headers = HTTPHeaders([
            ("Content-Type", contentType), ("Content-Length", String(body.count)),
            ("Date", httpDate()), ("Server", "remindd"),
        ])
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        context.write(
            wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
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
