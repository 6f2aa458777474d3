import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import RemindCore
import RemindStore
import Synchronization

/// The loops behind `DatabaseHealth`: probing the database on a connection of its own,
/// answering operations given up on, and replacing the pool after an outage.
extension PostgresStateStore {
    /// A connection pool and the signal that retires it.
    final class Pool: Sendable {
        let client: PostgresClient
        private let retired = AsyncSignal()

        init(_ client: PostgresClient) {
            self.client = client
        }

        /// Runs the pool until `retire()` or cancellation. Not until graceful shutdown:
        /// `PostgresClient.run()` would end then on its own (through the task-local it
        /// inherits), at the moment the store still gives back the events it claimed ahead;
        /// so it runs in a task of its own, and the store retires it after its last statement.
        func run() async {
            let running = Task.detached { await self.client.run() }
            await retired.wait()
            running.cancel()
            await running.value
        }

        /// Closes the pool: what still waits in it fails (its connections are gone anyway).
        func retire() {
            retired.signal()
        }
    }

    enum ProbeVerdict: Equatable {
        case reached
        case failed(String)
    }

    /// Runs the first pool and each that replaces it, until `closePools()` or cancellation.
    func runPools() async {
        await withDiscardingTaskGroup { group in
            for await pool in pools.stream {
                group.addTask { await pool.run() }
            }
        }
    }

    /// Closes the pool for good: the store's last statement is done.
    func closePools() {
        pools.continuation.finish()
        pool.withLock { $0 }.retire()
    }

    /// A fresh pool in place of one whose connection attempts failed: PostgresNIO's pool backs
    /// off up to a minute between attempts and says nothing to the requests waiting meanwhile,
    /// so after a long outage it would keep requests waiting long after the database is back.
    func replacePool() {
        let fresh = Pool(PostgresClient(configuration: clientConfiguration, backgroundLogger: logger))
        let old = pool.withLock { current in
            defer { current = fresh }
            return current
        }
        pools.continuation.yield(fresh)
        old.retire()
    }

    /// Waits for a reason to probe (an operation that failed as if the connection were gone,
    /// or runs long), probes, and while the database does not answer keeps probing with
    /// backoff, refusing requests; the first probe that reaches it ends the outage.
    func healthLoop() async {
        while !Task.isCancelled {
            await probeWanted.wait()
            if Task.isCancelled { return }
            var outageBegan: ContinuousClock.Instant?
            while !Task.isCancelled {
                let began = ContinuousClock.now
                if case .failed(let reason) = await probe() {
                    if outageBegan == nil {
                        outageBegan = began
                        logger.error(
                            "PostgreSQL at \(options.description) is unreachable, requests are refused until it answers: \(reason)"
                        )
                    }
                    try? await Task.sleep(for: failed(reason))
                    health.withLock { $0.probeStarted() }
                    continue
                }
                if health.withLock({ $0.probeReached(startedAt: began) }) {
                    replacePool()
                    let outage = outageBegan.map { ContinuousClock.now - $0 } ?? .zero
                    logger.notice("PostgreSQL at \(options.description) is reachable again after \(outage)")
                    recovered.signal()
                    // What was due or enqueued meanwhile (the notifications were lost).
                    wakeEverything()
                }
                break
            }
        }
    }

    /// The database cannot be used: the waiting operations are answered now; returns how long
    /// to wait before trying again.
    func failed(_ reason: String) -> Duration {
        let (failing, delay) = health.withLock { $0.attemptFailed(reason: reason) }
        let error = StoreError.databaseUnavailable(reason)
        for waiter in failing { waiter(error) }
        return delay
    }

    /// An operation failed as if its connection were gone: probe, unless a probe runs.
    func noteConnectionFailure() {
        if health.withLock({ $0.connectionFailed() }) { probeWanted.signal() }
    }

    /// Every 50 ms while operations run: answers those past their deadline, and asks for a
    /// probe when one runs suspiciously long (a request waiting for a pool that cannot
    /// connect hears nothing from the pool).
    func watchLoop() async {
        while !Task.isCancelled {
            guard health.withLock({ $0.hasOperations }) else {
                await operationsStarted.wait()
                continue
            }
            try? await Task.sleep(for: .milliseconds(50))
            let check = health.withLock { $0.check(now: .now) }
            for waiter in check.expired { waiter(OperationTimeout()) }
            if check.probe { probeWanted.signal() }
        }
    }

    /// One connection of its own, made as the pool makes its connections, and `SELECT 1`;
    /// within the pool's connect timeout. A server that answers "too many connections" is
    /// there: the pool's connections are still good.
    func probe() async -> ProbeVerdict {
        let logger = self.logger
        do {
            let configuration = try await probeConfiguration()
            try await withTimeout(clientConfiguration.options.connectTimeout) {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration, id: 0, logger: logger)
                do {
                    try await connection.query("SELECT 1", logger: logger)
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            }
            return .reached
        } catch let error as PSQLError where error.code == .server && error.serverInfo?[.sqlState] == "53300" {
            return .reached
        } catch {
            return .failed(Self.describe(error))
        }
    }

    /// The probe's connection settings: the pool's, TLS context made once (it reads the
    /// trust roots, so off the cooperative threads).
    func probeConfiguration() async throws -> PostgresConnection.Configuration {
        if let made = probeSettings.withLock({ $0 }) { return made }
        let client = clientConfiguration
        let tls: PostgresConnection.Configuration.TLS
        switch Self.tlsMode(client.tls) {
        case .disable:
            tls = .disable
        case .prefer(let settings):
            tls = .prefer(try await NIOThreadPool.singleton.runIfActive { try NIOSSLContext(configuration: settings) })
        case .require(let settings):
            tls = .require(try await NIOThreadPool.singleton.runIfActive { try NIOSSLContext(configuration: settings) })
        }
        var configuration: PostgresConnection.Configuration
        if let path = client.unixSocketPath {
            configuration = .init(
                unixSocketPath: path, username: client.username, password: client.password, database: client.database)
        } else {
            configuration = .init(
                host: client.host ?? "localhost", port: client.port ?? 5432, username: client.username,
                password: client.password, database: client.database, tls: tls)
        }
        configuration.options.connectTimeout = TimeAmount(client.options.connectTimeout)
        configuration.options.tlsServerName = client.options.tlsServerName
        configuration.options.requireBackendKeyData = client.options.requireBackendKeyData
        configuration.options.additionalStartupParameters = client.options.additionalStartupParameters
        probeSettings.withLock { $0 = configuration }
        return configuration
    }

    enum TLSMode {
        case disable
        case prefer(TLSConfiguration)
        case require(TLSConfiguration)
    }

    /// The pool's TLS mode. PostgresNIO keeps it internal (and its own conversion to a
    /// connection's settings), so it is read by reflection; `PostgresStoreTests` checks each
    /// mode, so that a PostgresNIO that stores it otherwise fails there. Should it still go
    /// unread, `prefer` with the default settings connects to most servers.
    static func tlsMode(_ tls: PostgresClient.Configuration.TLS) -> TLSMode {
        guard let base = Mirror(reflecting: tls).children.first?.value else {
            return .prefer(.makeClientConfiguration())
        }
        if "\(base)" == "disable" { return .disable }
        guard let mode = Mirror(reflecting: base).children.first, let settings = mode.value as? TLSConfiguration else {
            return .prefer(.makeClientConfiguration())
        }
        return mode.label == "require" ? .require(settings) : .prefer(settings)
    }
}
