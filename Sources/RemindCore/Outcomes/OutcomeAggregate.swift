/// Closed episodes summed: counts by outcome, resolved ones by reminders before the fix, and
/// their times to fix. What a store keeps per day, group and reason so that `/v1/stats` reads a
/// row per day instead of every outcome; merging sums gives what adding every episode to one
/// sum gives (`TimeToFix` merges exactly).
public struct OutcomeAggregate: Sendable, Equatable {
    public var episodes = 0
    public var resolved = 0
    public var forgotten = 0
    /// A tuple, not an array: a report adds a million episodes to a handful of these.
    private var afterReminders: (Int, Int, Int, Int) = (0, 0, 0, 0)
    public var timesToFix = TimeToFix()

    public init() {}

    /// Made again from its stored parts; nil when they cannot be one sum's.
    public init?(episodes: Int, resolved: Int, forgotten: Int, resolvedAfterReminders: [Int], timesToFix: TimeToFix) {
        guard resolvedAfterReminders.count == 4, episodes == resolved + forgotten,
            resolvedAfterReminders.reduce(0, +) == resolved, timesToFix.total == resolved,
            resolvedAfterReminders.allSatisfy({ $0 >= 0 }), forgotten >= 0
        else { return nil }
        self.episodes = episodes
        self.resolved = resolved
        self.forgotten = forgotten
        let after = resolvedAfterReminders
        afterReminders = (after[0], after[1], after[2], after[3])
        self.timesToFix = timesToFix
    }

    /// Resolved episodes by reminders before the fix: 0, 1, 2, 3 or more.
    public var resolvedAfterReminders: [Int] {
        [afterReminders.0, afterReminders.1, afterReminders.2, afterReminders.3]
    }

    public mutating func add(_ outcome: EpisodeOutcome) {
        add(
            resolved: outcome.outcome == .resolved, reminders: outcome.reminders,
            timeToFix: max(0, outcome.closedAt.timeIntervalSince(outcome.startedAt)))
    }

    public mutating func add(resolved: Bool, reminders: Int, timeToFix: Double) {
        episodes += 1
        if resolved {
            self.resolved += 1
            switch reminders {
            case ...0: afterReminders.0 += 1
            case 1: afterReminders.1 += 1
            case 2: afterReminders.2 += 1
            default: afterReminders.3 += 1
            }
            timesToFix.add(timeToFix)
        } else {
            forgotten += 1
        }
    }

    public mutating func merge(_ other: OutcomeAggregate) {
        episodes += other.episodes
        resolved += other.resolved
        forgotten += other.forgotten
        afterReminders.0 += other.afterReminders.0
        afterReminders.1 += other.afterReminders.1
        afterReminders.2 += other.afterReminders.2
        afterReminders.3 += other.afterReminders.3
        timesToFix.merge(other.timesToFix)
    }

    public static func == (lhs: OutcomeAggregate, rhs: OutcomeAggregate) -> Bool {
        lhs.episodes == rhs.episodes && lhs.resolved == rhs.resolved && lhs.forgotten == rhs.forgotten
            && lhs.resolvedAfterReminders == rhs.resolvedAfterReminders && lhs.timesToFix == rhs.timesToFix
    }
}

extension OutcomeAggregate {
    /// The sum of one day's closed episodes of one group, reason and send-time arm.
    public struct Keyed: Sendable, Equatable {
        public var group: String
        public var reason: PermissionErrorType?
        /// The arm the outcome lines name; nil for episodes outside the send-time holdout.
        public var sendTime: SendTime.Arm?
        public var sum: OutcomeAggregate

        public init(group: String, reason: PermissionErrorType?, sendTime: SendTime.Arm? = nil, sum: OutcomeAggregate) {
            self.group = group
            self.reason = reason
            self.sendTime = sendTime
            self.sum = sum
        }
    }
}
