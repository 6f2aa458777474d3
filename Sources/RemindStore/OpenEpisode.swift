import Foundation
import RemindCore

/// An episode still open, as `/v1/stats` counts it: when it started, the user's experiment
/// group and the reason. What the parts of a `PartitionedStore` hand over to be merged.
public struct OpenEpisode: Sendable {
    public var startedAt: Date
    public var group: String
    public var reason: PermissionErrorType?
    /// Whose: the send-time arm is the user's.
    public var userID: UserID

    public init(startedAt: Date, group: String, reason: PermissionErrorType?, userID: UserID) {
        self.startedAt = startedAt
        self.group = group
        self.reason = reason
        self.userID = userID
    }
}
