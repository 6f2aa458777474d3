import Foundation
import RemindCore

/// The users and their schedule: where a backend keeps what the policy decided. It persists; it
/// does not decide. Every change arrives as a transaction that takes the pure policy as a
/// function (`update`, `delete`, `fireDue`), called from one place for every backend
/// (`UserStore+Policy.swift`), so a new rule is written once. `MemoryStateStore` is the
/// reference reading of this contract.
///
/// Implementation requirements:
/// - **A reply means durable.** `update`, `delete` and `fireDue` return only once what they
///   changed survives a crash (`kill -9`, power loss) at any later moment: the record, and every
///   event the change produced, which is in the outbox from then on. The one exception: a
///   change that moves nothing but `lastReportAt`, `reportCount`, the platform and the app
///   version (`ReportOutcome.changed` false) may be answered before those are durable; a crash
///   may lose such counter updates since the last checkpoint, never a change.
/// - **Failure changes nothing.** When a write fails (disk full, database down) the method
///   throws and the state in memory and on disk is as before: the change is not applied, the
///   users `fireDue` took stay due.
/// - **A refused change stores nothing.** An outcome with a `refusal` (an engagement event
///   naming what the user never got) is not persisted: the record, its events and outcomes
///   stay as before, and the next change of the user (in a batch too) sees the record as it
///   was. `update` returns the outcome; `storeReport` and `recordEvents` throw its refusal.
/// - **The function runs inside the transaction.** `update` calls `change` exactly once, with
///   the user's current record (nil for an unknown user, or one whose stored state was
///   unreadable and is quarantined) and the store's current policy, and persists what it
///   returns: the record, its events (into the outbox, for every sink) and the episodes it
///   closed (into the outcomes). `fireDue` calls `pass` once with the schedules of the due
///   users it takes, applies each returned `FiredChange` to its user and wakes each stale
///   user at the time the pass gives (the pass keeps it after `now`).
/// - **One user at a time.** Changes, fires and deletes of one user take effect one after
///   another, in arrival order; different users proceed in parallel. A user busy with a change
///   may be left by `fireDue` for its next pass instead of waited for.
/// - **Due users.** `fireDue` takes at most `limit` users whose wake-up is at or before `now`.
///   `nextWakeAt` is the earliest wake-up of any user; `scheduleChanged` is signalled whenever
///   a change makes it earlier, so a sleeping scheduler re-reads it.
/// - **Enumeration, a page at a time.** `users(after:limit:)` returns the users whose ID comes
///   after `after` in ascending byte order of the ID (from the first when nil), at most `limit`
///   of them, each record as `record(_:)` would have returned it at some moment during the
///   call; fewer than `limit` only when no user follows. Passing the last ID of each page as
///   the next `after` visits every user that exists throughout exactly once, in order; a user
///   created or deleted meanwhile may or may not be visited. A page costs memory in proportion
///   to `limit`, never to the number of users (an index of the IDs a backend keeps in memory
///   anyway is allowed), and changes nothing a client can see.
public protocol UserStore: Sendable {
    /// When this daemon started: the policy spreads catch-up reminders from here.
    var daemonStartedAt: Date { get }
    /// Signalled when a change makes the earliest wake-up earlier.
    var scheduleChanged: AsyncSignal { get }
    /// The policy handed to every transaction, and what wake-up times are computed by.
    var policy: ReminderPolicy { get async }
    /// Applies a new configuration: every due time is recomputed.
    func setPolicy(_ policy: ReminderPolicy) async

