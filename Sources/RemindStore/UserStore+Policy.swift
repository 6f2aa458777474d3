import Foundation
import RemindCore

/// The one place the policy meets the store: every backend receives reports, forgets and due
/// times through these, as functions run inside its transactions.
extension UserStore {
    /// Stores a validated report: the policy folds it into the user's record inside the
    /// store's transaction. Returns once the change is durable.
    @discardableResult
    public func storeReport(
        _ report: PermissionReport, for userID: UserID, receivedAt: Date
    ) async throws -> StoredReport {
        try await update(userID, Self.reportChange(report, for: userID, receivedAt: receivedAt))
    }

    /// Stores validated reports as one batch (`update(batch:)`): each exactly as `storeReport`
    /// stores it, a user's in their order, all durable before it returns. One result per
    /// report, in order; throws when storage failed (nothing of the batch acknowledged).
    public func storeReports(
        _ reports: [(report: PermissionReport, userID: UserID)], receivedAt: Date
    ) async throws -> [Result<StoredReport, any Error>] {
        try await update(
            batch: reports.map {
                UserChange($0.userID, Self.reportChange($0.report, for: $0.userID, receivedAt: receivedAt))
            })
    }

    /// The change a report makes: the policy's fold, the same for one report and a batch.
    private static func reportChange(
        _ report: PermissionReport, for userID: UserID, receivedAt: Date
    ) -> @Sendable (UserRecord?, ReminderPolicy) -> ReportOutcome {
        { record, policy in policy.apply(report, to: record, userID: userID, receivedAt: receivedAt) }
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
    public func fireDue(now: Date, limit: Int = 1024) async throws -> FireSummary {
        let started = daemonStartedAt
        return try await fireDue(now: now, limit: limit) { schedules, policy in
            policy.firePass(schedules, now: now, daemonStartedAt: started)
        }
    }
}
