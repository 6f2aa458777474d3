import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import RemindConfig
import RemindCore
import RemindSinks
import RemindStore
import ServiceLifecycle
import Systemd

#if canImport(Glibc)
    import Glibc
#endif

/// Why the daemon could not start, with the exit code it should end with.
public struct StartupError: Error, CustomStringConvertible {
    public var message: String
    /// 78 (EX_CONFIG) for configuration problems, 1 otherwise.
    public var exitCode: Int32

    public init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}

/// The one composition function: everything remindd runs, wired together.
public enum Daemon {
    /// Timings a test may shorten.
    public struct Tuning: Sendable {
        public var checkpointInterval: Duration = .seconds(2)
        public var snapshotInterval: Duration = .seconds(60)
        public var schedulerMaximumSleep: Duration = .seconds(1)

        public init() {}
    }

    /// Opens the state and builds the services in their shutdown order: listeners stop first
    /// (finishing in-flight requests), then the scheduler and the sinks' dispatchers, and the
    /// store last, with a final snapshot.
    public static func build<C: Clock>(
        configuration: DaemonConfiguration,
        logger: Logger,
        clock: C,
        wallClock: @escaping @Sendable () -> Date = { Date() },
        notifier: SystemdNotifier = SystemdNotifier(),
        metrics: DaemonMetrics = DaemonMetrics(),
        tuning: Tuning = Tuning(),
        reread: @escaping @Sendable () throws(ConfigurationError) -> DaemonConfiguration
    ) throws(StartupError) -> (group: ServiceGroup, runtime: DaemonRuntime) where C.Duration == Duration {
        // The one pool for blocking file I/O: cold reads of user files, checkpoints, the file
        // sink's appends, commands. Sixteen threads keep a disk busy when a million due users'
        // files are read cold; the write-ahead log keeps a thread of its own (see there).
        let io = NIOThreadPool(numberOfThreads: 16)
        io.start()
        let opened: OpenedStore
        do {
            opened = try openStore(
                configuration, logger: logger, clock: clock, wallClock: wallClock, notifier: notifier, io: io,
                tuning: tuning)
        } catch {
            try? io.syncShutdownGracefully()
            throw error
        }
        let store = opened.store

        let handles: [DaemonRuntime.SinkHandle]
        var pushClients: [HTTPClient] = []
        do {
            handles = try makeSinks(
                configuration.sinks, logger: logger, metrics: metrics, io: io, directory: store, wallClock: wallClock,
                clients: &pushClients)
        } catch {
            for client in pushClients { try? client.syncShutdown() }
            try? io.syncShutdownGracefully()
            throw error
        }
        let runtime = DaemonRuntime(
            configuration: configuration, store: store, sinks: handles, logger: logger, notifier: notifier,
            metrics: metrics, wallClock: wallClock, storeReady: opened.ready, reread: reread)

        var services: [any Service] = [
            // First, so the last to stop: the store's final checkpoint still runs on it.
            ThreadPoolService(pool: io),
            // Before the dispatchers, so it stops after them.
            HTTPClientService(clients: pushClients),
            opened.service,
        ]
        for handle in handles {
            let sinkName = handle.sink.name
            let dispatcher = SinkDispatcher(
                sink: handle.sink, retry: handle.retry, source: store, clock: clock, logger: logger,
                statistics: handle.statistics, failureMessageID: MessageID.deliveryFailed.rawValue,
                rateLimit: handle.rateLimit, maxConcurrency: handle.maxConcurrency,
                deadLetter: { event, attempts, lastError in
                    try await store.deadLetter(
                        DeadLetterRecord(
                            event: event, sink: sinkName, attempts: attempts, lastError: lastError,
                            deadLetteredAt: wallClock().millisecondPrecision))
                    logger.error(
                        "event \(event.id) dead-lettered for \(sinkName) after \(attempts) attempt(s): \(lastError)",
                        metadata: [
                            MessageID.metadataKey: MessageID.deadLettered.metadataValue,
                            "REMINDD_SINK": .string(sinkName), "REMINDD_EVENT_ID": .string(event.id),
                            "REMINDD_USER_ID": .string(event.userID.rawValue),
                        ])
                })
            services.append(DispatcherService(dispatcher: dispatcher))
        }
        let watchdog = (try? Watchdog.fromEnvironment())?.interval
        services.append(
            SchedulerService(
                runtime: runtime, clock: clock, maximumSleep: tuning.schedulerMaximumSleep, watchdogInterval: watchdog))
        services.append(ReloadService(runtime: runtime))
        services += try Listeners.make(configuration: configuration, runtime: runtime)
        services.append(StoppingNotice(runtime: runtime))
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        return (group, runtime)
    }

