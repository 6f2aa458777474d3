import Foundation
import Logging
import PostgresNIO
import RemindCore
import RemindStore
import ServiceLifecycle
import Synchronization

/// The `StateStore` contract on one PostgreSQL database that any number of remindd instances
/// share (docs/operations.md). Every user is a row of `remindd_users`: the user file's JSON document
/// as `jsonb` and the scheduling columns beside it. A reply means committed.
///
/// - Reports, deletes and push verdicts are transactions that hold the user's advisory lock
///   (so two instances creating one new user take turns) and the row's lock.
/// - `fireDue` claims due rows with `FOR UPDATE SKIP LOCKED` in the transaction that records
///   the fire: two instances never fire one user, and a user busy with a report is left for
///   the next pass, as the contract allows.
/// - Events are one row per event and sink. A sink claims the oldest event of each user with
///   a lease (`leaseSeconds`), renewed while this instance lives; an instance that dies gives
///   its events back when the lease runs out (at-least-once, the same event id).
/// - `LISTEN`/`NOTIFY` wakes the other instances when a due time moves earlier or the outbox
///   gains events; a once-a-second look covers expired leases and lost notifications.
///
/// It is a `Service`: `run()` runs the connection pool, waits for the database (with
/// backoff, telling `onWaiting` why), migrates the schema, and then calls `onReady`. A
/// request the database does not answer within `operationTimeout` fails with
/// `StoreError.databaseUnavailable` (503 at the API); so does every request while the
/// database is known to be unreachable, at once (`DatabaseHealth`), until a probe reaches it
/// again.
public final class PostgresStateStore: StateStore, Service {
    public struct Options: Sendable {
        public var client: PostgresClient.Configuration
        /// How the database is named in messages: the URL without its password.
        public var description: String
        public var sinks: [String]
        public var leaseSeconds: Int
        /// This instance's name in leases: host, process and a random part.
        public var instance: String
        /// How long a request waits for the database before it is answered 503.
        public var operationTimeout: Duration = .seconds(5)
        /// How long the daemon-wide counts may be reused (they may lag 5 s).
        public var statisticsMaximumAge: Duration = .seconds(5)
        /// Whether this store tells `remindd migrate` that an instance uses the database: a
        /// daemon's does, the migration's own does not.
        public var announcesPresence = true

        public init(
            client: PostgresClient.Configuration, description: String, sinks: [String], leaseSeconds: Int = 30,
            instance: String = PostgresStateStore.defaultInstanceName()
        ) {
            self.client = client
            self.description = description
            self.sinks = sinks
            self.leaseSeconds = leaseSeconds
            self.instance = instance
        }
    }

    public nonisolated let daemonStartedAt: Date
    public let scheduleChanged = AsyncSignal()
    let options: Options
    /// The pool requests use now: replaced by a fresh one when the database is back after an
    /// outage (`PostgresStateStore+Health.swift`).
    var client: PostgresClient { pool.withLock { $0.client } }
    let logger: Logger
    let outboxSignals: [String: AsyncSignal]
    let state: Mutex<LocalState>
    private let onWaiting: @Sendable (String) -> Void
    private let onReady: @Sendable () -> Void
    /// Open once the first connection and the migration are done: until then a request waits
    /// for it (within `operationTimeout`), unless an attempt has failed.
    let readyLatch = AsyncLatch()
    private let background = Mutex<Task<Void, Never>?>(nil)
    let health = Mutex(DatabaseHealth<Waiter>())
    /// Wakes the health loop for a probe, and the watch loop when operations start.
    let probeWanted = AsyncSignal()
    let operationsStarted = AsyncSignal()
    /// Wakes the LISTEN loop when the database is back.
    let recovered = AsyncSignal()
    /// The pool's configuration, for the pools that replace it.
    let clientConfiguration: PostgresClient.Configuration
    let pool: Mutex<Pool>
    let pools: (stream: AsyncStream<Pool>, continuation: AsyncStream<Pool>.Continuation)
    /// The health probe's connection settings, made at its first use.
    let probeSettings = Mutex<PostgresConnection.Configuration?>(nil)

    /// Answers an operation given up on: the database went down, or its deadline passed.
    typealias Waiter = @Sendable (any Error) -> Void

