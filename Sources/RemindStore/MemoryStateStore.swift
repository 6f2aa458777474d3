import Foundation
import RemindCore

/// The smallest reading of the `StateStore` contract: everything in memory, nothing survives
/// the process, so "durable" means "applied". For tests of what sits above the store (the
/// scheduler, the API, the dispatchers) without a state directory, and as the plain statement
/// of what a backend does once its durability machinery is taken away.
///
/// Every method completes without suspending, so the actor alone serialises each user's
/// changes in arrival order.
public actor MemoryStateStore: PartitionableStore {
    public nonisolated let daemonStartedAt: Date
    public nonisolated let scheduleChanged: AsyncSignal
    private nonisolated let outboxSignals: [String: AsyncSignal]
    private var records: [UserID: UserRecord] = [:]
    private var schedule: Schedules
    private var outbox: Outbox
    private var letters = DeadLetterList()
    private var suppressed = 0
    private var completed = 0
    private var outcomes = OutcomeStatistics()
    /// The closed episodes themselves, as the outcomes log keeps them: what a migration copies.
    private var closedOutcomes: [EpisodeOutcome] = []
    private var marker: String?
    private var allocationState: AllocationState?

    /// `signals`: those of a divided store this one is a part of (`PartitionedStore`).
    public init(sinks: [String], policy: ReminderPolicy, now: Date, signals: StoreSignals? = nil) {
        let signals = signals ?? StoreSignals(sinks: sinks)
        daemonStartedAt = now
        outbox = Outbox(sinks: sinks)
        scheduleChanged = signals.scheduleChanged
        outboxSignals = signals.outbox
        schedule = Schedules(table: PackedSchedules(), policy: policy, daemonStartedAt: now)
    }

    public var policy: ReminderPolicy { schedule.policy }

    public func setPolicy(_ policy: ReminderPolicy) {
        schedule.setPolicy(policy)
        scheduleChanged.signal()
    }

    public func update(
        _ userID: UserID, _ change: @escaping @Sendable (UserRecord?, ReminderPolicy) -> ReportOutcome
    ) -> StoredReport {
        let outcome = change(records[userID], policy)
        guard outcome.refusal == nil else { return StoredReport(outcome: outcome) }
        install(outcome.record, events: outcome.events.map(OutboxEvent.init))
        keepOutcomes(outcome.outcomes)
        return StoredReport(outcome: outcome)
    }

    /// The reference reading: each change as `update`, in order. Nothing can fail.
    public func update(batch changes: [UserChange]) -> [Result<StoredReport, any Error>] {
        changes.map { .success(update($0.userID, $0.change)) }
    }

    public func record(_ userID: UserID) -> UserRecord? { records[userID] }

    public nonisolated var isSoleWriter: Bool { true }

    public func noteRepeats(_ repeats: [LoggedRepeats]) {
        for logged in repeats {
            guard var record = records[logged.userID] else { continue }
            record.fold(logged)
            install(record, events: [])
        }
    }

    /// Sorts every ID for every page: the plain statement of the order, not a fast one.
    public func users(after: UserID?, limit: Int) -> [UserRecord] {
        userIDs(after: after, limit: limit).compactMap { records[$0] }
    }

    public func userIDs(after: UserID?, limit: Int) -> [UserID] {
        Array(records.keys.filter { userID in after.map { userID > $0 } ?? true }.sorted().prefix(limit))
    }

    public func outcomeSources() -> (closed: OutcomeStatistics, open: [OpenEpisode]) {
        var open: [OpenEpisode] = []
        schedule.table.forEachOpenEpisode { open.append($0) }
        return (outcomes, open)
    }

    public func delete(
        _ userID: UserID, _ forget: @escaping @Sendable (UserRecord, ReminderPolicy) -> ForgetOutcome
    ) -> ForgetOutcome? {
        guard let record = records.removeValue(forKey: userID) else { return nil }
        let outcome = forget(record, policy)
        keepOutcomes(outcome.outcomes)
        schedule.remove(userID)
        return outcome
    }

    public func pushAddress(for userID: UserID) -> PushAddress? { records[userID]?.device.push }

    public func markUnreachable(_ userID: UserID, token: String, reason: String, at date: Date) {
        records[userID]?.device.markUnreachable(token: token, reason: reason, at: date)
    }

    public func nextWakeAt() -> Date? { schedule.nextWake }

    public func stats(since: Date, until: Date) -> StatsReport {
        outcomes.report(since: since, until: until, sendTime: policy.configuration.notification.sendTime) { body in
            schedule.table.forEachOpenEpisode(body)
        }
    }

    public func fireDue(
        now: Date, limit: Int, pass: @escaping @Sendable ([UserSchedule], ReminderPolicy) -> FirePass
    ) -> FireSummary {
        let due = schedule.popDue(now: now, limit: limit).compactMap { records[$0]?.schedule }
        let decided = pass(due, policy)
        for stale in decided.stale { schedule.wake(stale.userID, at: stale.wakeAt) }
        for fired in decided.fired {
            guard var record = records[fired.change.userID] else { continue }
            record.apply(fired.change)
            install(record, events: fired.events)
        }
        suppressed += decided.suppressed.count
        return FireSummary(decided)
    }

    public func pendingReminders(dueBefore: Date?, limit: Int) -> [ScheduledReminder] {
        schedule.pendingReminders(dueBefore: dueBefore, limit: limit)
    }

    public func statistics() -> StoreStatistics {
        var statistics = schedule.statistics()
        statistics.suppressed = suppressed
        for sink in outbox.sinks { statistics.outboxPending[sink] = outbox.pending(sink: sink) }
        statistics.eventsDelivered = completed
        statistics.deadLetters = letters.count
        return statistics
    }

    public func claimEvent(for sink: String) -> OutboxEvent? { outbox.claim(sink: sink) }

    public func claimEvents(for sink: String, limit: Int) -> [OutboxEvent] { outbox.claim(sink: sink, limit: limit) }

    public nonisolated func waitForEvents(for sink: String) async { await outboxSignals[sink]?.wait() }

    public func complete(_ eventID: String, sink: String) {
        guard outbox.complete(eventID, sink: sink) else { return }
        if outbox.entries[eventID] == nil { completed += 1 }
        outboxSignals[sink]?.signal()
    }

    public func release(_ eventID: String, sink: String) {
        outbox.release(eventID, sink: sink)
        outboxSignals[sink]?.signal()
    }

    public func pendingEvents(for sink: String) -> Int { outbox.pending(sink: sink) }

    public func deadLetter(_ letter: DeadLetterRecord) {
        letters.put(letter)
        complete(letter.event.id, sink: letter.sink)
    }

    public func deadLetters() -> [DeadLetterRecord] { letters.all }

    public func replayDeadLetters(ids: Set<String>?) -> Int {
        let chosen = letters.chosen(ids)
        for letter in chosen {
            _ = letters.take(eventID: letter.event.id, sink: letter.sink)
            outbox.requeue(letter.event, sink: letter.sink)
            outboxSignals[letter.sink]?.signal()
        }
        return chosen.count
    }

    /// Nothing to move: everything is where it stays.
    public func checkpoint(snapshot: Bool) {}

    public func close() {}

    private func keepOutcomes(_ closed: [EpisodeOutcome]) {
        for outcome in closed { outcomes.add(outcome) }
        closedOutcomes += closed
    }

    private func install(_ record: UserRecord, events: [OutboxEvent]) {
        records[record.userID] = record
        if schedule.set(record.schedule) { scheduleChanged.signal() }
        let channels = policy.configuration.channels
        for event in events {
            outbox.enqueue(event, sinks: channels.sinks(for: event.audience, among: outbox.sinks))
        }
        if !events.isEmpty {
            for signal in outboxSignals.values { signal.signal() }
        }
    }
}

