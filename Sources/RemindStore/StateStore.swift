import Foundation
import RemindCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The durable state of every user: the policy applied to reports and due times, with the
/// write-ahead log behind every acknowledgement and the per-user JSON files behind it.
///
/// The shape follows DESIGN §2 "Durable and fast":
/// - a report that changes a user is appended to the log (group-committed) before the reply;
/// - the user files are written behind it by checkpoints: temp files, one `syncfs`, renames,
///   another `syncfs`, so a file is never torn;
/// - a snapshot of every user's schedule and the outbox lets start-up skip reading the files;
///   log segments are deleted only once a snapshot covers them.
/// Recovery after `kill -9` is snapshot + log replay, which gives the state a full scan of the
/// files plus the log would.
///
/// One actor: every user's changes are serialised per user (see `withUser`), and records are
/// installed in memory only once durable, so a failed write (full disk) changes nothing.
public actor StateStore {
    public struct Options: Sendable {
        public var directory: String
        public var sinks: [String]
        /// Clean records kept in memory; dirty ones (not yet checkpointed) always are.
        public var cachedRecords: Int

        public init(directory: String, sinks: [String], cachedRecords: Int = 10_000) {
            self.directory = directory
            self.sinks = sinks
            self.cachedRecords = cachedRecords
        }
    }

    public nonisolated let directory: String
    public nonisolated let daemonStartedAt: Date
    let files: UserFiles
    let lock: StateLock
    let wal: WriteAheadLog
    let notice: @Sendable (StoreNotice) -> Void
    let cachedRecords: Int
    public internal(set) var policy: ReminderPolicy
    public nonisolated let summary: OpenSummary

    var schedules: ScheduleTable
    var index = ScheduleIndex()
    var cache: [UserID: UserRecord] = [:]
    /// Users whose record changed since their file was last written, with a version that
    /// tells a checkpoint whether the record changed again while it was writing.
    var dirty: [UserID: UInt64] = [:]
    var version: UInt64 = 0
    /// The encoding of dirty records whose change was logged: the log line carried these
    /// bytes, and the checkpoint writes them to the user's file instead of encoding again.
    var encoded: [UserID: [UInt8]] = [:]
    var outbox: Outbox
    /// Events sinks gave up on, oldest first.
    var deadLetters: [DeadLetter] = []
    var busy: Set<UserID> = []
    var waiters: [UserID: [CheckedContinuation<Void, Never>]] = [:]
    var checkpointing = false
    /// Log appends not yet installed in memory, by ticket; see `logged`.
    var appendTickets: UInt64 = 0
    var inFlight: Set<UInt64> = []
    var drainWaiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    /// Events every sink finished with since start.
    var eventsCompleted = 0
    /// Suppressions recorded since start.
    public internal(set) var suppressedTotal = 0
    public nonisolated let scheduleChanged = AsyncSignal()
    nonisolated let outboxSignals: [String: AsyncSignal]

    /// Opens (creating if needed) the state directory: takes the lock, loads the snapshot or
    /// scans the files, and replays the log.
    public init(
        options: Options, policy: ReminderPolicy, now: Date, notice: @escaping @Sendable (StoreNotice) -> Void
    ) throws(StoreError) {
        directory = options.directory
        daemonStartedAt = now
        self.policy = policy
        self.notice = notice
        cachedRecords = options.cachedRecords
        try FileIO.makeDirectories(options.directory)
        lock = try StateLock(directory: options.directory)
        files = UserFiles(directory: options.directory)
        let cleared = try files.prepare()
        if cleared > 0 { notice(.clearedTemporaryFiles(count: cleared)) }
        outboxSignals = Dictionary(uniqueKeysWithValues: options.sinks.map { ($0, AsyncSignal()) })

        let journal = options.directory + "/journal"
        var outbox = Outbox(sinks: options.sinks)
        var deadLetters: [DeadLetter] = []
        var schedules = ScheduleTable()
        var firstSegment: UInt64 = 0
        var fromSnapshot = false
        if let bytes = try FileIO.read(options.directory + "/" + Snapshot.outboxFileName),
            let pending = Snapshot(bytes: bytes)
        {
            for (event, sinks) in pending.events { outbox.enqueue(event, sinks: sinks) }
            deadLetters = pending.deadLetters
        }
        if let bytes = try FileIO.read(options.directory + "/" + Snapshot.fileName),
            let snapshot = Snapshot(bytes: bytes)
        {
            fromSnapshot = true
            firstSegment = snapshot.segment
            schedules.reserveCapacity(snapshot.schedules.count)
            for schedule in snapshot.schedules { schedules[schedule.userID] = schedule }
        } else {
            let files = self.files
            let records = try files.scan { path, reason in
                notice(.quarantined(path: path, movedTo: path, reason: reason))
            }
            for record in records { schedules[record.userID] = record.schedule }
            notice(.scannedAllFiles(users: records.count))
        }

        var replayed = 0
        var cache: [UserID: UserRecord] = [:]
        var dirty: [UserID: UInt64] = [:]
        let files = self.files
        let cut = try WriteAheadLog.replay(directory: journal, from: firstSegment) { line in
            guard let entry = LogEntry(line: line) else { return false }
            replayed += 1
            switch entry {
            case .put(let record, let events):
                // The log is newer than any file or snapshot: its record wins, and the file
                // is rewritten at the next checkpoint (which also repairs a file torn by a
                // crash during the last one).
                schedules[record.userID] = record.schedule
                cache[record.userID] = record
                dirty[record.userID] = 0
                for (event, sinks) in events { outbox.enqueue(event, sinks: sinks) }
            case .delete(let userID):
                schedules[userID] = nil
                cache[userID] = nil
                dirty[userID] = nil
                try? files.remove(userID)
            case .ack(let eventID, let sink):
                outbox.complete(eventID, sink: sink)
            case .dead(let letter):
                deadLetters.removeAll { $0.event.id == letter.event.id && $0.sink == letter.sink }
                deadLetters.append(letter)
            case .replay(let eventID, let sink):
                if let index = deadLetters.firstIndex(where: { $0.event.id == eventID && $0.sink == sink }) {
                    outbox.requeue(deadLetters.remove(at: index).event, sink: sink)
                }
            }
            return true
        }
        if cut > 0 { notice(.cutTornLogTail(bytes: cut)) }
        wal = try WriteAheadLog(directory: journal)
        self.schedules = schedules
        self.cache = cache
        self.dirty = dirty
        self.outbox = outbox
        self.deadLetters = deadLetters
        summary = OpenSummary(
            users: schedules.count, fromSnapshot: fromSnapshot, replayedEntries: replayed,
            pendingEvents: outbox.entries.count)
        var index = ScheduleIndex()
        index.reserveCapacity(schedules.count)
        schedules.forEach { schedule in
            index.set(schedule.userID, wake: policy.nextWakeAt(schedule, daemonStartedAt: now))
        }
        self.index = index
    }

    /// Runs `body` with the user to itself: reports, deliveries and deletes of one user
    /// happen one after the other, in arrival order; different users proceed in parallel.
    func withUser<T>(_ userID: UserID, _ body: () async throws -> T) async throws -> T {
        if busy.contains(userID) {
            // Ownership passes directly from the releasing task to this one.
            await withCheckedContinuation { waiters[userID, default: []].append($0) }
        } else {
            busy.insert(userID)
        }
        defer { release(userID) }
        return try await body()
    }

    func release(_ userID: UserID) {
        if var queue = waiters[userID], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[userID] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            busy.remove(userID)
        }
    }

    /// The user's record: from memory, else from their file. An unreadable file is
    /// quarantined and the user treated as unknown.
    ///
    /// The caller must own the user (`withUser`): the file is read and decoded off the actor,
    /// so other users' reports proceed meanwhile (reading and parsing was most of the actor's
    /// time under a report load whose users did not fit the cache), and ownership guarantees
    /// nothing changes this user's record in between.
    func load(_ userID: UserID) async throws(StoreError) -> UserRecord? {
        if let record = cache[userID] { return record }
        guard schedules[userID] != nil else { return nil }
        let read = try await Self.read(userID, from: files)
        return try adopt(read, of: userID)
    }

    /// Reads users' files, on the calling (non-actor) task.
    nonisolated static func read(
        _ userID: UserID, from files: UserFiles
    ) async throws(StoreError)
        -> UserFiles.ReadResult
    {
        try files.read(userID)
    }

    /// Reads many users' files off the actor, on threads of its own.
    ///
    /// A file not in the page cache costs a disk round trip, and the cooperative pool has one
    /// thread per core: 16 threads keep the disk busy instead (`make bench` W2 ran at about
    /// 1,200 events/s while a million due users' files were read cold two at a time).
    nonisolated static func read(
        _ userIDs: [UserID], from files: UserFiles
    ) async throws(StoreError)
        -> [UserFiles.ReadResult]
    {
        guard userIDs.count > 32 else {
            return try userIDs.map { userID throws(StoreError) in try files.read(userID) }
        }
        let batch = ReadBatch(count: userIDs.count, workers: min(16, userIDs.count / 32))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for worker in 0..<batch.workers {
                Thread.detachNewThread {
                    var read: [(Int, Result<UserFiles.ReadResult, StoreError>)] = []
                    for index in stride(from: worker, to: userIDs.count, by: batch.workers) {
                        read.append((index, Result { () throws(StoreError) in try files.read(userIDs[index]) }))
                    }
                    if batch.finish(read) { continuation.resume() }
                }
            }
        }
        return try batch.results()
    }

    /// Takes what reading a user's file gave into memory.
    func adopt(_ read: UserFiles.ReadResult, of userID: UserID) throws(StoreError) -> UserRecord? {
        if let record = cache[userID] { return record }
        switch read {
        case .missing:
            return nil
        case .record(let record):
            cache[userID] = record
            evictIfNeeded()
            return record
        case .quarantined(let movedTo, let reason):
            notice(.quarantined(path: files.path(for: userID), movedTo: movedTo, reason: reason))
            schedules[userID] = nil
            index.set(userID, wake: nil)
            return nil
        }
    }

    /// Makes a durable record current in memory and reschedules the user.
    func install(_ record: UserRecord, encoded json: [UInt8]? = nil) {
        version += 1
        cache[record.userID] = record
        dirty[record.userID] = version
        encoded[record.userID] = json
        let schedule = record.schedule
        schedules[record.userID] = schedule
        let wake = policy.nextWakeAt(schedule, daemonStartedAt: daemonStartedAt)
        let previous = index.next?.wake
        index.set(record.userID, wake: wake)
        if let wake, previous == nil || wake < previous! {
            scheduleChanged.signal()
        }
        evictIfNeeded()
    }

    private func evictIfNeeded() {
        guard cache.count > cachedRecords + dirty.count else { return }
        var excess = cache.count - dirty.count - cachedRecords * 9 / 10
        for userID in cache.keys where excess > 0 && dirty[userID] == nil && !busy.contains(userID) {
            cache[userID] = nil
            excess -= 1
        }
    }

    /// Puts events in the outbox (they are already durable in the log line that carried them)
    /// and wakes the sinks' dispatchers.
    func enqueue(_ events: [OutboxEvent]) {
        for event in events {
            outbox.enqueue(event, sinks: outbox.sinks)
        }
        if !events.isEmpty {
            for signal in outboxSignals.values { signal.signal() }
        }
    }

    /// Appends lines to the log and, once they are durable, runs `apply` (which installs
    /// what they describe). A checkpoint can wait for every append begun before a point to be
    /// applied (`drain`), so it never snapshots around a change that is durable in a log
    /// segment it is about to delete but not yet in memory.
    func logged<T>(_ lines: [[UInt8]], then apply: () throws -> T) async throws -> T {
        appendTickets += 1
        let ticket = appendTickets
        inFlight.insert(ticket)
        defer {
            inFlight.remove(ticket)
            let oldest = inFlight.min() ?? UInt64.max
            drainWaiters.removeAll { waiter in
                guard waiter.ticket < oldest else { return false }
                waiter.continuation.resume()
                return true
            }
        }
        try await wal.append(batch: lines)
        return try apply()
    }

    /// Returns once every append with a ticket up to `ticket` has been applied or failed.
    func drain(upTo ticket: UInt64) async {
        guard let oldest = inFlight.min(), oldest <= ticket else { return }
        await withCheckedContinuation { drainWaiters.append((ticket, $0)) }
    }

    /// The log line for a changed record, and the record's encoding inside it.
    func logLine(_ record: UserRecord, events: [OutboxEvent]) -> (line: [UInt8], json: [UInt8]) {
        let json = record.jsonBytes
        return (LogEntry.putLine(recordJSON: json, events: events.map { ($0, outbox.sinks) }), json)
    }
}

/// What the threads of one `StateStore.read` call hand back.
private final class ReadBatch: Sendable {
    let workers: Int
    private let state: Mutex<(results: [Result<UserFiles.ReadResult, StoreError>?], running: Int)>

    init(count: Int, workers: Int) {
        self.workers = workers
        state = Mutex((Array(repeating: nil, count: count), workers))
    }

    /// Stores one thread's reads; true for the last thread to finish.
    func finish(_ read: [(Int, Result<UserFiles.ReadResult, StoreError>)]) -> Bool {
        state.withLock { state in
            for (index, result) in read { state.results[index] = result }
            state.running -= 1
            return state.running == 0
        }
    }

    func results() throws(StoreError) -> [UserFiles.ReadResult] {
        let results = state.withLock { $0.results }
        return try results.map { result throws(StoreError) in try result!.get() }
    }
}
