import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// Hummingbird's HTTP/1 connection with remindd's limits added to its pipeline: the header
/// deadline and idle timeout (``ConnectionDeadlineHandler``), which also tells the listener's
/// ``ConnectionGuard`` which connections are idle, and the refusal of version-less request lines
/// (``RequestLineHandler``). Requests are still served by Hummingbird's `HTTP1Channel`. With
/// ``ServerCertificates`` the connection speaks TLS first, with the context current when it was
/// accepted, so a reload's renewed certificate reaches new connections.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let connections: ConnectionGuard
    var certificates: ServerCertificates? = nil
    /// Repeated reports answered on the event loop (``RepeatReportHandler``).
    var repeats: RepeatFastPath? = nil

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connections = self.connections
        let repeats = self.repeats
        // Called on the channel's event loop, before Hummingbird adds its handlers: TLS goes first.
        let tls = certificates?.context.map { NIOSSLServerHandler(context: $0) }
        if let tls {
            do {
                try channel.pipeline.syncOperations.addHandler(tls)
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        // Hummingbird builds its pipeline on the channel's event loop, so this continues there
        // before the first read.
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            // Right after the decoder: it sees NIO's request parts, whose heads say whether the
            // connection is kept alive, and the response parts on their way to the encoder.
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let deadlines = ConnectionDeadlineHandler(
                headerTimeout: HTTPLimits.headerTimeout, idleTimeout: HTTPLimits.idleTimeout,
                connections: connections)
            try pipeline.addHandler(deadlines, position: .after(decoder))
            if let repeats {
                try pipeline.addHandler(RepeatReportHandler(repeats), position: .after(deadlines))
            }
            // It reads the request line, so it goes after TLS has decrypted it.
            try pipeline.addHandler(RequestLineHandler(), position: tls.map { .after($0) } ?? .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
