import Foundation
import Logging
import RemindAPI
import RemindConfig
import RemindCore
import RemindSinks
import RemindStore
import Synchronization
import Systemd

/// What the daemon's parts share: the store, the live configuration, the sinks' counters,
/// the clock, and how to re-read the configuration.
public final class DaemonRuntime: Sendable {
    /// A configured sink with its counters, for status and metrics.
    public struct SinkHandle: Sendable {
        public var sink: any EventSink
        public var statistics: SinkStatistics
        public var retry: RetryPolicy
        public var rateLimit: TokenBucket?
        /// Deliveries the sink may have in progress at once (a webhook's `maxConcurrency`).
        public var maxConcurrency: Int
    }

    public static let version = "0.1.0"

    /// The state, behind the store protocol: the backend is chosen by configuration at run
    /// time, so it is held as an existential here rather than threaded through every route
    /// and service as a generic parameter.
    public let store: any StateStore
    /// The answers to repeated reports, over a store this process alone writes (nil otherwise).
    let repeats: RepeatCache?
    public let startedAt: Date
    public let sinks: [SinkHandle]
    public let logger: Logger
    public let notifier: SystemdNotifier
    public let metrics: DaemonMetrics
    /// The wall clock: due dates and timestamps. Injected so tests control time.
    public let wallClock: @Sendable () -> Date
    /// Re-reads the configuration file (for reload); throws when it is invalid.
    let reread: @Sendable () throws(ConfigurationError) -> DaemonConfiguration
    /// What `READY=1` waits for besides the listeners (the database, with PostgreSQL).
    public let storeReady: AsyncLatch
    /// The TCP listener's certificate, re-read at every reload.
    let certificates = ServerCertificates()
    /// The TCP listener's tokens (`listen.tokenFile`, `listen.tokensFile`), re-read at every
    /// reload.
    public let tokens = TokenTable()
    private let current: Mutex<DaemonConfiguration>
    /// What the daemon learned (`DaemonRuntime+Learning.swift`), applied on top of the
    /// configuration's policy.
    let learned = Mutex(Learned())
    /// The first recompute, shared by whoever needs it first (`relearnAtStart`).
    let firstLearning = Mutex<Task<Void, Never>?>(nil)
    /// The last reading of every user's history for "Always kept" (`refreshAlwaysKept`).
    let alwaysKept = Mutex<AlwaysKeptTally?>(nil)
    /// When the next reading may start (`readAlwaysKeptIfStale`), and whether one runs.
    let alwaysKeptReading = Mutex<(running: Bool, nextAt: ContinuousClock.Instant?)>((false, nil))
    /// When `remindd_funnel_total` was last brought up to the store's funnel (`refreshFunnelMetric`).
    let funnelRefreshedAt = Mutex<Date?>(nil)
    private let counters = Mutex(Counters())

    struct Counters {
        var lastError: String?
    }

    public init(
        configuration: DaemonConfiguration, store: any StateStore, sinks: [SinkHandle], logger: Logger,
        notifier: SystemdNotifier = SystemdNotifier(), metrics: DaemonMetrics = DaemonMetrics(),
        wallClock: @escaping @Sendable () -> Date, storeReady: AsyncLatch = AsyncLatch(open: true),
        repeats: RepeatCache? = nil,
        reread: @escaping @Sendable () throws(ConfigurationError) -> DaemonConfiguration
    ) {
        self.storeReady = storeReady
        self.current = Mutex(configuration)
        self.store = store
        self.repeats = repeats ?? RepeatCache(over: store)
        self.startedAt = store.daemonStartedAt
        self.sinks = sinks
        self.logger = logger
        self.notifier = notifier
        self.metrics = metrics
        self.wallClock = wallClock
        self.reread = reread
    }

    public var configuration: DaemonConfiguration { current.withLock { $0 } }

    /// Where reports that are not repeats are stored.
    var reportStorage: ReportStorage { ReportStorage(store: store, repeats: repeats) }

    func count(_ body: (inout Counters) -> Void) {
        counters.withLock { body(&$0) }
    }

    var counts: Counters { counters.withLock { $0 } }