    struct LocalState {
        var policy: ReminderPolicy
        var suppressed = 0
        var delivered = 0
        var statistics: StoreStatistics?
        var statisticsAt: ContinuousClock.Instant?
        /// The events this instance's dispatchers hold (claimed, not yet completed or released):
        /// only their leases are renewed. A claim whose answer never reached a dispatcher (its
        /// request timed out after the server leased) is not here, so its lease runs out and
        /// any instance takes the event again.
        /// With each its outbox row's `seq` (see `stopHolding`).
        var held: [HeldEvent: Int64] = [:]
        /// Events claimed for each sink ahead of its dispatcher's asking (oldest first), and
        /// the most that dispatcher asked for at once.
        var ahead: [String: [AheadEvent]] = [:]
        var widest: [String: Int] = [:]
        /// Per sink, the claim cursor: the next claim looks after this outbox row (see
        /// `lease`), and when the last look from the oldest row again was.
        var claimedThrough: [String: Int64] = [:]
        var lookedFromOldest: [String: ContinuousClock.Instant] = [:]
        /// Per sink, how many times the cursor was moved back (a claim running meanwhile
        /// does not move it forward).
        var cursorLowered: [String: Int] = [:]
        /// Completions waiting for the next group-committed delete, and whether one runs.
        var completing: [(HeldEvent, CheckedContinuation<Void, Never>)] = []
        var flushing = false
        /// Changes waiting for the next group-committed transaction, and whether one runs.
        var updates: [PendingUpdate] = []
        var updating = false
    }

    struct HeldEvent: Hashable {
        var eventID: String
        var sink: String
    }

    public init(
        options: Options, policy: ReminderPolicy, now: Date, logger: Logger,
        onWaiting: @escaping @Sendable (String) -> Void = { _ in }, onReady: @escaping @Sendable () -> Void = {}
    ) {
        var client = options.client
        client.options.maximumConnections = max(client.options.maximumConnections, 2)
        client.options.additionalStartupParameters = StatementTimeout.startupParameters(
            client.options.additionalStartupParameters, limit: options.operationTimeout)
        self.options = options
        self.clientConfiguration = client
        let first = Pool(PostgresClient(configuration: client, backgroundLogger: logger))
        let pools = AsyncStream.makeStream(of: Pool.self)
        pools.continuation.yield(first)
        self.pool = Mutex(first)
        self.pools = pools
        self.logger = logger
        self.daemonStartedAt = now
        self.outboxSignals = Dictionary(uniqueKeysWithValues: options.sinks.map { ($0, AsyncSignal()) })
        self.state = Mutex(LocalState(policy: policy))
        self.onWaiting = onWaiting
        self.onReady = onReady
    }

    public static func defaultInstanceName() -> String {
        let host = ProcessInfo.processInfo.hostName
        return "\(host):\(getpid()):\(UInt32.random(in: 0...UInt32.max))"
    }

    public var policy: ReminderPolicy { state.withLock { $0.policy } }

    // MARK: - Lifetime