    /// Runs `change` on the user's record inside a transaction and persists its outcome; returns
    /// once the outcome is durable (as the contract allows for counters).
    func update(
        _ userID: UserID, _ change: @escaping @Sendable (UserRecord?, ReminderPolicy) -> ReportOutcome
    ) async throws -> StoredReport
    /// Runs each change of `changes` as `update` would, and makes them durable together: the
    /// bulk report route's one transaction (or one group commit) for many reports.
    ///
    /// Implementation requirements, besides `update`'s:
    /// - **In order.** Each change runs exactly once; the changes of one user run in the
    ///   batch's order, each on the record the one before it left, with no other change of
    ///   that user between them where the backend can promise it (one transaction).
    /// - **Durable together.** It returns once every outcome is durable, with one result per
    ///   change, in the batch's order; a backend commits the batch at once where it can (one
    ///   log append and `fdatasync` per part on files; transactions of up to a thousand
    ///   changes on PostgreSQL).
    /// - **Failure.** When storage fails (disk full, database down) it throws, and nothing of
    ///   the batch was acknowledged: on one log nothing of it is applied; a divided store or a
    ///   batch larger than one transaction may keep what a part or an earlier transaction
    ///   committed, as a report whose answer was lost. A change the backend refuses on its own
    ///   (a row the database will not take) fails alone: its result is the error, the other
    ///   changes are applied.
    func update(batch changes: [UserChange]) async throws -> [Result<StoredReport, any Error>]
    /// Whether this process is the only one that changes the store's users while it is open
    /// (the files backend's state lock; not PostgreSQL, which instances share): what lets the
    /// daemon answer a user's repeated reports from what it saw of their record last.
    var isSoleWriter: Bool { get }
    /// The counters-only write: folds repeated reports the caller answered from memory into
    /// their users' records, as `LoggedRepeats` folds (idempotently). Durable as the contract
    /// allows for counters: a crash may lose those noted since the last checkpoint. The
    /// repeats of an unknown user are dropped. A user's change that follows starts from the
    /// record with them in.
    func noteRepeats(_ repeats: [LoggedRepeats]) async throws
    /// The user's record; nil for an unknown user (or one whose stored state was unreadable).
    func record(_ userID: UserID) async throws -> UserRecord?
    /// Removes a user inside a transaction: runs `forget` exactly once on their current record,
    /// removes the record and its schedule, and persists the episode the returned outcome
    /// closed (into the outcomes); nothing is emitted. Returns that outcome once it is durable;
    /// nil, with nothing changed, for an unknown user. A record whose stored state cannot be
    /// read is removed without `forget` (its outcome closes nothing).
    func delete(
        _ userID: UserID, _ forget: @escaping @Sendable (UserRecord, ReminderPolicy) -> ForgetOutcome
    ) async throws -> ForgetOutcome?

    /// The earliest wake-up of any user.
    func nextWakeAt() async -> Date?
    /// Takes up to `limit` users due at `now`, runs `pass` once on their schedules and persists
    /// what it returns in one durable step: each fired user's change and events, each stale
    /// user's next wake-up.
    func fireDue(
        now: Date, limit: Int, pass: @escaping @Sendable ([UserSchedule], ReminderPolicy) -> FirePass
    ) async throws -> FireSummary
    /// Reminders due before `dueBefore` (all when nil), soonest first, at most `limit`.
    func pendingReminders(dueBefore: Date?, limit: Int) async -> [ScheduledReminder]
    /// Up to `limit` users whose ID follows `after` (from the first when nil), in ascending byte
    /// order of the ID: one page of an enumeration of every user.
    func users(after: UserID?, limit: Int) async throws -> [UserRecord]
}

/// What an `update` stored.
public struct StoredReport: Sendable {
    /// What the policy decided, as persisted.
    public var outcome: ReportOutcome
    /// The policy the change ran under, when the caller noted it (`storeReport`).
    public var policy: ReminderPolicy?

    public init(outcome: ReportOutcome, policy: ReminderPolicy? = nil) {
        self.outcome = outcome
        self.policy = policy
    }
}

/// One change of a batch (`UserStore.update(batch:)`): the user and the function `update`
/// would run on their record.
public struct UserChange: Sendable {
    public var userID: UserID
    public var change: @Sendable (UserRecord?, ReminderPolicy) -> ReportOutcome

    public init(_ userID: UserID, _ change: @escaping @Sendable (UserRecord?, ReminderPolicy) -> ReportOutcome) {
        self.userID = userID
        self.change = change
    }
}