    /// Re-reads the configuration and applies what can change while running (the policy:
    /// notification, schedule, heartbeat, history). Listeners, the state directory and the
    /// sinks need a restart; a change to them is applied then and logged now. The files of
    /// `listen.tls` are re-read, so a renewed certificate is served to new connections; when
    /// they are not usable the whole reload is refused and the running certificate stays.
    ///
    /// `actor` and `route` name who asked, for the audit entry.
    public func reload(actor: String, route: String) async throws(ConfigurationError) -> DaemonConfiguration {
        _ = notifier.reloading()
        defer { _ = notifier.ready(status: nil) }
        var fresh: DaemonConfiguration
        let tokens: AccessTokens
        do throws(ConfigurationError) {
            fresh = try reread()
            // The token files named by the running configuration: listen changes wait for a
            // restart, but the files' contents are re-read now.
            do throws(ValidationError) {
                tokens = try AccessTokens.load(configuration.listen)
            } catch {
                throw ConfigurationError(kind: .invalid, path: nil, validationError: error)
            }
            try certificates.reload()
        } catch {
            logger.error(
                "configuration rejected, keeping the running one: \(error)",
                metadata: [
                    MessageID.metadataKey: MessageID.configurationRejected.metadataValue,
                    Self.actorKey: .string(actor), Self.routeKey: .string(route),
                ])
            throw error
        }
        self.tokens.replace(with: tokens)
        let previous = configuration
        if previous.listen != fresh.listen || previous.stateDirectory != fresh.stateDirectory
            || previous.sinks != fresh.sinks || previous.storage != fresh.storage
        {
            logger.warning("listen, stateDirectory, storage and sinks changes take effect at the next restart")
        }
        // What is running is what `GET /v1/config` shows: the parts that need a restart keep
        // their running values until then.
        fresh.listen = previous.listen
        fresh.stateDirectory = previous.stateDirectory
        fresh.storage = previous.storage
        fresh.sinks = previous.sinks
        current.withLock { [fresh] in $0 = fresh }
        await applyPolicy()
        // New groups or settings: the allocation is brought in line now, not at the next slot.
        await relearn()
        logger.notice(
            "configuration reloaded",
            metadata: [
                MessageID.metadataKey: MessageID.configurationReloaded.metadataValue,
                Self.actorKey: .string(actor), Self.routeKey: .string(route),
            ])
        return fresh
    }

    /// Hands the policy of the configuration and what was learned to the store; the answers
    /// to repeats made under the old one go.
    func applyPolicy() async {
        await store.setPolicy(ReminderPolicy(configuration: policy(for: configuration)))
        repeats?.invalidateAll()
    }

    /// The user's record with every report answered so far in (the repeats answered from
    /// memory are handed to the store first); nil for an unknown user.
    func record(_ userID: UserID) async throws -> UserRecord? {
        try await repeats?.flush(userID, into: store)
        return try await store.record(userID)
    }

    /// Forgets a user now (`UserStore.forget`); nil for an unknown user. No repeat of theirs
    /// is answered from memory meanwhile, or after.
    func forget(_ userID: UserID) async throws -> ForgetOutcome? {
        let taken = repeats?.begin(userID)
        let outcome: ForgetOutcome?
        do {
            outcome = try await store.forget(userID, at: wallClock())
        } catch {
            repeats?.fail(userID, restoring: taken)
            throw error
        }
        // The repeats answered from memory went with the record.
        repeats?.invalidate(CollectionOfOne(userID))
        repeats?.endWithoutStatus(userID)
        return outcome
    }

    /// Records engagement events the app reported (`UserStore.recordEvents`): how many were
    /// new. The user's record changes, so no repeat of theirs is answered from the old one.
    func recordEvents(_ events: [EngagementEvent], for userID: UserID) async throws -> Int {
        guard let repeats else { return try await store.recordEvents(events, for: userID) }
        return try await repeats.changing(userID) { try await store.recordEvents(events, for: userID) }
    }

    /// A page of users (`UserStore.users(after:limit:)`) with every report answered so far in.
    func users(after: UserID?, limit: Int) async throws -> [UserRecord] {
        try await repeats?.flush(into: store)
        return try await store.users(after: after, limit: limit)
    }

    /// Records a store error a request ran into: the last error in `/v1/status`, and a log line
    /// saying whether storage refuses writes for now or failed.
    func noteStoreFailure(_ error: any Error) {
        count { $0.lastError = "\(error)" }
        guard let error = error as? StoreError else {
            logger.error("storage error: \(error)")
            return
        }
        if error.isDiskFull || error.isReadOnly {
            logger.error("state directory refuses writes: \(error)")
        } else if error.isUnavailable {
            logger.error("database unavailable: \(error)")
        } else {
            logger.error("storage error: \(error)")
        }
    }

    static let actorKey = "REMINDD_ACTOR"
    static let routeKey = "REMINDD_ROUTE"

    /// Logs a state-changing request other than a report (a forget, a replay), naming who
    /// asked and the route, so `journalctl REMINDD_ACTOR=ops` lists what a token holder did.
    func audit(_ message: String, actor: String, route: String, userID: String? = nil) {
        var metadata: Logger.Metadata = [Self.actorKey: .string(actor), Self.routeKey: .string(route)]
        if let userID { metadata["REMINDD_USER_ID"] = .string(userID) }
        logger.notice("\(message)", metadata: metadata)
    }
}