    /// Runs the pool; connects, migrates and recomputes due times if the policy's timing
    /// changed; then serves notifications and lease renewals, and watches the database's
    /// health, until shutdown. Graceful shutdown reaches the store after the services that
    /// use it stopped: it gives back the events claimed ahead for them, then closes the pool.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.runPools() }
            group.addTask {
                await cancelWhenGracefulShutdown {
                    await withDiscardingTaskGroup { work in
                        work.addTask { await self.watchLoop() }
                        work.addTask {
                            guard await self.connect() else { return }
                            self.readyLatch.open()
                            self.onReady()
                            await withDiscardingTaskGroup { loops in
                                loops.addTask { await self.healthLoop() }
                                loops.addTask { await self.listenLoop() }
                                loops.addTask { await self.renewLeasesLoop() }
                                loops.addTask { await self.tickLoop() }
                                loops.addTask { await self.sumOutcomesLoop() }
                            }
                        }
                    }
                }
                await self.releaseClaimedAhead()
                self.closePools()
            }
        }
    }

    /// Waits for the database with backoff, then migrates; false when cancelled first. Each
    /// attempt is a probe on a connection of its own, which fails as soon as the server says
    /// no (refused, no socket, authentication failed): requests waiting for the first
    /// connection are answered then, and later ones refused until an attempt succeeds.
    private func connect() async -> Bool {
        while !Task.isCancelled {
            let began = ContinuousClock.now
            health.withLock { $0.probeStarted() }
            let failure: String
            switch await probe() {
            case .reached:
                do {
                    let applied = try await PostgresSchema.migrate(client, logger: logger)
                    if let version = applied.last {
                        logger.notice("database schema migrated to version \(version) (\(options.description))")
                    }
                    // A daemon waits for a migration into its database to finish; the
                    // migration's own stores read and write the marker themselves.
                    if options.announcesPresence, let marker = try await unfinishedMigration() {
                        throw UnfinishedMigration(marker: marker)
                    }
                    try await recomputeIfPolicyChanged()
                    health.withLock {
                        _ = $0.probeReached(startedAt: began)
                        $0.started()
                    }
                    return true
                } catch {
                    failure = Self.describe(error)
                }
            case .failed(let reason):
                failure = reason
            }
            let delay = failed(failure)
            onWaiting("waiting for PostgreSQL at \(options.description): \(failure)")
            logger.warning("PostgreSQL at \(options.description) not usable yet, retrying in \(delay): \(failure)")
            try? await Task.sleep(for: delay)
        }
        return false
    }

    // MARK: - Users

    public func record(_ userID: UserID) async throws -> UserRecord? {
        try await database { try await self.loadRecord(userID, on: self.client) }
    }

    public func delete(
        _ userID: UserID, _ forget: @escaping @Sendable (UserRecord, ReminderPolicy) -> ForgetOutcome
    ) async throws -> ForgetOutcome? {
        let policy = self.policy
        let outcome = try await transaction { connection -> ForgetOutcome? in
            try await self.lockUser(userID, on: connection)
            let rows = try await connection.query(
                """
                DELETE FROM remindd_users WHERE user_id = \(userID.rawValue)
                RETURNING doc, \(unescaped: Self.countedColumns)
                """, logger: self.logger)
            var document: String?
            var counts = CounterDeltas()
            for try await (text, open, pending, conditions, hour) in rows.decode(
                (String, Bool, Bool, Int16, Int16?).self)
            {
                document = text
                counts.move(from: CountedColumns((open, pending, conditions, hour)), to: nil)
            }
            guard let document else { return nil }
            try await self.deleteOlderHistory(of: userID, on: connection)
            try await Self.addCounts(counts, on: connection, logger: self.logger)
            guard let record = try? UserRecord(json: Array(document.utf8)) else {
                return ForgetOutcome(userID: userID, closed: nil)
            }
            let outcome = forget(record, policy)
            try await self.insertOutcomes(outcome.outcomes, on: connection)
            return outcome
        }
        if outcome != nil { changed(wakeEarlier: false, events: false) }
        return outcome
    }

    public func pushAddress(for userID: UserID) async throws -> PushAddress? {
        try await record(userID)?.device.push
    }

    public func markUnreachable(_ userID: UserID, token: String, reason: String, at date: Date) async throws {
        let (policy, started) = (self.policy, daemonStartedAt)
        try await transaction { connection in
            try await self.lockUser(userID, on: connection)
            guard let row = try await self.lockedRow(userID, on: connection) else { return }
            var record = row.record
            guard record.device.markUnreachable(token: token, reason: reason, at: date.millisecondPrecision) else {
                return
            }
            try await self.write(
                [(record, ScheduleColumns(record.schedule, policy: policy, daemonStartedAt: started))],
                before: [userID: row], on: connection)
        }
    }

    /// Nothing to move: every write is committed where it stays.
    public func checkpoint(snapshot: Bool) async throws {}

    /// Ends a store started by `startInBackground`. In the daemon the store is a service: its
    /// pool closes when `run()` ends, after the services that use the store stopped.
    public func close() async {
        let task = background.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        // Before the pool ends with the task: as at graceful shutdown.
        if task != nil { await releaseClaimedAhead() }
        task?.cancel()
        await task?.value
    }

    /// Runs the store outside a service group (tools and tests); `close` ends it.
    public func startInBackground() {
        background.withLock { task in
            guard task == nil else { return }
            task = Task { try? await self.run() }
        }
    }
}
