import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 connection with remindd's limits added to its pipeline: the header
/// deadline and idle timeout (``ConnectionDeadlineHandler``), which also tells the listener's
/// ``ConnectionGuard`` which connections are idle, and the refusal of version-less request lines
/// (``RequestLineHandler``). Requests are still served by Hummingbird's `HTTP1Channel`.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let connections: ConnectionGuard

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connections = self.connections
        // Hummingbird builds its pipeline on the channel's event loop, so this continues there
        // before the first read.
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            // Right after the decoder: it sees NIO's request parts, whose heads say whether the
            // connection is kept alive, and the response parts on their way to the encoder.
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(
                ConnectionDeadlineHandler(
                    headerTimeout: HTTPLimits.headerTimeout, idleTimeout: HTTPLimits.idleTimeout,
                    connections: connections),
                position: .after(decoder))
            try pipeline.addHandler(RequestLineHandler(), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
