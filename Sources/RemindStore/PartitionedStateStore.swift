import Foundation
import RemindCore
import Synchronization

/// The files backend divided into parts (`storage.parts`, docs/operations.md): each part a
/// whole `FileStateStore` in `part-<i>-of-<n>/` of the state directory.
public typealias PartitionedStateStore = PartitionedStore<FileStateStore>

/// Any store divided into independent parts by a stable hash of the user ID (`PartLayout`): a
/// user's operations go to their part, and whatever spans users (due fires, counts, stats,
/// dead letters, the outbox) is asked of every part and merged. For the files backend
/// (`PartitionedStateStore`) each part has its own actor, log, group commit, snapshot, outbox
/// and checkpoints, so reports of users in different parts proceed on different cores and no
/// one actor is on every request's path.
///
/// This type holds no state of its own but the claims in flight. Each part keeps the
/// `StateStore` contract for its users, and no operation but `replayDeadLetters` spans parts,
/// so the whole keeps it too; what differs is stated where it does (`claimEvents`,
/// `replayDeadLetters`).
public final class PartitionedStore<Part: PartitionableStore>: StateStore {
    let parts: [Part]
    public let daemonStartedAt: Date
    public let scheduleChanged: AsyncSignal
    /// Where the whole lives, when it has a place of its own (the files backend's top
    /// directory, which holds what belongs to no part: the allocation, the migration marker).
    public let directory: String?
    /// Gives up what holds the whole besides its parts (the top directory's lock), after them.
    let releaseWhole: @Sendable () -> Void
    /// Which part each claimed event came from, until it is completed or released.
    private let claims = Mutex<[Claim: Int]>([:])
    /// The part the next claim starts with, so no part's events wait behind another's.
    private let nextPart = Atomic<Int>(0)
    /// The part the next fire pass gives the remainder of its limit first.
    private let nextFirePart = Atomic<Int>(0)
    private let outboxSignals: [String: AsyncSignal]

    private struct Claim: Hashable {
        var eventID: String
        var sink: String
    }

    /// A store over `parts`, which were opened with `signals` (one scheduler and one
    /// dispatcher per sink wait on them).
    public init(
        parts: [Part], daemonStartedAt: Date, signals: StoreSignals, directory: String? = nil,
        release: @escaping @Sendable () -> Void = {}
    ) {
        precondition(!parts.isEmpty, "a store in no part")
        self.parts = parts
        self.daemonStartedAt = daemonStartedAt
        self.scheduleChanged = signals.scheduleChanged
        self.outboxSignals = signals.outbox
        self.directory = directory
        self.releaseWhole = release
    }

    func part(of userID: UserID) -> Part { parts[PartLayout.index(of: userID, parts: parts.count)] }

    /// Runs `body` on every part at once and returns the results in the parts' order.
    private func onEveryPart<T: Sendable>(
        _ body: @escaping @Sendable (Int, Part) async throws -> T
    ) async throws -> [T] {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            for (index, part) in parts.enumerated() { group.addTask { (index, try await body(index, part)) } }
            var results = [T?](repeating: nil, count: parts.count)
            for try await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }

