import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// Hummingbird's HTTP/1 connection with remindd's limits added to its pipeline: the header
/// deadline and idle timeout (``ConnectionDeadlineHandler``), which also tells the listener's
/// ``ConnectionGuard`` which connections are idle, the refusal of version-less request lines
/// (``RequestLineHandler``) and the report fast path (``ReportFastPathHandler``). Requests are
/// still served by Hummingbird's `HTTP1Channel`. With ``ServerCertificates`` the connection
/// speaks TLS first, with the context current when it was accepted, so a reload's renewed
/// certificate reaches new connections.
///
/// On a Unix socket the peer's credentials are read here, once, before the first request: a
/// Unix socket's peer cannot change, and every request's context carries them.
struct GuardedHTTP1Channel: Sendable {
    /// An accepted connection: Hummingbird's channel and, on a Unix socket, its peer.
    struct Connection: Sendable {
        var http1: HTTP1Channel.Value
        var peer: PeerCredentials?
    }

    typealias Value = Connection

    /// Answers the requests of a connection whose peer is this.
    let responder: @Sendable (PeerCredentials?) -> HTTPChannelHandler.Responder
    let connections: ConnectionGuard
    var certificates: ServerCertificates? = nil
    /// Makes a connection's report fast path (``ReportFastPathHandler``) for its peer.
    var reports: (@Sendable (PeerCredentials?) -> ReportFastPathHandler)? = nil
    /// Whether connections are Unix-socket ones, whose peer credentials are read.
    var readsPeerCredentials = false

    private func http1(_ peer: PeerCredentials?) -> HTTP1Channel {
        HTTP1Channel(responder: responder(peer), configuration: HTTPLimits.http1)
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connections = self.connections
        let reports = self.reports
        // Called on the channel's event loop, before Hummingbird adds its handlers: TLS goes first.
        let tls = certificates?.context.map { NIOSSLServerHandler(context: $0) }
        if let tls {
            do {
                try channel.pipeline.syncOperations.addHandler(tls)
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        // On the channel's event loop the credentials are there at once.
        let peer = readsPeerCredentials ? PeerCredentials.future(channel) : channel.eventLoop.makeSucceededFuture(nil)
        return peer.flatMap { peer in
            // Hummingbird builds its pipeline on the channel's event loop, so this continues
            // there before the first read.
            http1(peer).setup(channel: channel, logger: logger).flatMapThrowing { value in
                let pipeline = channel.pipeline.syncOperations
                // Right after the decoder: it sees NIO's request parts, whose heads say whether
                // the connection is kept alive, and the response parts on their way to the encoder.
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                let deadlines = ConnectionDeadlineHandler(
                    headerTimeout: HTTPLimits.headerTimeout, idleTimeout: HTTPLimits.idleTimeout,
                    connections: connections)
                try pipeline.addHandler(deadlines, position: .after(decoder))
                if let reports {
                    try pipeline.addHandler(reports(peer), position: .after(deadlines))
                }
                // It reads the request line, so it goes after TLS has decrypted it.
                try pipeline.addHandler(RequestLineHandler(), position: tls.map { .after($0) } ?? .first)
                return Connection(http1: value, peer: peer)
            }
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1(value.peer).handle(value: value.http1, logger: logger)
    }
}
