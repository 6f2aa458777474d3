import Foundation
import Hummingbird
import Logging
import NIOCore
import RemindConfig
import ServiceLifecycle
import Synchronization
import Systemd

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP listeners: the Unix socket always, TCP when configured (or the sockets systemd
/// passed); one ``Listener`` each over the same API. `READY=1` goes out once every one of them
/// serves.
enum Listeners {
    static func make(configuration: DaemonConfiguration, runtime: DaemonRuntime) throws(StartupError) -> [any Service] {
        let inherited: [(fd: Int32, name: String)]
        do {
            inherited = try ListenFDs.inherited()
        } catch {
            throw StartupError("remindd: LISTEN_FDS: \(error)")
        }
        try loadTokens(configuration, runtime: runtime)
        if !inherited.isEmpty {
            return try activated(inherited, configuration: configuration, runtime: runtime)
        }
        let socketPath = configuration.listen.socket
        try prepareSocketPath(socketPath)
        var expected = 1
        if configuration.listen.tcp != nil {
            expected += 1
            try serveTLS(configuration, runtime: runtime)
        }
        let readiness = Readiness(expected: expected, runtime: runtime)
        // Each listener has its own limits (HTTPLimits): slow or oversized clients of one are cut
        // off without starving the other.
        var services: [any Service] = [
            listener(.unixSocket(path: socketPath), runtime: runtime, readiness: readiness)
        ]
        if let tcp = configuration.listen.tcpAddress {
            services.append(listener(.tcp(host: tcp.host, port: tcp.port), runtime: runtime, readiness: readiness))
        }
        return services
    }

    /// A listener with the access rules of its kind of socket: a Unix socket's peer credentials,
    /// TCP's bearer tokens (and TLS when `listen.tls` was loaded).
    private static func listener(
        _ endpoint: Listener.Endpoint, runtime: DaemonRuntime, readiness: Readiness
    ) -> Listener {
        let access: AccessPolicy =
            endpoint.isUnix ? .unixSocket(daemonUID: getuid(), socketGID: getgid()) : .bearer(runtime.tokens)
        return Listener(
            endpoint: endpoint, responder: APIResponder(runtime: runtime, access: access),
            certificates: endpoint.isUnix ? nil : tlsCertificates(runtime), logger: Logger(label: "remindd.http"),
            onRunning: { readiness.listenerRunning(endpoint.description) })
    }

    /// Reads the token files into the runtime's table: exit 78 naming the key and line when one
    /// cannot be used, like any other configuration error.
    static func loadTokens(_ configuration: DaemonConfiguration, runtime: DaemonRuntime) throws(StartupError) {
        do {
            runtime.tokens.replace(with: try AccessTokens.load(configuration.listen))
        } catch {
            throw StartupError("remindd: \(error)", exitCode: 78)
        }
        if configuration.listen.tcp != nil, runtime.tokens.isEmpty {
            runtime.logger.warning("listen.tokensFile holds no tokens: the TCP listener refuses every request")
        }
    }

    /// Loads `listen.tls` for the TCP listener, or warns that it serves plain HTTP. Exit 78 for
    /// files that cannot be served, like any other configuration error.
    static func serveTLS(_ configuration: DaemonConfiguration, runtime: DaemonRuntime) throws(StartupError) {
        guard let files = configuration.listen.tls else {
            runtime.logger.warning(
                "listen.tcp serves plain HTTP (no listen.tls): the bearer token and users' state cross the network in clear"
            )
            return
        }
        do {
            try runtime.certificates.load(files)
        } catch {
            throw StartupError(error.description, exitCode: 78)
        }
    }

    /// The certificates for a TCP listener: nil (plain HTTP) unless `listen.tls` was loaded.
    static func tlsCertificates(_ runtime: DaemonRuntime) -> ServerCertificates? {
        runtime.certificates.context == nil ? nil : runtime.certificates
    }

    /// Serves on the sockets systemd passed (socket activation) instead of the configured
    /// ones: Unix stream sockets with the socket's access rules, TCP ones with the bearer
    /// tokens. The socket's group is taken to be the daemon's group, as the units set both
    /// to `remindd`.
    static func activated(
        _ sockets: [(fd: Int32, name: String)], configuration: DaemonConfiguration, runtime: DaemonRuntime
    ) throws(StartupError) -> [any Service] {
        let readiness = Readiness(expected: sockets.count, runtime: runtime)
        var services: [any Service] = []
        for (fd, name) in sockets {
            switch ListenFDs.socketKind(of: fd) {
            case .unixStream:
                services.append(
                    listener(.passed(descriptor: fd, name: name, unix: true), runtime: runtime, readiness: readiness))
            case .tcp:
                try serveTLS(configuration, runtime: runtime)
                services.append(
                    listener(.passed(descriptor: fd, name: name, unix: false), runtime: runtime, readiness: readiness))
            case .other: throw StartupError("remindd: passed descriptor \(fd) (\(name)) is not a stream socket")
            }
        }
        return services
    }

    /// Makes the socket path usable: its directory exists, and a socket file left by a crashed
    /// run is removed. A socket something still answers on is another daemon's: refuse.
    static func prepareSocketPath(_ path: String) throws(StartupError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StartupError(
                    "remindd: cannot create the socket directory \(directory): \(error.localizedDescription)")
            }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw StartupError("remindd: \(path) exists and is not a socket; refusing to replace it")
        }
        if socketAnswers(path) {
            throw StartupError("remindd: another process is serving on \(path)")
        }
        unlink(path)
    }

    private static func socketAnswers(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}

/// Counts listeners up and sends `READY=1` with a status line when the last one serves. The
/// state is loaded before any listener starts, so READY also means `/v1/status` counts every
/// user, and the learned allocation is in force (`relearnAtStart`).
final class Readiness: Sendable {
    private let remaining: Mutex<Int>
    private let runtime: DaemonRuntime

    init(expected: Int, runtime: DaemonRuntime) {
        remaining = Mutex(expected)
        self.runtime = runtime
    }

    func listenerRunning(_ description: String) {
        runtime.logger.notice("serving on \(description)")
        let left = remaining.withLock { count -> Int in
            count -= 1
            return count
        }
        guard left == 0 else { return }
        Task {
            await runtime.storeReady.wait()
            // What was learned is in force from the start: the allocation stored before a
            // restart (or computed now, when its slot has passed) and the population's hour.
            await runtime.relearnAtStart()
            let statistics = await runtime.store.statistics()
            let status = "\(statistics.users) users, \(statistics.pendingReminders) reminders pending"
            let result = runtime.notifier.ready(status: status)
            runtime.logger.notice("ready: \(status) (notify: \(result))")
        }
    }
}
