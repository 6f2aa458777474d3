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
        try await update(userID) { record, policy in
            policy.apply(report, to: record, userID: userID, receivedAt: receivedAt)
        }
    }

    /// Fires what is due at `now` for up to `limit` users (in passes of 1,024 by default).
    public func fireDue(now: Date, limit: Int = 1024) async throws -> FireSummary {
        let started = daemonStartedAt
        return try await fireDue(now: now, limit: limit) { schedule, policy in
            policy.fire(schedule, now: now, daemonStartedAt: started)
        }
    }
}
