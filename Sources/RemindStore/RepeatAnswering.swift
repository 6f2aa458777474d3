import Foundation
import RemindCore

/// Answers repeated reports synchronously, on whatever thread asks: what lets the HTTP layer
/// answer a repeat on the connection's event loop, without a task, an actor or a hop.
public protocol RepeatAnswering: Sendable {
    /// The user's encoded status after `report`, when it only repeats their state and is noted
    /// (durable as the `StateStore` contract allows for such counters); nil when the report must
    /// go to `StateStore.answerReport`.
    func answerRepeat(_ report: PermissionReport, of userID: UserID, receivedAt: Date) -> [UInt8]?
}
