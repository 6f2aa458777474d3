import Foundation
import RemindCore

/// The one place the policy meets the store: every backend receives reports and due times
/// through these two, as functions run inside its transactions.
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

    /// Fires what is due at `now` for up to `limit` users (in passes of 1,024 by default).
    public func fireDue(now: Date, limit: Int = 1024) async throws -> FireSummary {
        let started = daemonStartedAt
        return try await fireDue(now: now, limit: limit) { schedule, policy in
            policy.fire(schedule, now: now, daemonStartedAt: started)
        }
    }
}
