import Foundation
import RemindCore

extension FileStateStore {
    /// Runs `change` on the user's record (with their pending repeats folded in), logs the
    /// outcome when it changed something and installs it.
    ///
    /// An outcome that changes nothing but `lastReportAt` and the counters is not logged: its
    /// reply does not wait for a disk write (docs/operations.md), and the file catches up at the
    /// next checkpoint. A repeat of the user's state is answered before it gets here, by the
    /// daemon from memory, and handed over later (`noteRepeats`).
    public func update(
        _ userID: UserID, _ change: @escaping @Sendable (UserRecord?, ReminderPolicy) -> ReportOutcome
    ) async throws -> StoredReport {
        try await withUser(userID) {
            let current = try await load(userID)
            var outcome = change(current, policy)
            guard outcome.refusal == nil else { return StoredReport(outcome: outcome) }
            let events = route(outcome.events.map(OutboxEvent.init))
            if outcome.changed || current == nil {
                let (line, json) = logLine(
                    &outcome.record, after: current, events: events, outcomes: outcome.outcomes)
                try await logged([line]) {
                    install(outcome.record, encoded: json)
                    enqueue(events)
                    recordOutcomes(outcome.outcomes)
                }
            } else {
                install(outcome.record)
            }
            return StoredReport(outcome: outcome)
        }
    }

    /// The user's record, or nil for an unknown (or quarantined) user.
    public func record(_ userID: UserID) async throws -> UserRecord? {
        try await withUser(userID) { try await load(userID) }
    }

    /// Removes a user: `forget` decides, the log records it, then their file and schedule go.
    public func delete(
        _ userID: UserID, _ forget: @escaping @Sendable (UserRecord, ReminderPolicy) -> ForgetOutcome
    ) async throws -> ForgetOutcome? {
        try await withUser(userID) {
            guard let record = try await load(userID) else { return nil }
            let outcome = forget(record, policy)
            try await logged([LogEntry.delete(userID, outcome: outcome.closed).line]) {
                recordOutcomes(outcome.outcomes)
                evict(userID)
                // The logged delete covers a crash before this unlink: replay unlinks again.
                try files.remove(userID)
            }
            return outcome
        }
    }

    /// Takes repeats the daemon answered in memory; the next checkpoint logs them, and they
    /// reach the files with the users' next change or a later checkpoint (`PendingRepeatFolds`).
    /// Those of an unknown user are dropped.
    public func noteRepeats(_ repeats: [LoggedRepeats]) {
        for logged in repeats where schedules[logged.userID] != nil { pendingRepeats.note(logged) }
    }

    /// The files backend is this daemon's alone (the state directory's lock).
    public nonisolated var isSoleWriter: Bool { true }

    /// The user's push address; reads the file of a user not in memory.
    public func pushAddress(for userID: UserID) async throws -> PushAddress? {
        try await withUser(userID) { try await load(userID)?.device.push }
    }

    /// Records a push service's verdict that the user's token is dead, through the log like a
    /// report, so a restart keeps the user unreachable.
    public func markUnreachable(_ userID: UserID, token: String, reason: String, at date: Date) async throws {
        try await withUser(userID) {
            guard let current = try await load(userID) else { return }
            var record = current
            guard record.device.markUnreachable(token: token, reason: reason, at: date) else { return }
            let (line, json) = logLine(&record, after: current, events: [])
            try await logged([line]) { install(record, encoded: json) }
        }
    }

    /// A user's schedule as the scheduler holds it; nil for an unknown user.
    public func schedule(of userID: UserID) -> UserSchedule? { schedules[userID] }
}
