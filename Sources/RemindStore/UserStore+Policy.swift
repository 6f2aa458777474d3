import Foundation
import RemindCore
import Synchronization

/// The one place the policy meets the store: every backend receives reports, forgets and due
/// times through these, as functions run inside its transactions.
extension UserStore {
    /// Stores a validated report: the policy folds it into the user's record inside the
    /// store's transaction, after `repeats` (reports answered from memory before it, not yet
    /// noted). Returns once the change is durable, with the policy it ran under.
    @discardableResult
    public func storeReport(
        _ report: PermissionReport, for userID: UserID, receivedAt: Date, after repeats: PendingRepeats? = nil
    ) async throws -> StoredReport {
        let used = UsedPolicy()
        var stored = try await update(
            userID, Self.reportChange(report, for: userID, receivedAt: receivedAt, after: repeats, used: used))
        if let refusal = stored.outcome.refusal { throw refusal }
        stored.policy = used.policy
        return stored
    }

    /// Records engagement events the app reported for a user (`ReminderPolicy.applyEvents`):
    /// returns how many were new, once they are durable. Throws the refusal (nothing stored)
    /// when one names what the user never got, or the user is unknown.
    public func recordEvents(_ events: [EngagementEvent], for userID: UserID) async throws -> Int {
        let stored = try await update(userID) { record, policy in
            policy.applyEvents(events, to: record, userID: userID)
        }
        if let refusal = stored.outcome.refusal { throw refusal }
        return stored.outcome.acceptedEvents
    }

    /// Stores validated reports as one batch (`update(batch:)`): each exactly as `storeReport`
    /// stores it, a user's in their order (the first after that user's `repeats`), all durable
    /// before it returns. One result per report, in order; throws when storage failed (nothing
    /// of the batch acknowledged).
    public func storeReports(
        _ reports: [(report: PermissionReport, userID: UserID)], receivedAt: Date,
        after repeats: [UserID: PendingRepeats] = [:]
    ) async throws -> [Result<StoredReport, any Error>] {
        let used = UsedPolicy()
        // A user's repeats go into their first change the store takes: one refused whole
        // (`ReportOutcome.refusal`) stores nothing, so the next one takes them.
        let folded = Mutex(Set<UserID>())
        let changes = reports.map { report, userID in
            UserChange(userID) { record, policy in
                let pending = folded.withLock { $0.contains(userID) } ? nil : repeats[userID]
                let outcome = Self.reportChange(
                    report, for: userID, receivedAt: receivedAt, after: pending, used: used)(record, policy)
                if outcome.refusal == nil { folded.withLock { _ = $0.insert(userID) } }
                return outcome
            }
        }
        return try await update(batch: changes).map { result in
            result.flatMap { stored in
                if let refusal = stored.outcome.refusal { return .failure(refusal) }
                var stored = stored
                stored.policy = used.policy
                return .success(stored)
            }
        }
    }

    /// The change a report makes: the policy's fold, the same for one report and a batch.
    private static func reportChange(
        _ report: PermissionReport, for userID: UserID, receivedAt: Date, after repeats: PendingRepeats?,
        used: UsedPolicy
    ) -> @Sendable (UserRecord?, ReminderPolicy) -> ReportOutcome {
        { record, policy in
            used.note(policy)
            guard let repeats, var record else {
                return policy.apply(report, to: record, userID: userID, receivedAt: receivedAt)
            }
            record.fold(repeats)
            return policy.apply(report, to: record, userID: userID, receivedAt: receivedAt)
        }
    }

    /// Hands a reminder a push sink cannot deliver to the fallback sinks
    /// (`ReminderPolicy.reroute` inside the store's transaction); returns once that is durable.
    /// The `PushDirectory` requirement, the same for every backend.
    public func reroute(_ reminder: SinkEvent.Reminder) async throws -> RerouteResult {
        let result = Mutex(RerouteResult.notPending)
        _ = try await update(reminder.userID) { record, policy in
            let (outcome, decided) = policy.reroute(reminder, of: record)
            result.withLock { $0 = decided }
            return outcome
        }
        return result.withLock { $0 }
    }

    /// Forgets a user at `date` (`ReminderPolicy.forget` inside the store's transaction);
    /// returns what was persisted, nil for an unknown user.
    @discardableResult
    public func forget(_ userID: UserID, at date: Date) async throws -> ForgetOutcome? {
        try await delete(userID) { record, policy in policy.forget(record, at: date) }
    }

    /// Whether a user was known and is now forgotten (`forget`).
    public func delete(_ userID: UserID, at date: Date) async throws -> Bool {
        try await forget(userID, at: date) != nil
    }

    /// Fires what is due at `now` for up to `limit` users (in passes of 1,024 by default).
    /// `changing` learns which users' records the pass changes once it is decided, before
    /// anything is persisted: whatever keeps a copy of a record drops theirs then.
    public func fireDue(
        now: Date, limit: Int = 1024, changing: @escaping @Sendable ([UserID]) -> Void = { _ in }
    ) async throws -> FireSummary {
        let started = daemonStartedAt
        return try await fireDue(now: now, limit: limit) { schedules, policy in
            let pass = policy.firePass(schedules, now: now, daemonStartedAt: started)
            changing(pass.fired.map(\.change.userID))
            return pass
        }
    }
}

/// The policy a store handed a report's change: what its answer is rendered with, so that it
/// agrees with the record even while a reload swaps the policy.
private final class UsedPolicy: Sendable {
    private let value = Mutex<ReminderPolicy?>(nil)

    func note(_ policy: ReminderPolicy) { value.withLock { $0 = policy } }
    var policy: ReminderPolicy? { value.withLock { $0 } }
}
