import NIOCore
import NIOHTTP1

/// Applies ``ConnectionDeadlines`` to one HTTP connection and reports to its listener's
/// ``ConnectionGuard`` whether it waits for a request head: the I/O half of the two (timers,
/// closing), all decisions being the state machine's.
///
/// It sits right after NIO's HTTP/1 decoder, so it sees whole request parts coming in and
/// response parts going out (Hummingbird's HTTP types come later in the pipeline).
final class ConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var deadlines: ConnectionDeadlines
    private let connections: ConnectionGuard
    private var timer: (task: Scheduled<Void>, deadline: NIODeadline)?
    /// False once the channel closed: it is then out of the guard's table for good.
    private var isOpen = true

    init(headerTimeout: TimeAmount, idleTimeout: TimeAmount, connections: ConnectionGuard) {
        self.deadlines = ConnectionDeadlines(
            headerTimeout: headerTimeout, idleTimeout: idleTimeout, openedAt: .now())
        self.connections = connections
    }

    // Added while the accepted channel is set up, before it is active: it counts from here.
    func handlerAdded(context: ChannelHandlerContext) {
        perform(deadlines.start(), context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed(context: context)
        context.fireChannelInactive()
    }

    private func closed(context: ChannelHandlerContext) {
        timer?.task.cancel()
        timer = nil
        if isOpen { connections.remove(context.channel) }
        isOpen = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = NIODeadline.now()
        switch unwrapInboundIn(data) {
        case .head(let head):
            perform(deadlines.readHead(closeRequested: !head.isKeepAlive, now: now), context: context)
        case .body:
            perform(deadlines.readBody(now: now), context: context)
        case .end:
            perform(deadlines.readEnd(now: now), context: context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let now = NIODeadline.now()
        let action: ConnectionDeadlines.Action
        switch unwrapOutboundIn(data) {
        case .head(let head):
            action = deadlines.wroteHead(closeRequested: !head.isKeepAlive, now: now)
        case .body:
            action = .none
        case .end:
            action = deadlines.wroteEnd(now: now)
        }
        guard action == .close else {
            context.write(data, promise: promise)
            perform(action, context: context)
            return
        }
        // Close once the response is out, not before: the client should read why.
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { _ in context.close(promise: nil) }
        written.futureResult.cascade(to: promise)
        context.writeAndFlush(data, promise: written)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            perform(deadlines.quiesce(), context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func perform(_ action: ConnectionDeadlines.Action, context: ChannelHandlerContext) {
        switch action {
        case .schedule(let deadline):
            schedule(deadline, context: context)
        case .close:
            timer?.task.cancel()
            timer = nil
            context.close(promise: nil)
        case .none:
            break
        }
        if isOpen {
            connections.update(context.channel, awaitingHeadSince: deadlines.awaitingHeadSince)
        }
    }

    /// Keeps one timer, at the earliest deadline asked for: a later one is set again by the
    /// state machine when the earlier fires.
    private func schedule(_ deadline: NIODeadline, context: ChannelHandlerContext) {
        if let timer {
            guard deadline < timer.deadline else { return }
            timer.task.cancel()
        }
        let task = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: deadline) {
            self.timer = nil
            self.perform(self.deadlines.timerFired(now: .now()), context: context)
        }
        timer = (task, deadline)
    }
}
