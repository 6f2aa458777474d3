import Foundation
import PostgresNIO
import RemindCore
import RemindStore

/// A change waiting for its transaction.
struct PendingUpdate: Sendable {
    var userID: UserID
    var change: @Sendable (UserRecord?, ReminderPolicy) -> ReportOutcome
    /// Called once, after the change's transaction, with what it stored or why not.
    var answer: @Sendable (Result<StoredReport, any Error>) -> Void
}

/// Reports group-committed: the changes that arrive while a transaction is in flight go into
/// the next one together, a few statements for the whole batch instead of five or more and a
/// commit per report, and each is answered after that commit. One flusher per instance keeps a
/// user's changes in arrival order.
extension PostgresStateStore {
    /// The most changes one transaction takes.
    static let maximumUpdateBatch = 1_000

    public func update(
        _ userID: UserID, _ change: @escaping @Sendable (UserRecord?, ReminderPolicy) -> ReportOutcome
    ) async throws -> StoredReport {
        try await withCheckedThrowingContinuation { continuation in
            enqueue([PendingUpdate(userID: userID, change: change, answer: { continuation.resume(with: $0) })])
        }
    }

    /// The batch's changes join the queue together, in order, so they go into the next
    /// transactions (up to `maximumUpdateBatch` changes each) one after another. Throws when
    /// the database was unavailable for any of them: the request is refused as a whole.
    public func update(batch changes: [UserChange]) async throws -> [Result<StoredReport, any Error>] {
        guard !changes.isEmpty else { return [] }
        let results = await withCheckedContinuation { continuation in
            let answers = BatchAnswers(count: changes.count, continuation)
            enqueue(
                changes.enumerated().map { index, change in
                    PendingUpdate(userID: change.userID, change: change.change, answer: { answers.set(index, $0) })
                })
        }
        for case .failure(let error as StoreError) in results where error.isUnavailable { throw error }
        return results
    }

    private func enqueue(_ updates: [PendingUpdate]) {
        let lead = state.withLock { state -> Bool in
            state.updates += updates
            defer { state.updating = true }
            return !state.updating
        }
        if lead { Task { await self.flushUpdates() } }
    }

    /// Commits the waiting changes, a batch a transaction, until none wait.
    private func flushUpdates() async {
        while true {
            let batch = state.withLock { state -> [PendingUpdate]? in
                if state.updates.isEmpty {
                    state.updating = false
                    return nil
                }
                let taken = Array(state.updates.prefix(Self.maximumUpdateBatch))
                state.updates.removeFirst(taken.count)
                return taken
            }
            guard let batch else { return }
            let decided = DecidedChanges()
            do {
                let stored = try await commit(batch, decided: decided)
                for (update, answer) in zip(batch, stored) { update.answer(.success(answer)) }
            } catch let error as StoreError where !error.isUnavailable && batch.count > 1 {
                // The server refused a statement: one row may be at fault (a document it will not
                // take), so each user's changes go again on their own and refuse only themselves.
                // Changes that ran go again with the outcomes they decided, so a change runs once
                // whatever is retried; a batch refused before any ran goes a change at a time.
                logger.warning("a batch of \(batch.count) reports was refused (\(error)); storing them user by user")
                let ran = decided.isComplete
                for group in ran ? DecidedChanges.byUser(batch) : batch.indices.map({ [$0] }) {
                    do {
                        let stored = try await commit(
                            group.map { batch[$0] }, decided: ran ? decided.subset(group) : DecidedChanges())
                        for (index, answer) in zip(group, stored) { batch[index].answer(.success(answer)) }
                    } catch {
                        for index in group { batch[index].answer(.failure(error)) }
                    }
                }
            } catch {
                for update in batch { update.answer(.failure(error)) }
            }
        }
    }

    /// One transaction for `batch`: the users' advisory locks (in one order, so batches of two
    /// instances cannot deadlock) and rows, each change applied in arrival order to the
    /// record the one before it left, then every row, event and outcome written in one
    /// statement each. Each change runs here once and its outcome goes into `decided`; when
    /// `decided` already holds the outcomes (a retry), they are written as they are, provided
    /// every user's row is still the record they were decided on.
    private func commit(_ batch: [PendingUpdate], decided: DecidedChanges) async throws -> [StoredReport] {
        let (policy, started) = (self.policy, daemonStartedAt)
        let (stored, earlier, events) = try await transaction { connection in
            var order: [UserID] = []
            var seen: Set<UserID> = []
            for update in batch where seen.insert(update.userID).inserted { order.append(update.userID) }
            try await self.lockUsers(order, on: connection)
            let existing = try await self.lockedRows(order, on: connection)
            let outcomes = try decided.outcomes(of: batch, current: { existing[$0]?.record }) { update, record in
                update.change(record, policy)
            }
            var records: [UserID: UserRecord] = [:]
            var events: [OutboxEvent] = []
            var closed: [EpisodeOutcome] = []
            for (update, outcome) in zip(batch, outcomes) where outcome.refusal == nil {
                records[update.userID] = outcome.record
                events += outcome.events.map(OutboxEvent.init)
                closed += outcome.outcomes
            }
            var rows: [(UserRecord, ScheduleColumns)] = []
            var earlier = false
            for userID in order {
                guard let record = records[userID] else { continue }
                let columns = ScheduleColumns(record.schedule, policy: policy, daemonStartedAt: started)
                earlier = earlier || Self.movedEarlier(from: existing[userID]?.wakeAt, to: columns.wakeAt)
                rows.append((record, columns))
            }
            try await self.write(rows, before: existing, on: connection)
            try await self.enqueue(events, on: connection)
            try await self.insertOutcomes(closed, on: connection)
            try await self.notify(wake: earlier, events: !events.isEmpty, on: connection)
            return (outcomes.map { StoredReport(outcome: $0) }, earlier, !events.isEmpty)
        }
        changed(wakeEarlier: earlier, events: events)
        return stored
    }
}
