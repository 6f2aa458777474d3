import Foundation

/// The answer to `GET /v1/stats` (docs/outcomes.md): the episodes that opened in `[since, until)`, by
/// experiment group and by reason, with resolution rates, their Wilson 95 % intervals, time to
/// fix, and each group's uplift over the holdout.
public struct StatsReport: Sendable, Equatable {
    public struct Group: Sendable, Equatable {
        public var group: String
        public var episodes: Int
        public var open: Int
        public var resolved: Int
        public var forgotten: Int
        /// resolved / episodes; nil without episodes.
        public var resolutionRate: Double?
        public var resolutionRateCI95: ClosedRange<Double>?
        public var timeToFixP50: Double?
        public var timeToFixP90: Double?
        /// Resolved episodes by reminders before the fix: 0, 1, 2, 3 or more.
        public var resolvedAfterReminders: [Int]

        public init(
            group: String, episodes: Int = 0, open: Int = 0, resolved: Int = 0, forgotten: Int = 0,
            resolutionRate: Double? = nil, resolutionRateCI95: ClosedRange<Double>? = nil, timeToFixP50: Double? = nil,
            timeToFixP90: Double? = nil, resolvedAfterReminders: [Int] = [0, 0, 0, 0]
        ) {
            self.group = group
            self.episodes = episodes
            self.open = open
            self.resolved = resolved
            self.forgotten = forgotten
            self.resolutionRate = resolutionRate
            self.resolutionRateCI95 = resolutionRateCI95
            self.timeToFixP50 = timeToFixP50
            self.timeToFixP90 = timeToFixP90
            self.resolvedAfterReminders = resolvedAfterReminders
        }
    }

    public struct Reason: Sendable, Equatable {
        public var reason: String
        public var episodes: Int
        public var resolved: Int

        public init(reason: String, episodes: Int, resolved: Int) {
            self.reason = reason
            self.episodes = episodes
            self.resolved = resolved
        }
    }

    /// How new episodes are split (docs/outcomes.md "Adaptive allocation"): the daemon adds it
    /// to what the store counted.
    public struct Allocation: Sendable, Equatable {
        /// `fixed` or `adaptive`.
        public var type: String
        /// When the adaptive weights were computed; nil for fixed weights.
        public var computedAt: Date?
        /// Whether the adaptive weights are learned yet (false while the configured ones apply).
        public var learned: Bool
        public var groups: [AllocationState.Group]

        public init(type: String, computedAt: Date? = nil, learned: Bool = false, groups: [AllocationState.Group]) {
            self.type = type
            self.computedAt = computedAt
            self.learned = learned
            self.groups = groups
        }
    }

    /// Episodes of one kind and their resolution: an arm of the send-time comparison (`due` or
    /// `active`), or a channel (`push` or `fallback`).
    public struct NamedResolution: Sendable, Equatable {
        public var name: String
        public var episodes: Int
        public var resolved: Int
        public var resolutionRate: Double?
        public var resolutionRateCI95: ClosedRange<Double>?

        public init(name: String, episodes: Int, resolved: Int) {
            self.name = name
            self.episodes = episodes
            self.resolved = resolved
            resolutionRate = episodes > 0 ? Double(resolved) / Double(episodes) : nil
            resolutionRateCI95 = StatsReport.wilson(successes: resolved, trials: episodes)
        }
    }

    /// A funnel with its name: a group, a reason or a platform.
    public struct NamedFunnel: Sendable, Equatable {
        public var name: String
        public var sum: FunnelAggregate

        public init(name: String, sum: FunnelAggregate) {
            self.name = name
            self.sum = sum
        }
    }

    /// The episodes along the funnel (docs/outcomes.md "The funnel"): by group (in the order of
    /// `groups`), by reason and by platform.
    public struct Funnel: Sendable, Equatable {
        public var byGroup: [NamedFunnel]
        public var byReason: [NamedFunnel]
        public var byPlatform: [NamedFunnel]
        /// By how the episodes opened (`first`, `again`, `downgrade`, `unknown`): what
        /// `byOpening` shows of them.
        public var byOpening: [NamedFunnel]

        public init(
            byGroup: [NamedFunnel] = [], byReason: [NamedFunnel] = [], byPlatform: [NamedFunnel] = [],
            byOpening: [NamedFunnel] = []
        ) {
            self.byGroup = byGroup
            self.byReason = byReason
            self.byPlatform = byPlatform
            self.byOpening = byOpening
        }
    }

    public var since: Date
    public var until: Date
    public var funnel = Funnel()
    /// Whether fixes last (docs/outcomes.md "Always kept"): the daemon adds it from its last
    /// reading of every history; nil before the first.
    public var alwaysKept: AlwaysKeptReport?
    public var allocation: Allocation?
    /// Episodes by send-time arm, `due` then `active`; empty unless send time is `active`.
    public var bySendTime: [NamedResolution] = []
    /// Episodes reached per channel (`push`, `fallback`) and their resolution (docs/fallback.md):
    /// those with at least one sent reminder through it.
    public var byChannel: [NamedResolution] = []
    /// The `active` arm's rate minus the `due` arm's; nil without both.
    public var sendTimeUplift: Double? {
        guard let due = bySendTime.first(where: { $0.name == "due" })?.resolutionRate,
            let active = bySendTime.first(where: { $0.name == "active" })?.resolutionRate
        else { return nil }
        return active - due
    }
    /// `default` first, then the variants by name, `holdout` last.
    public var groups: [Group]
    public var byReason: [Reason]
    /// Each group's resolution rate minus the holdout's; empty without a holdout.
    public var upliftVsHoldout: [(group: String, uplift: Double)]

    public init(
        since: Date, until: Date, groups: [Group], byReason: [Reason],
        upliftVsHoldout: [(group: String, uplift: Double)]
    ) {
        self.since = since
        self.until = until
        self.groups = groups
        self.byReason = byReason
        self.upliftVsHoldout = upliftVsHoldout
    }

    public static func == (lhs: StatsReport, rhs: StatsReport) -> Bool {
        lhs.since == rhs.since && lhs.until == rhs.until && lhs.groups == rhs.groups && lhs.byReason == rhs.byReason
            && lhs.upliftVsHoldout.map(\.group) == rhs.upliftVsHoldout.map(\.group)
            && lhs.upliftVsHoldout.map(\.uplift) == rhs.upliftVsHoldout.map(\.uplift)
            && lhs.allocation == rhs.allocation && lhs.bySendTime == rhs.bySendTime && lhs.funnel == rhs.funnel
            && lhs.byChannel == rhs.byChannel
            && lhs.alwaysKept == rhs.alwaysKept
    }

    /// The Wilson score interval for `successes` of `trials` at 95 % (z = 1.959964): unlike the
    /// normal approximation it stays inside [0, 1] and is honest for small counts and rates
    /// near 0 or 1.
    public static func wilson(successes: Int, trials: Int, z: Double = 1.959_964) -> ClosedRange<Double>? {
        guard trials > 0 else { return nil }
        let n = Double(trials)
        let p = Double(successes) / n
        let z2 = z * z
        let denominator = 1 + z2 / n
        let center = (p + z2 / (2 * n)) / denominator
        let half = z * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / denominator
        return max(0, center - half)...min(1, center + half)
    }
}
