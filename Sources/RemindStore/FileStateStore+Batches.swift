import Foundation
import RemindCore

extension FileStateStore {
    /// Runs a batch of changes as `update` runs one, with one log append for all of them: the
    /// batch's lines share one write and one `fdatasync`, and only then is any of it installed,
    /// so a failed write (full disk) leaves nothing of the batch applied.
    ///
    /// The batch owns every user it touches for its whole run (taken in key order, so two
    /// batches sharing users cannot each wait for the other), which keeps a user's changes in
    /// the batch's order with nothing between them, as `withUser` does for one change.
    public func update(batch changes: [UserChange]) async throws -> [Result<StoredReport, any Error>] {
        let users = Array(Set(changes.map(\.userID))).sorted()
        return try await withUsers(users) {
            var current = try await loadAll(users)
            var outcomes: [ReportOutcome] = []
            outcomes.reserveCapacity(changes.count)
            var lines: [[UInt8]] = []
            var encoded: [Int: [UInt8]] = [:]
            var events: [Outbox.Routed] = []
            var closed: [EpisodeOutcome] = []
            var refused = Set<Int>()
            for change in changes {
                let before = current[change.userID]
                var outcome = change.change(before, policy)
                guard outcome.refusal == nil else {
                    refused.insert(outcomes.count)
                    outcomes.append(outcome)
                    continue
                }
                let changeEvents = route(outcome.events.map(OutboxEvent.init))
                if outcome.changed || before == nil {
                    let (line, json) = logLine(
                        &outcome.record, after: before, events: changeEvents, outcomes: outcome.outcomes)
                    lines.append(line)
                    encoded[outcomes.count] = json
                    events += changeEvents
                    closed += outcome.outcomes
                }
                current[change.userID] = outcome.record
                outcomes.append(outcome)
            }
            let install = {
                // In the batch's order: a user's last change is what stays in memory.
                for (index, outcome) in outcomes.enumerated() where !refused.contains(index) {
                    self.install(outcome.record, encoded: encoded[index])
                }
                self.enqueue(events)
                self.recordOutcomes(closed)
            }
            if lines.isEmpty { install() } else { try await logged(lines, then: install) }
            return outcomes.map { .success(StoredReport(outcome: $0)) }
        }
    }

    /// Runs `body` owning every user of `userIDs`, which must be sorted: taking them in one
    /// order means no two such runs wait for each other in a cycle (a single change owns one
    /// user and waits for nothing else).
    func withUsers<T>(_ userIDs: [UserID], _ body: () async throws -> T) async throws -> T {
        for userID in userIDs where !lockUser(userID) {
            await withCheckedContinuation { locks.wait(for: userID, $0) }
        }
        defer { for userID in userIDs { unlockUser(userID) } }
        return try await body()
    }

    /// The records of users the caller owns, those not in memory read from their files in one
    /// go on the I/O pool; unknown (or quarantined) users are absent.
    func loadAll(_ userIDs: [UserID]) async throws(StoreError) -> [UserID: UserRecord] {
        var records: [UserID: UserRecord] = [:]
        records.reserveCapacity(userIDs.count)
        var cold: [UserID] = []
        for userID in userIDs {
            if let record = cache[userID] {
                records[userID] = materialized(record)
            } else if schedules[userID] != nil {
                cold.append(userID)
            }
        }
        guard !cold.isEmpty else { return records }
        let read = try await files.read(cold, on: io)
        for (userID, result) in zip(cold, read) {
            records[userID] = try adopt(result, of: userID).map(materialized)
        }
        return records
    }
}
