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
        let repeats = opened.repeats

        let handles: [DaemonRuntime.SinkHandle]
        var pushClients: [HTTPClient] = []
        do {
            handles = try makeSinks(
                configuration.sinks, logger: logger, metrics: metrics, io: io,
                directory: RepeatCachingDirectory(store: store, repeats: repeats), wallClock: wallClock,
                clients: &pushClients)
        } catch {
            for client in pushClients { try? client.syncShutdown() }
            try? io.syncShutdownGracefully()
            throw error
        }
        let runtime = DaemonRuntime(
            configuration: configuration, store: store, sinks: handles, logger: logger, notifier: notifier,
            metrics: metrics, wallClock: wallClock, storeReady: opened.ready, repeats: repeats, reread: reread)

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
        services.append(LearningService(runtime: runtime, clock: clock))
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
}
