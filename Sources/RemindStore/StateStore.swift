import Foundation
import RemindCore

/// The durable state of every user, their schedule and the events waiting for the sinks: the
/// plug point for storage (ARCHITECTURE.md). `FileStateStore` (the state directory's JSON files behind a
/// write-ahead log) is the default backend; `MemoryStateStore` is the smallest reading of this
/// contract, for tests. The daemon, the scheduler and the sinks' dispatchers see only this.
///
/// Implementation requirements:
/// - **A reply means durable.** `storeReport`, `delete`, `fireDue`, `deadLetter` and
///   `replayDeadLetters` return only once what they changed survives a crash (`kill -9`,
///   power loss) at any later moment: the record, and every event the change produced, which is
///   in the outbox from then on. The one exception: a report that changes nothing but
///   `lastReportAt` and `reportCount` may be answered before those two counters are durable; a
///   crash may lose such counter updates since the last checkpoint, never a change.
/// - **Failure changes nothing.** When a write fails (disk full, database down) the method
///   throws and the state in memory and on disk is as before: the report is not applied, the
///   users `fireDue` took stay due, the dead letter stays an outbox event.
/// - **One user at a time.** Reports, fires and deletes of one user take effect one after
///   another, in arrival order; different users proceed in parallel. A user busy with a report
///   may be left by `fireDue` for its next pass instead of waited for.
/// - **Due users.** `fireDue(now:limit:)` applies `ReminderPolicy.fire` to at most `limit`
///   users whose wake-up is at or before `now` and returns the events it produced, already
///   durable and in the outbox. `nextWakeAt` is the earliest wake-up of any user;
///   `scheduleChanged` is signalled whenever a change makes it earlier, so a sleeping
///   scheduler re-reads it.
/// - **The outbox** (`OutboxSource`) hands each sink its events in creation order, never two of
///   one user at once. `complete` may become durable lazily: losing it in a crash only means the
///   event is delivered again, with the same id. An event leaves a sink's queue only by
///   `complete` (delivered, or dead-lettered first).
/// - **Recovery.** A store opened after a crash holds exactly the acknowledged state: every
///   acknowledged write above, and of the unacknowledged ones each either whole or not at all.
/// - **Counts without scans.** `statistics()` is answered from counters kept current as records
///   change, not by visiting every user: it backs `/v1/status`, `/metrics` and `STATUS=`.
/// - `checkpoint(snapshot:)` moves what is held only in memory or in a log to its final place
///   (a backend that writes through does nothing); `close` ends the store after a last one.
/// - **Devices** (`PushDirectory`): a user's push address is the one their newest acknowledged
///   report left; `markUnreachable` is a change like a report (durable before it returns,
///   ordered with the user's reports), applied only while the address is still the dead token.
public protocol StateStore: OutboxSource, PushDirectory {
    /// When this daemon started: the policy spreads catch-up reminders from here.
    var daemonStartedAt: Date { get }
    /// Signalled when a change makes the earliest wake-up earlier.
    var scheduleChanged: AsyncSignal { get }
    /// The policy every report and due time is judged by.
    var policy: ReminderPolicy { get async }
    /// Applies a new configuration: every due time is recomputed.
    func setPolicy(_ policy: ReminderPolicy) async

    /// Stores a validated report and returns what it changed, once the change is durable.
    func storeReport(_ report: PermissionReport, for userID: UserID, receivedAt: Date) async throws -> ReportOutcome
    /// Stores a report as `storeReport` does and returns the API's answer: what changed and the
    /// user's encoded status. A backend may answer a repeat (a report that changes nothing but
    /// the counters) from memory, without the record; the default goes through `storeReport`.
    func answerReport(_ report: PermissionReport, for userID: UserID, receivedAt: Date) async throws -> ReportAnswer
    /// What answers repeats synchronously on any thread, when the backend keeps them in memory
    /// (nil by default: every report goes to `answerReport`).
    var repeatAnswering: (any RepeatAnswering)? { get }
    /// The user's record; nil for an unknown user (or one whose stored state was unreadable).
    func record(_ userID: UserID) async throws -> UserRecord?
    /// Forgets a user at `at`: their record and schedule go, nothing is emitted; an episode
    /// open then ends `forgotten` in the outcomes (docs/outcomes.md). False when unknown.
    func delete(_ userID: UserID, at: Date) async throws -> Bool

    /// The earliest wake-up of any user.
    func nextWakeAt() async -> Date?
    /// Fires what is due at `now`, for up to `limit` users.
    func fireDue(now: Date, limit: Int) async throws -> FireSummary
    /// Reminders due before `dueBefore` (all when nil), soonest first, at most `limit`.
    func pendingReminders(dueBefore: Date?, limit: Int) async -> [ScheduledReminder]
    /// The counts of `/v1/status` and the metrics.
    func statistics() async -> StoreStatistics
    /// The outcomes of the episodes that opened in `[since, until)`, open ones included
    /// (`/v1/stats`, docs/outcomes.md), answered from aggregates, not by reading every user.
    func stats(since: Date, until: Date) async -> StatsReport

    /// Events still waiting for `sink`.
    func pendingEvents(for sink: String) async -> Int
    /// Records an event a sink gave up on, durably; the dispatcher then completes it.
    func deadLetter(_ letter: DeadLetterRecord) async throws
    /// Events sinks gave up on, oldest first.
    func deadLetters() async -> [DeadLetterRecord]
    /// Puts dead letters back in their sinks' queues: all, or those whose event id is in `ids`.
    /// Returns how many went back.
    func replayDeadLetters(ids: Set<String>?) async throws -> Int

    /// Moves what is held only in memory or a log to its final place; with `snapshot`, also
    /// whatever makes the next start fast.
    func checkpoint(snapshot: Bool) async throws
    /// Ends the store after a last checkpoint.
    func close() async
}

extension StateStore {
    public var repeatAnswering: (any RepeatAnswering)? { nil }

    public func answerReport(
        _ report: PermissionReport, for userID: UserID, receivedAt: Date
    ) async throws -> ReportAnswer {
        let outcome = try await self.storeReport(report, for: userID, receivedAt: receivedAt)
        return ReportAnswer(outcome, policy: await policy, daemonStartedAt: daemonStartedAt)
    }

    /// Fires what is due at `now`, in passes of up to 1,024 users.
    public func fireDue(now: Date) async throws -> FireSummary {
        try await fireDue(now: now, limit: 1024)
    }
}
