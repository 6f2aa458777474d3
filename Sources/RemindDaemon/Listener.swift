import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// One listener of the API: it binds a Unix socket or a TCP address, or adopts a listening
/// socket systemd passed in (`LISTEN_FDS`), and serves its connections with the same
/// pipeline (``GuardedHTTP1Channel``) and responder (``APIResponder``, the router of
/// ``APIRoutes``) either way.
///
/// At a graceful shutdown it stops accepting and asks every connection to finish (idle ones
/// close at once, busy ones after their answer), and returns once all have.
struct Listener: Service {
    enum Endpoint: Sendable, CustomStringConvertible {
        case unixSocket(path: String)
        case tcp(host: String, port: Int)
        /// A listening socket passed by systemd, with its `FileDescriptorName=`.
        case passed(descriptor: Int32, name: String, unix: Bool)

        var description: String {
            switch self {
            case .unixSocket(let path): "unix socket \(path)"
            case .tcp(let host, let port): "tcp \(host):\(port)"
            case .passed(let descriptor, let name, _): "passed socket \(name) (fd \(descriptor))"
            }
        }

        var isUnix: Bool {
            switch self {
            case .unixSocket: true
            case .tcp: false
            case .passed(_, _, let unix): unix
            }
        }
    }

    let endpoint: Endpoint
    let responder: APIResponder
    /// HTTPS on a TCP listener when `listen.tls` is configured.
    let certificates: ServerCertificates?
    let logger: Logger
    let onRunning: @Sendable () -> Void

    func run() async throws {
        let responder = self.responder
        let logger = self.logger
        let connectionCap = HTTPLimits.connectionCap(logger: logger)
        let reports = responder.reports
        // The router's access policy, for the report fast path.
        let access = responder.access
        let wallClock = responder.runtime.wallClock
        let channel = GuardedHTTP1Channel(
            responder: { peer in
                { request, writer, channel in
                    let context = RemindRequestContext(source: .init(channel: channel, logger: logger), peer: peer)
                    var response: Response
                    do {
                        response = try await responder.respond(to: request, context: context)
                    } catch {
                        logger.error("request failed: \(error)")
                        response = Response(status: .internalServerError)
                    }
                    response.headers[.date] = HTTPDate.now
                    response.headers[.server] = "remindd"
                    try await writer.write(response: response.head, body: response.body)
                }
            }, connections: connectionCap, certificates: certificates,
            reports: { peer in
                ReportFastPathHandler(endpoint: reports, access: access, peer: peer, wallClock: wallClock)
            },
            readsPeerCredentials: endpoint.isUnix)
        let quiescing = ServerQuiescingHelper(group: MultiThreadedEventLoopGroup.singleton)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: Int32(HTTPLimits.backlog))
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .serverChannelInitializer { server in
                server.eventLoop.makeCompletedFuture { () throws -> Void in
                    try server.pipeline.syncOperations.addHandler(
                        AvailableConnectionsChannelHandler(delegate: connectionCap))
                    try server.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: server))
                }
            }
        let setup: @Sendable (any Channel) -> EventLoopFuture<GuardedHTTP1Channel.Value> = { child in
            channel.setup(channel: child, logger: logger)
        }
        let server: NIOAsyncChannel<GuardedHTTP1Channel.Value, Never>
        switch endpoint {
        case .unixSocket(let path):
            server = try await bootstrap.bind(
                unixDomainSocketPath: path, cleanupExistingSocketFile: false, childChannelInitializer: setup)
            // The socket is created with the umask's mode: anyone in the group may connect.
            chmod(path, 0o660)
        case .tcp(let host, let port):
            server = try await bootstrap.bind(host: host, port: port, childChannelInitializer: setup)
        case .passed(let descriptor, _, _):
            server = try await bootstrap.bind(
                descriptor, cleanupExistingSocketFile: false, childChannelInitializer: setup)
        }
        onRunning()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                do {
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            group.addTask { await channel.handle(value: connection, logger: logger) }
                        }
                    }
                } catch {
                    logger.error("accepting on \(endpoint) failed: \(error)")
                }
            }
        } onGracefulShutdown: {
            quiescing.initiateShutdown(promise: nil)
        }
    }
}
