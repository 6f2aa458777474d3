import Foundation
import Logging
import NIOPosix
import NIOSSL
import PostgresNIO
import RemindAPI
import RemindConfig
import RemindCore
import RemindPostgres
import RemindStore
import ServiceLifecycle
import Systemd

extension Daemon {
    /// The configured store, the service that owns its lifetime, what `READY=1` waits for, and
    /// the answers to repeats when this process alone writes the store.
    struct OpenedStore {
        var store: any StateStore
        var service: any Service
        var ready: AsyncLatch
        var repeats: RepeatCache?
    }

    static func openStore<C: Clock>(
        _ configuration: DaemonConfiguration, logger: Logger, clock: C, wallClock: @Sendable () -> Date,
        notifier: SystemdNotifier, io: NIOThreadPool, tuning: Tuning
    ) throws(StartupError) -> OpenedStore where C.Duration == Duration {
        let sinkNames = configuration.sinks.map(\.name)
        let policy = ReminderPolicy(configuration: configuration.policy)
        switch configuration.storage.type {
        case .files:
            let store: any StateStore
            let summary: OpenSummary
            let options = FileStateStore.Options(
                directory: configuration.stateDirectory, sinks: sinkNames, io: io)
            let notice: @Sendable (StoreNotice) -> Void = { logStoreNotice($0, logger: logger) }
            let parts = configuration.storage.parts
            if let marker = MigrationMarkerFile.unfinished(in: configuration.stateDirectory) {
                throw StartupError(
                    "remindd: \(configuration.stateDirectory) holds an unfinished migration (\(marker)): finish it with remindd migrate --resume, or empty the directory",
                    exitCode: 78)
            }
            do {
                if parts > 1 {
                    let partitioned = try PartitionedStateStore(
                        options: .init(directory: configuration.stateDirectory, parts: parts, part: options),
                        policy: policy, now: wallClock(), notice: notice)
                    (store, summary) = (partitioned, partitioned.summary)
                } else {
                    let single = try FileStateStore(options: options, policy: policy, now: wallClock(), notice: notice)
                    (store, summary) = (single, single.summary)
                }
            } catch {
                throw StartupError("remindd: \(error)", exitCode: error.isLayoutMismatch ? 78 : 1)
            }
            logger.notice(
                "state loaded from \(configuration.stateDirectory)\(parts > 1 ? " in \(parts) parts" : ""): \(summary.users) users (\(summary.fromSnapshot ? "snapshot" : "full scan") + \(summary.replayedEntries) log entries), \(summary.pendingEvents) events pending",
                metadata: [MessageID.metadataKey: MessageID.started.metadataValue])
            let repeats = RepeatCache(over: store)
            let service = StoreService(
                store: store, clock: clock, logger: logger, checkpointInterval: tuning.checkpointInterval,
                snapshotInterval: tuning.snapshotInterval,
                beforeCheckpoint: { try await repeats?.flush(into: store) },
                closing: {
                    _ = notifier.notify(.status("writing the user files before stopping"), .extendTimeout(.seconds(30)))
                })
            return OpenedStore(store: store, service: service, ready: AsyncLatch(open: true), repeats: repeats)
        case .postgres:
            let url: DatabaseURL
            do {
                url = try configuration.storage.requiredURL()
            } catch {
                throw StartupError("remindd: \(error)", exitCode: 78)
            }
            let ready = AsyncLatch()
            let options = PostgresStateStore.Options(
                client: clientConfiguration(url, poolSize: configuration.storage.poolSize),
                description: url.description, sinks: sinkNames, leaseSeconds: configuration.storage.leaseSeconds)
            let store = PostgresStateStore(
                options: options, policy: policy, now: wallClock(), logger: logger,
                // Each retry also extends systemd's start timeout: READY=1 waits for the
                // database however long it is down, instead of being killed at TimeoutStartSec.
                onWaiting: { reason in _ = notifier.notify(.status(reason), .extendTimeout(.seconds(30))) },
                onReady: {
                    logger.notice(
                        "state in PostgreSQL at \(url.description)",
                        metadata: [MessageID.metadataKey: MessageID.started.metadataValue])
                    ready.open()
                })
            _ = notifier.status("connecting to PostgreSQL at \(url.description)")
            return OpenedStore(store: store, service: store, ready: ready)
        }
    }

    /// PostgresNIO's configuration for a URL: a Unix socket or TCP with the URL's TLS mode.
    static func clientConfiguration(_ url: DatabaseURL, poolSize: Int) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch url.endpoint {
        case .unixSocket(let path):
            configuration = .init(
                unixSocketPath: path, username: url.username, password: url.password, database: url.database)
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS =
                switch url.tls {
                case .disable: .disable
                case .prefer: .prefer(.makeClientConfiguration())
                case .require: .require(.makeClientConfiguration())
                }
            configuration = .init(
                host: host, port: port, username: url.username, password: url.password, database: url.database,
                tls: tls)
        }
        configuration.options.maximumConnections = poolSize
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}
