import Foundation
import RemindCore

/// An episode still open, as `/v1/stats` counts it: when it started, the user's experiment
/// group and the reason. What the parts of a `PartitionedStateStore` hand over to be merged.
struct OpenEpisode: Sendable {
    var startedAt: Date
    var group: String
    var reason: PermissionErrorType?
    /// Whose: the send-time arm is the user's.
    var userID: UserID
}
