import Foundation
import RemindCore

/// A reminder waiting for its time, as the store knows it (the API's `PendingReminder` is its
/// wire shape).
public struct ScheduledReminder: Sendable, Equatable {
    public var userID: UserID
    public var dueAt: Date
    public var sequence: Int
    public var reason: PermissionErrorType

    public init(userID: UserID, dueAt: Date, sequence: Int, reason: PermissionErrorType) {
        self.userID = userID
        self.dueAt = dueAt
        self.sequence = sequence
        self.reason = reason
    }

    /// The order `pendingReminders` answers in: soonest first, ties by user.
    static func soonerThan(_ lhs: ScheduledReminder, _ rhs: ScheduledReminder) -> Bool {
        lhs.dueAt < rhs.dueAt || (lhs.dueAt == rhs.dueAt && lhs.userID < rhs.userID)
    }
}