    private func onEveryPart<T: Sendable>(_ body: @escaping @Sendable (Int, Part) async -> T) async -> [T] {
        await withTaskGroup(of: (Int, T).self) { group in
            for (index, part) in parts.enumerated() { group.addTask { (index, await body(index, part)) } }
            var results = [T?](repeating: nil, count: parts.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }

    // MARK: One user: their part

    public var policy: ReminderPolicy { get async { await parts[0].policy } }

    public func setPolicy(_ policy: ReminderPolicy) async {
        _ = await onEveryPart { await $1.setPolicy(policy) }
    }

    public func update(
        _ userID: UserID, _ change: @escaping @Sendable (UserRecord?, ReminderPolicy) -> ReportOutcome
    ) async throws -> StoredReport {
        try await part(of: userID).update(userID, change)
    }

    /// Each part takes its users' changes as one batch of its own, all parts at once; a user's
    /// changes are all in one part, so their order holds. Parts commit independently: when one
    /// fails, what the others committed stays (the caller acknowledges none of it).
    public func update(batch changes: [UserChange]) async throws -> [Result<StoredReport, any Error>] {
        var byPart = [[Int]](repeating: [], count: parts.count)
        for (position, change) in changes.enumerated() {
            byPart[PartLayout.index(of: change.userID, parts: parts.count)].append(position)
        }
        let positions = byPart
        let perPart = try await onEveryPart { index, part in
            positions[index].isEmpty ? [] : try await part.update(batch: positions[index].map { changes[$0] })
        }
        var results = [Result<StoredReport, any Error>?](repeating: nil, count: changes.count)
        for (index, partResults) in perPart.enumerated() {
            for (position, result) in zip(positions[index], partResults) { results[position] = result }
        }
        return results.map { $0! }
    }

    public func record(_ userID: UserID) async throws -> UserRecord? {
        try await part(of: userID).record(userID)
    }

    /// The whole is its process's alone when every part is.
    public var isSoleWriter: Bool { parts.allSatisfy(\.isSoleWriter) }

    /// Each part takes its users' repeats, all parts at once.
    public func noteRepeats(_ repeats: [LoggedRepeats]) async throws {
        var byPart = [[LoggedRepeats]](repeating: [], count: parts.count)
        for logged in repeats { byPart[PartLayout.index(of: logged.userID, parts: parts.count)].append(logged) }
        let perPart = byPart
        _ = try await onEveryPart { index, part in
            if !perPart[index].isEmpty { try await part.noteRepeats(perPart[index]) }
        }
    }

    public func delete(
        _ userID: UserID, _ forget: @escaping @Sendable (UserRecord, ReminderPolicy) -> ForgetOutcome
    ) async throws -> ForgetOutcome? {
        try await part(of: userID).delete(userID, forget)
    }

    public func pushAddress(for userID: UserID) async throws -> PushAddress? {
        try await part(of: userID).pushAddress(for: userID)
    }

    public func markUnreachable(_ userID: UserID, token: String, reason: String, at date: Date) async throws {
        try await part(of: userID).markUnreachable(userID, token: token, reason: reason, at: date)
    }

    // MARK: Every user: every part, merged

    public func nextWakeAt() async -> Date? {
        await onEveryPart { await $1.nextWakeAt() }.compactMap { $0 }.min()
    }

    /// Fires every part's due users at once, `limit` divided among them: a part with fewer
    /// due leaves its share unused this pass, and the scheduler's next pass takes the rest
    /// (it passes again while anything is due). The remainder of the division goes to other
    /// parts each pass, so even a limit below the part count reaches every part. When a part
    /// fails (its disk is full), its users stay due and the error is thrown; what the other
    /// parts fired in that pass is durable and goes out, but is not in a summary (the
    /// scheduler's log lines and fired count miss it).
    public func fireDue(
        now: Date, limit: Int, pass: @escaping @Sendable ([UserSchedule], ReminderPolicy) -> FirePass
    ) async throws -> FireSummary {
        let count = parts.count
        let first = nextFirePart.add(1, ordering: .relaxed).oldValue % count
        let summaries = try await onEveryPart { index, part in
            let share = limit / count + ((index - first + count) % count < limit % count ? 1 : 0)
            return share > 0 ? try await part.fireDue(now: now, limit: share, pass: pass) : FireSummary()
        }
        return summaries.reduce(into: FireSummary()) {
            $0.changed += $1.changed
            $0.events += $1.events
            $0.suppressed += $1.suppressed
        }
    }

    public func pendingReminders(dueBefore: Date?, limit: Int) async -> [ScheduledReminder] {
        let all = await onEveryPart { await $1.pendingReminders(dueBefore: dueBefore, limit: limit) }.joined()
        return Array(all.sorted(by: ScheduledReminder.soonerThan).prefix(limit))
    }

    /// Every part's next IDs after the cursor, merged; only the first `limit` of them are read.
    public func users(after: UserID?, limit: Int) async throws -> [UserRecord] {
        var records: [UserRecord] = []
        var cursor = after
        while records.count < limit {
            let wanted = limit - records.count
            let next = cursor
            let userIDs = await onEveryPart { await $1.userIDs(after: next, limit: wanted) }.joined().sorted()
                .prefix(wanted)
            for userID in userIDs {
                if let record = try await part(of: userID).record(userID) { records.append(record) }
            }
            guard userIDs.count == wanted, let last = userIDs.last else { break }
            cursor = last
        }
        return records
    }

    public func statistics() async -> StoreStatistics {
        await onEveryPart { await $1.statistics() }.reduce(into: StoreStatistics()) { $0.add($1) }
    }

    public func stats(since: Date, until: Date) async -> StatsReport {
        let sources = await onEveryPart { await $1.outcomeSources() }
        var closed = OutcomeStatistics()
        for source in sources { closed.add(contentsOf: source.closed) }
        let sendTime = await policy.configuration.notification.sendTime
        return closed.report(since: since, until: until, sendTime: sendTime) { body in
            for source in sources {
                for episode in source.open { body(episode) }
            }
        }
    }

    public func checkpoint(snapshot: Bool) async throws {
        _ = try await onEveryPart { try await $1.checkpoint(snapshot: snapshot) }
    }

    public func close() async {
        _ = await onEveryPart { await $1.close() }
        releaseWhole()
    }

    // MARK: Dead letters: the event's user's part

    public func deadLetter(_ letter: DeadLetterRecord) async throws {
        try await part(of: letter.event.userID).deadLetter(letter)
    }

    public func deadLetters() async -> [DeadLetterRecord] {
        await onEveryPart { await $1.deadLetters() }.joined().sorted {
            ($0.deadLetteredAt, $0.event.id) < ($1.deadLetteredAt, $1.event.id)
        }
    }

    /// Each part replays its own, one after the other: when one fails (disk full), those
    /// before it stay replayed; calling again replays the rest (a replayed letter is no
    /// longer one).
    public func replayDeadLetters(ids: Set<String>?) async throws -> Int {
        var replayed = 0
        for part in parts { replayed += try await part.replayDeadLetters(ids: ids) }
        return replayed
    }

    // MARK: The outbox: every part's, one queue per sink

    /// Claims from the parts in turn, starting one further each time. Events of one user come
    /// in order (they are in one part); events of different parts interleave, which the
    /// contract allows (only one user's events are ordered for a sink).
    public func claimEvents(for sink: String, limit: Int) async -> [OutboxEvent] {
        let start = nextPart.add(1, ordering: .relaxed).oldValue
        var events: [OutboxEvent] = []
        for offset in 0..<parts.count where events.count < limit {
            let index = (start + offset) % parts.count
            let claimed = await parts[index].claimEvents(for: sink, limit: limit - events.count)
            guard !claimed.isEmpty else { continue }
            claims.withLock { claims in
                for event in claimed { claims[Claim(eventID: event.id, sink: sink)] = index }
            }
            events += claimed
        }
        return events
    }

    public func claimEvent(for sink: String) async -> OutboxEvent? {
        await claimEvents(for: sink, limit: 1).first
    }

    public func waitForEvents(for sink: String) async {
        await outboxSignals[sink]?.wait()
    }

    public func complete(_ eventID: String, sink: String) async {
        for part in owners(of: eventID, sink: sink) { await part.complete(eventID, sink: sink) }
    }

    public func release(_ eventID: String, sink: String) async {
        for part in owners(of: eventID, sink: sink) { await part.release(eventID, sink: sink) }
    }

    /// The part that handed the event out; every part when none did (completing an event a
    /// part does not hold changes nothing there).
    private func owners(of eventID: String, sink: String) -> [Part] {
        let index = claims.withLock { $0.removeValue(forKey: Claim(eventID: eventID, sink: sink)) }
        return index.map { [parts[$0]] } ?? parts
    }

    public func pendingEvents(for sink: String) async -> Int {
        await onEveryPart { await $1.pendingEvents(for: sink) }.reduce(0, +)
    }
}