extension MemoryStateStore: StateTransfer {
    /// The cursor is the position of the next event in creation order.
    public func exportEvents(after cursor: String?, limit: Int) -> ExportPage<PendingEvent> {
        let start = cursor.flatMap { Int($0) } ?? 0
        let ordered = outbox.ordered
        let end = min(ordered.count, start + limit)
        let events = ordered[min(start, end)..<end].flatMap(\.groups).map {
            PendingEvent(event: $0.event, sinks: $0.sinks)
        }
        return ExportPage(items: events, next: end < ordered.count ? String(end) : nil)
    }

    public func exportOutcomes(after cursor: String?, limit: Int) -> ExportPage<EpisodeOutcome> {
        let start = cursor.flatMap { Int($0) } ?? 0
        let end = min(closedOutcomes.count, start + limit)
        return ExportPage(
            items: Array(closedOutcomes[min(start, end)..<end]), next: end < closedOutcomes.count ? String(end) : nil)
    }

    public func importUsers(_ imported: [UserRecord]) {
        for record in imported { install(record, events: []) }
    }

    public func importEvents(_ events: [PendingEvent]) {
        for pending in events {
            for sink in pending.sinks { outbox.requeue(pending.event, sink: sink) }
            for sink in pending.sinks { outboxSignals[sink]?.signal() }
        }
    }

    public func importOutcomes(_ imported: [EpisodeOutcome]) {
        var known = Set(closedOutcomes)
        keepOutcomes(imported.filter { known.insert($0).inserted })
    }

    public func migrationMarker() -> String? { marker }

    public func setMigrationMarker(_ marker: String?) { self.marker = marker }
}

extension MemoryStateStore: LearningStore {
    public func allocation() -> AllocationState? { allocationState }

    public func storeAllocation(_ state: AllocationState) -> AllocationState {
        if let current = allocationState, current.computedAt >= state.computedAt { return current }
        allocationState = state
        return state
    }

    public func usersByActiveHour() -> [Int] { schedule.table.usersByActiveHour() }
}
