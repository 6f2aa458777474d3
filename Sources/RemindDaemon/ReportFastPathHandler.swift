import Foundation
import NIOCore
import NIOHTTP1
import RemindAPI
import RemindCore

/// Answers `POST /v1/users/{id}/reports` on the connection's event loop, through the same
/// ``ReportEndpoint`` as the router: a report that only repeats the user's state is answered
/// there and then (an HTTP parse, a hash lookup and a canned answer, with no task, actor or
/// thread hop); a change is stored by a task of its own and answered from the event loop,
/// without Hummingbird's router, async channel and second decode. Everything else goes on to
/// Hummingbird unchanged. The decisions are ``ReportFastPath``'s; this handler does the I/O.
///
/// It sits after ``ConnectionDeadlineHandler``, so the deadlines see its answers like any
/// other.
final class ReportFastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let endpoint: ReportEndpoint
    private let access: AccessPolicy
    private let wallClock: @Sendable () -> Date
    /// The peer's SO_PEERCRED on a Unix socket, read when the connection was set up.
    private let peer: PeerCredentials?
    private var machine = ReportFastPath(maximumBodySize: APIPaths.maximumBodySize)

    init(
        endpoint: ReportEndpoint, access: AccessPolicy, peer: PeerCredentials?,
        wallClock: @escaping @Sendable () -> Date
    ) {
        self.endpoint = endpoint
        self.access = access
        self.peer = peer
        self.wallClock = wallClock
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        perform(machine.received(unwrapInboundIn(data), classify: classify), context: context)
    }

    private func perform(_ action: ReportFastPath.Action, context: ChannelHandlerContext) {
        switch action {
        case .nothing:
            break
        case .passOn(let parts):
            for part in parts { context.fireChannelRead(wrapInboundOut(part)) }
        case .decide(let head, let userID, let body):
            let receivedAt = wallClock()
            switch endpoint.decide(body: body.readableBytesView, of: userID, receivedAt: receivedAt) {
            case .answer(let answer):
                write(answer, version: head.version, context: context)
            case .store(let report):
                machine.storing(head.version)
                store(report, of: userID, receivedAt: receivedAt, version: head.version, context: context)
            }
        }
    }

    /// Stores a change off the event loop and answers it there.
    private func store(
        _ report: PermissionReport, of userID: UserID, receivedAt: Date, version: HTTPVersion,
        context: ChannelHandlerContext
    ) {
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        let endpoint = self.endpoint
        Task {
            let answer = await endpoint.store(report, of: userID, receivedAt: receivedAt)
            loop.execute {
                let (handler, context) = bound.value
                handler.stored(answer, version: version, context: context)
            }
        }
    }

    /// Answers a stored change, then takes up what arrived meanwhile.
    private func stored(_ answer: ReportAnswer, version: HTTPVersion, context: ChannelHandlerContext) {
        let resume = machine.stored()
        // The peer went away meanwhile: nothing to answer, and nothing after it to take up.
        guard context.channel.isActive else { return }
        write(answer, version: version, context: context)
        // A part may start another change: the rest are held again, in order.
        for part in resume.parts { channelRead(context: context, data: wrapInboundOut(part)) }
        // Hummingbird's async channel hands reads on at the end of a read burst: this is one.
        context.fireChannelReadComplete()
        if resume.quiesce, machine.quiesce() {
            context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        if resume.read, machine.read() {
            context.read()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !machine.quiesce() { return }
        context.fireUserInboundEventTriggered(event)
    }

    func read(context: ChannelHandlerContext) {
        if machine.read() { context.read() }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { machine.responseEnded() }
        context.write(data, promise: promise)
    }

    /// The user of a report this handler may take: a keep-alive HTTP/1.1 POST to the report
    /// route with a valid ID and no query, within the body limit, from a caller the listener's
    /// access policy lets report (``ReportRoutes/scope``). Anything else the router answers,
    /// the refusals included.
    private func classify(_ head: HTTPRequestHead) -> UserID? {
        guard head.method == .POST, head.version == .http1_1, head.isKeepAlive,
            !head.headers.contains(name: "expect"), !head.uri.contains("?"),
            let userID = try? ReportEndpoint.userID(reportPath: head.uri[...])
        else { return nil }
        if let length = head.headers.first(name: "content-length").flatMap(Int.init),
            length > APIPaths.maximumBodySize
        {
            return nil
        }
        // The router's rule for the report routes, asked of the same access policy.
        let caller = access.caller(authorization: head.headers.first(name: "authorization"), peer: peer)
        let allowed = access.refusal(of: caller, required: ReportRoutes.scope, action: "") == nil
        return allowed ? userID : nil
    }

    private func write(_ answer: ReportAnswer, version: HTTPVersion, context: ChannelHandlerContext) {
        // The headers the router's answers carry.
        var headers = HTTPHeaders([
            ("Content-Type", answer.contentType), ("Content-Length", String(answer.body.count)),
            ("Date", HTTPDate.now), ("Server", "remindd"),
        ])
        if let retryAfter = answer.retryAfter { headers.add(name: "Retry-After", value: retryAfter) }
        let head = HTTPResponseHead(
            version: version, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(
            wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
