import Foundation
import NIOPosix
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

/// The files backend of `StateStore`: the per-user JSON files of the state directory, with a
/// write-ahead log behind every acknowledgement.
///
/// Durable and fast (docs/operations.md "Storage and durability", ARCHITECTURE.md):
/// - a report that changes a user is appended to the log (group-committed) before the reply;
/// - the user files are written behind it by checkpoints (temp files made durable, then
///   swapped in), so a file is never torn;
/// - a snapshot of every user's schedule and the outbox lets start-up skip reading the files;
///   log segments are deleted only once a snapshot covers them (`Recovery`).
///
/// This actor only coordinates; each job is a type of its own: `UserLocks` serialises each
/// user's changes, `RecordCache` holds records, `LogTickets` tracks appends not yet applied,
/// `Schedules` holds schedules, wake-ups and counts, `Outbox` and `DeadLetterList` the
/// events. Records are installed in memory only once durable, so a failed write (full disk)
/// changes nothing. Blocking file I/O other than the log's runs on the injected `io` pool.
public actor FileStateStore: PartitionableStore {
    public struct Options: Sendable {
        public var directory: String
        public var sinks: [String]
        /// Clean records kept in memory; dirty ones (not yet checkpointed) always are.
        public var cachedRecords: Int
        /// Where blocking file I/O runs (cold reads, checkpoints), off the cooperative pool.
        public var io: NIOThreadPool
        /// The signals this store raises, given when several stores are parts of one
        /// (`PartitionedStateStore`): its one scheduler and dispatchers wait on them.
        var signals: Signals

        public init(
            directory: String, sinks: [String], cachedRecords: Int = 10_000, io: NIOThreadPool = .singleton
        ) {
            self.directory = directory
            self.sinks = sinks
            self.cachedRecords = cachedRecords
            self.io = io
            self.signals = Signals(sinks: sinks)
        }
    }

    typealias Signals = StoreSignals

    public nonisolated let directory: String
    public nonisolated let daemonStartedAt: Date
    public nonisolated let summary: OpenSummary
    public nonisolated let scheduleChanged: AsyncSignal
    nonisolated let outboxSignals: [String: AsyncSignal]
    nonisolated let files: UserFiles
    nonisolated let io: NIOThreadPool
    nonisolated let outcomeLog: OutcomeLog
    let lock: StateLock
    let wal: WriteAheadLog
    let notice: @Sendable (StoreNotice) -> Void

    var schedules: Schedules
    var cache: RecordCache
    /// Fired changes durable in the log, not yet in their users' files.
    var pendingFires = PendingFires()
    /// Repeats the daemon answered and handed over, not yet in their users' files.
    var pendingRepeats = PendingRepeatFolds()
    var locks = UserLocks()
    /// The IDs in byte order while users are enumerated.
    var userIndex = UserIndex()
    var tickets = LogTickets()
    var outbox: Outbox
    var deadLetterList: DeadLetterList
    var checkpointing = false
    /// Events every sink finished with since start.
    var eventsCompleted = 0
    /// Suppressions recorded since start.
    var suppressedTotal = 0
    /// Every closed episode, for `/v1/stats` (docs/outcomes.md).
    var outcomeStatistics = OutcomeStatistics()
    /// Closed episodes durable in the log but not yet appended to the outcomes log.
    var pendingOutcomes: [EpisodeOutcome] = []
    /// Closed episodes of the replayed log, until the outcomes log is read and tells which of
    /// them it holds already.
    var replayedOutcomes: [EpisodeOutcome] = []
    var outcomesLoading: Task<Void, any Error>?
    /// The closed episodes the outcomes log holds, while a migration imports into it.
    var importedOutcomes: Set<EpisodeOutcome>?

    public var policy: ReminderPolicy { schedules.policy }

    /// Opens (creating if needed) the state directory: takes the lock, loads the snapshot or
    /// scans the files, and replays the log.
    public init(
        options: Options, policy: ReminderPolicy, now: Date, notice: @escaping @Sendable (StoreNotice) -> Void
    ) throws(StoreError) {
        directory = options.directory
        daemonStartedAt = now
        self.notice = notice
        io = options.io
        try FileIO.makeDirectories(options.directory)
        lock = try StateLock(directory: options.directory)
        try PartLayout.check(options.directory, parts: 1)
        files = UserFiles(directory: options.directory)
        let cleared = try files.prepare()
        if cleared > 0 { notice(.clearedTemporaryFiles(count: cleared)) }
        scheduleChanged = options.signals.scheduleChanged
        outboxSignals = options.signals.outbox
        try Recovery.migrateLogDirectory(in: options.directory)
        let walDirectory = options.directory + "/" + Recovery.walDirectoryName
        var recovered = try Recovery.run(
            files: files, walDirectory: walDirectory, sinks: options.sinks, notice: notice)
        wal = try WriteAheadLog(directory: walDirectory)
        var cache = RecordCache(capacity: options.cachedRecords)
        for record in recovered.records.values { cache.install(record) }
        self.cache = cache
        for (userID, changes) in recovered.fires {
            for change in changes { pendingFires.add(change) }
            // The replayed record carries them (`Recovery` applied them).
            if recovered.records[userID] != nil { pendingFires.markInRecord(userID) }
        }
        outbox = recovered.outbox
        deadLetterList = recovered.deadLetters
        summary = recovered.summary
        // Taken, not shared: the schedules' first change would otherwise copy the whole table.
        var table = PackedSchedules()
        swap(&table, &recovered.schedules)
        schedules = Schedules(table: consume table, policy: policy, daemonStartedAt: now)
        outcomeLog = try OutcomeLog(stateDirectory: options.directory)
        replayedOutcomes = recovered.outcomes
    }

    /// Runs `body` with the user to itself: reports, deliveries and deletes of one user
    /// happen one after the other, in arrival order; different users proceed in parallel.
    func withUser<T>(_ userID: UserID, _ body: () async throws -> T) async throws -> T {
        if !lockUser(userID) {
            // Ownership passes directly from the releasing task to this one.
            await withCheckedContinuation { locks.wait(for: userID, $0) }
        }
        defer { unlockUser(userID) }
        return try await body()
    }

    /// Takes the user if nobody holds it.
    func lockUser(_ userID: UserID) -> Bool {
        locks.tryLock(userID)
    }

    /// Hands the user to the next waiter, or frees it.
    func unlockUser(_ userID: UserID) {
        locks.unlock(userID)
    }

    /// The user's record: from memory, else from their file. An unreadable file is
    /// quarantined and the user treated as unknown.
    ///
    /// The caller must own the user (`withUser`): the file is read and decoded off the actor,
    /// so other users' reports proceed meanwhile (reading and parsing was most of the actor's
    /// time under a report load whose users did not fit the cache), and ownership guarantees
    /// nothing changes this user's record in between.
    func load(_ userID: UserID) async throws(StoreError) -> UserRecord? {
        if let record = cache[userID] { return materialized(record) }
        guard schedules[userID] != nil else { return nil }
        let read = try await files.read([userID], on: io)
        return try adopt(read[0], of: userID).map(materialized)
    }

    /// The record with what was fired from the user's schedule row and the repeats the daemon
    /// handed over folded in (then dirty, for the next checkpoint to write). Every path that
    /// reads a record for a change goes through this, so a change never starts from a record
    /// that lacks earlier fires or repeats.
    func materialized(_ record: UserRecord) -> UserRecord {
        let fires = pendingFires.unapplied(record.userID)
        let pending = pendingRepeats.take(record.userID)
        guard fires != nil || pending != nil else { return record }
        var record = record
        if let fires {
            // The row holds them already; the changes stay pending until the record is written.
            for change in fires { record.apply(change) }
            pendingFires.markInRecord(record.userID)
        }
        if let pending { record.fold(pending) }
        cache.install(record)
        // The schedule row learns the repeats' `lastReportAt` here, before any snapshot; only a
        // heartbeat depends on it, and one due earlier meanwhile finds nothing to do (`fire`).
        if pending != nil { schedules.noteRepeat(of: record.userID, lastReportAt: record.lastReportAt) }
        return record
    }

    /// Takes what reading a user's file gave into memory.
    func adopt(_ read: UserFiles.ReadResult, of userID: UserID) throws(StoreError) -> UserRecord? {
        if let record = cache[userID] { return record }
        switch read {
        case .missing:
            return nil
        case .record(let record):
            cache.adopt(record)
            evictIfNeeded()
            return record
        case .quarantined(let movedTo, let reason):
            notice(.quarantined(path: files.path(for: userID), movedTo: movedTo, reason: reason))
            evict(userID)
            return nil
        }
    }

    /// Drops everything held in memory for a user who is gone (deleted, or their file
    /// quarantined): their record, schedule row, repeats and fired changes.
    func evict(_ userID: UserID) {
        cache.remove(userID)
        pendingRepeats.remove(userID)
        schedules.remove(userID)
        pendingFires.remove(userID)
    }

    /// Makes a durable record current in memory and reschedules the user.
    func install(_ record: UserRecord, encoded json: [UInt8]? = nil) {
        cache.install(record, encoded: json)
        if !schedules.table.contains(record.userID) { userIndex.noteAdded(record.userID) }
        if schedules.set(record.schedule) { scheduleChanged.signal() }
        evictIfNeeded()
    }

    private func evictIfNeeded() {
        let locks = self.locks
        cache.evictIfNeeded { locks.isHeld($0) }
    }

    /// The sinks each event goes to, by its audience and the policy's channels: decided once,
    /// for the log line and the outbox alike.
    func route(_ events: [OutboxEvent]) -> [Outbox.Routed] {
        let channels = policy.configuration.channels
        return events.map { ($0, channels.sinks(for: $0.audience, among: outbox.sinks)) }
    }

    /// Puts events in the outbox (they are already durable in the log line that carried them)
    /// and wakes the sinks' dispatchers.
    func enqueue(_ events: [Outbox.Routed]) {
        for (event, sinks) in events {
            outbox.enqueue(event, sinks: sinks)
        }
        if !events.isEmpty {
            for signal in outboxSignals.values { signal.signal() }
        }
    }

    /// Appends lines to the log and, once they are durable, runs `apply` (which installs
    /// what they describe); see `LogTickets` for why a checkpoint can wait for this.
    func logged<T>(_ lines: [[UInt8]], then apply: () throws -> T) async throws -> T {
        let ticket = tickets.begin()
        defer { tickets.end(ticket) }
        try await wal.append(batch: lines)
        return try apply()
    }

    /// Returns once every append with a ticket up to `ticket` has been applied or failed.
    func waitUntilApplied(upTo ticket: UInt64) async {
        guard !tickets.applied(upTo: ticket) else { return }
        await withCheckedContinuation { tickets.waitUntilApplied(upTo: ticket, $0) }
    }

    /// The log line for a changed record, which takes the next revision: a `change`, the delta
    /// from `base` (from nothing for a new user). When the delta keeps nothing of `base` (a new
    /// user, a short history) its bytes are the user file's, and come back for the checkpoint
    /// to write as they are.
    ///
    /// A delta keeps the log's bytes in proportion to the change, not to the history: a user
    /// with a long history cost a line of kilobytes per change when each logged its record.
    func logLine(
        _ record: inout UserRecord, after base: UserRecord?, events: [Outbox.Routed],
        outcomes: [EpisodeOutcome] = []
    ) -> (line: [UInt8], json: [UInt8]?) {
        record.revision = (base?.revision ?? 0) + 1
        let delta = RecordDelta(from: base, to: record)
        let json = delta.jsonBytes
        return (
            LogEntry.recordLine("change", json: json, events: events, outcomes: outcomes), delta.isWhole ? json : nil
        )
    }

    /// The path of a user's file, for tests and support.
    public nonisolated func userFilePath(_ userID: UserID) -> String { files.path(for: userID) }
}
