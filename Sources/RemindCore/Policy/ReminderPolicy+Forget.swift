import Foundation

/// What forgetting a user persists: the record and its schedule go and nothing is emitted; an
/// episode open at that moment ends `forgotten` then, into the outcomes (docs/outcomes.md).
public struct ForgetOutcome: Sendable, Equatable {
    public var userID: UserID
    /// The episode open at the forget, closed as forgotten; nil when none was open.
    public var closed: EpisodeOutcome?

    public init(userID: UserID, closed: EpisodeOutcome?) {
        self.userID = userID
        self.closed = closed
    }

    /// The closed episodes, for what records outcomes in lists.
    public var outcomes: [EpisodeOutcome] { closed.map { [$0] } ?? [] }
}

extension ReminderPolicy {
    /// Forgetting `record` at `date`: the rule every backend's delete runs inside its
    /// transaction (`UserStore.forget`), so the stored outcome and the metric agree.
    public func forget(_ record: UserRecord, at date: Date) -> ForgetOutcome {
        ForgetOutcome(
            userID: record.userID,
            closed: record.openEpisode.map {
                EpisodeOutcome($0, of: record, outcome: .forgotten, closedAt: date.millisecondPrecision)
            })
    }
}
