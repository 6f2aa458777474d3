import Foundation

/// An episode still open, as `/v1/stats` counts it: when it started, the user's experiment
/// group, the reason, how far along the funnel it got and the user's platform. What a store
/// hands `OutcomeStatistics.report` (and the parts of a divided store hand over to be merged).
public struct OpenEpisode: Sendable, Equatable {
    public var startedAt: Date
    public var group: String
    public var reason: PermissionErrorType?
    /// Whose (nil where the store does not say): the send-time arm is the user's.
    public var userID: UserID?
    public var marks: FunnelMarks
    public var platform: ReportedPlatform?
    public var opening: Episode.Opening?

    public init(
        startedAt: Date, group: String, reason: PermissionErrorType?, userID: UserID?, marks: FunnelMarks = [],
        platform: ReportedPlatform? = nil, opening: Episode.Opening? = nil
    ) {
        self.opening = opening
        self.startedAt = startedAt
        self.group = group
        self.reason = reason
        self.userID = userID
        self.marks = marks
        self.platform = platform
    }
}
