import Foundation
import RemindAPI
import RemindCore

/// A stored report as the API answers it: what it changed, for metrics and the journal, and
/// the user's status already encoded (`UserStatus`).
public struct ReportAnswer: Sendable {
    /// The report had to be durable before this answer (see `ReportOutcome.changed`).
    public var changed: Bool
    public var transitions: [EpisodeTransition]
    /// Episodes the report closed.
    public var outcomes: [EpisodeOutcome]
    /// The experiment group of the episode the report opened, if it opened one.
    public var openedGroup: String?
    /// The user's status after the report; nil only for a record without history, which a
    /// store never holds.
    public var status: [UInt8]?

    public init(
        changed: Bool, transitions: [EpisodeTransition] = [], outcomes: [EpisodeOutcome] = [],
        openedGroup: String? = nil, status: [UInt8]?
    ) {
        self.changed = changed
        self.transitions = transitions
        self.outcomes = outcomes
        self.openedGroup = openedGroup
        self.status = status
    }

    /// The answer to a report that gave `outcome`, with the status already encoded.
    public init(_ outcome: ReportOutcome, status: [UInt8]?) {
        let opened = outcome.transitions.contains { if case .opened = $0 { true } else { false } }
        self.init(
            changed: outcome.changed, transitions: outcome.transitions, outcomes: outcome.outcomes,
            openedGroup: opened ? outcome.record.openEpisode?.group : nil, status: status)
    }

    /// The answer to a report that gave `outcome`, its status encoded under `policy`.
    public init(_ outcome: ReportOutcome, policy: ReminderPolicy, daemonStartedAt: Date) {
        let status = UserStatus(record: outcome.record, policy: policy, daemonStartedAt: daemonStartedAt)
        self.init(outcome, status: status?.jsonBytes)
    }
}