    /// The sinks of the configuration. The push sinks' HTTP clients are appended to `clients`
    /// as they are made, so that the caller shuts them down even when a later sink fails.
    static func makeSinks(
        _ sinks: [SinkConfiguration], logger: Logger, metrics: DaemonMetrics, io: NIOThreadPool,
        directory: any PushDirectory, wallClock: @escaping @Sendable () -> Date, clients: inout [HTTPClient]
    ) throws(StartupError) -> [DaemonRuntime.SinkHandle] {
        var handles: [DaemonRuntime.SinkHandle] = []
        for (index, configuration) in sinks.enumerated() {
            let sink: any EventSink
            switch configuration.kind {
            case .apns, .fcm:
                guard
                    let made = try PushSinkFactory.make(
                        configuration, index: index, directory: directory, metrics: metrics.factory,
                        wallClock: wallClock)
                else { continue }
                clients.append(made.client)
                sink = made.sink
            case .journal:
                sink = JournalSink(name: configuration.name, messageIDs: eventMessageIDs)
            case .file(let file):
                sink = FileSink(name: configuration.name, path: file.path, io: io)
            case .exec(let exec):
                sink = ExecSink(
                    name: configuration.name, command: exec.command, timeoutSeconds: exec.timeoutSeconds, io: io)
            case .webhook(let hook):
                var secret: String?
                if let secretFile = hook.secretFile {
                    guard let bytes = FileManager.default.contents(atPath: secretFile) else {
                        throw StartupError(
                            "remindd: sink \"\(configuration.name)\": cannot read secretFile \(secretFile)",
                            exitCode: 78)
                    }
                    secret = String(decoding: bytes, as: UTF8.self)
                }
                do {
                    sink = try WebhookSink(
                        name: configuration.name, url: hook.url, secret: secret, timeoutSeconds: hook.timeoutSeconds,
                        headers: hook.headers)
                } catch {
                    throw StartupError("remindd: sink \"\(configuration.name)\": \(error.message)", exitCode: 78)
                }
            }
            let rateLimit = configuration.rateLimit.ratePerSecond.map {
                TokenBucket(ratePerSecond: $0, burst: configuration.rateLimit.burst)
            }
            // A webhook says how many requests its receiver takes at once. A file sink takes many
            // deliveries at once so that they share an fsync (each user's events still arrive in
            // order). The journal and commands take one at a time.
            var maxConcurrency = 1
            switch configuration.kind {
            case .webhook(let hook): maxConcurrency = hook.maxConcurrency
            case .apns(let apns): maxConcurrency = apns.settings.maxConcurrency
            case .fcm(let fcm): maxConcurrency = fcm.settings.maxConcurrency
            case .file: maxConcurrency = Self.fileSinkConcurrency
            case .journal, .exec: break
            }
            let statistics = SinkStatistics(sink: sink.name, type: sink.type, factory: metrics.factory)
            handles.append(
                .init(
                    sink: sink, statistics: statistics, retry: configuration.retry, rateLimit: rateLimit,
                    maxConcurrency: maxConcurrency))
        }
        return handles
    }

    /// Deliveries a file sink group-commits at most: enough to take a disk's fsync rate to
    /// tens of thousands of lines a second, few enough to bound a batch.
    static let fileSinkConcurrency = 256

    static let eventMessageIDs: [SinkEvent.Kind: String] = [
        .reminder: MessageID.reminderDelivered.rawValue,
        .withdraw: MessageID.reminderWithdrawn.rawValue,
        .heartbeat: MessageID.heartbeatSent.rawValue,
    ]

    static func logStoreNotice(_ notice: StoreNotice, logger: Logger) {
        switch notice {
        case .quarantined(let path, let movedTo, let reason):
            logger.error(
                "unreadable user file \(path) moved to \(movedTo): \(reason)",
                metadata: [MessageID.metadataKey: MessageID.fileQuarantined.metadataValue])
        case .clearedTemporaryFiles(let count):
            logger.notice("removed \(count) temp file(s) left by an interrupted write")
        case .cutTornLogTail(let bytes):
            logger.warning("cut \(bytes) bytes of an unacknowledged, torn write off the log")
        case .scannedAllFiles(let users):
            logger.notice("no snapshot: read every user file (\(users) users)")
        case .damagedFile(let path, let movedTo, let reason, let consequence):
            logger.error(
                "damaged state file \(path): \(reason); \(consequence); kept for inspection as \(movedTo)",
                metadata: [MessageID.metadataKey: MessageID.stateFileDamaged.metadataValue])
        case .checkpointFailed(let reason):
            logger.error("checkpoint failed: \(reason)")
        }
    }
}

/// Sends `STOPPING=1` as soon as shutdown begins (it is the last service, so the first told).
struct StoppingNotice: Service {
    let runtime: DaemonRuntime

    func run() async throws {
        try? await gracefulShutdown()
        _ = runtime.notifier.stopping()
        runtime.logger.notice(
            "stopping: finishing in-flight requests and deliveries",
            metadata: [MessageID.metadataKey: MessageID.stopping.metadataValue])
    }
}
