import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Serves the API on a socket systemd passed in (`LISTEN_FDS`), instead of binding one.
///
/// Hummingbird 2.28 can only bind addresses itself; NIO's `ServerBootstrap.bind(_ socket:)`
/// adopts a listening descriptor, and Hummingbird's public `HTTP1Channel` serves the accepted
/// connections with the same `APIResponder`. This file is that adapter and nothing more.
struct ActivatedListener: Service {
    let descriptor: Int32
    let description: String
    let responder: APIResponder
    /// HTTPS on a passed TCP socket when `listen.tls` is configured.
    let certificates: ServerCertificates?
    let logger: Logger
    let onRunning: @Sendable () -> Void

    func run() async throws {
        let responder = self.responder
        let logger = self.logger
        // The same limits as a listener Hummingbird binds (HTTPLimits), including the cap on
        // open connections, which Hummingbird puts on its server channel this way.
        let connectionCap = HTTPLimits.connectionCap(logger: logger)
        let http1 = GuardedHTTP1Channel(
            http1: HTTP1Channel(
                responder: { request, writer, channel in
                    let context = RemindRequestContext(source: .init(channel: channel, logger: logger))
                    var response: Response
                    do {
                        response = try await responder.respond(to: request, context: context)
                    } catch {
                        logger.error("request failed: \(error)")
                        response = Response(status: .internalServerError)
                    }
                    response.headers[.server] = "remindd"
                    try await writer.write(response: response.head, body: response.body)
                }, configuration: HTTPLimits.http1),
            connections: connectionCap, certificates: certificates, repeats: RepeatFastPath(responder))
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: Int32(HTTPLimits.backlog))
            .serverChannelInitializer { channel -> EventLoopFuture<Void> in
                channel.eventLoop.makeCompletedFuture { () throws -> Void in
                    try channel.pipeline.syncOperations.addHandler(
                        AvailableConnectionsChannelHandler(delegate: connectionCap))
                }
            }
            .bind(descriptor, cleanupExistingSocketFile: false) { channel in
                http1.setup(channel: channel, logger: logger)
            }
        onRunning()
        try await withGracefulShutdownHandler {
            try await server.executeThenClose { inbound in
                // Connections already accepted finish their requests after the listener
                // closes: the group waits for them.
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in inbound {
                            group.addTask { await http1.handle(value: connection, logger: logger) }
                        }
                    } catch {
                        logger.error("accepting on \(description) failed: \(error)")
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }
}
