import Foundation

/// Every closed episode, packed, so that `/v1/stats` is answered from memory for any window:
/// a scan of 1,000,000 entries of 24 bytes, no file read (`make bench` W7).
///
/// Open episodes are not kept here: the store adds them from its schedule rows at query
/// time, since they change with every report.
public struct OutcomeStatistics: Sendable {
    private struct Closed {
        var startedAt: Double
        var timeToFix: Double
        var group: UInt16
        /// 0: none, else 1 + the index in `PermissionErrorType.allCases`.
        var reason: UInt8
        var resolved: Bool
        var reminders: UInt8
        /// 0: none, else 1 + the index in `SendTime.Arm.allCases` (in what was padding).
        var sendTime: UInt8
    }

    private var closed: [Closed] = []
    private var groups: [String] = []
    private var groupNumbers: [String: UInt16] = [:]

    public init() {}

    public var count: Int { closed.count }

    public mutating func add(_ outcome: EpisodeOutcome) {
        add(
            group: number(of: outcome.group), reason: outcome.reason, startedAt: outcome.startedAt,
            closedAt: outcome.closedAt, resolved: outcome.outcome == .resolved, reminders: outcome.reminders,
            sendTime: outcome.sendTime)
    }

    /// Adds a line of the outcomes log read by `OutcomeLine`, without building its strings.
    public mutating func add(_ line: OutcomeLine) {
        // A handful of groups: a linear look among their bytes beats hashing a new String.
        let group =
            groups.firstIndex { $0.utf8.elementsEqual(line.group) }.map { UInt16($0) }
            ?? number(of: String(decoding: line.group, as: UTF8.self))
        add(
            group: group, reason: line.reason, startedAt: line.startedAt, closedAt: line.closedAt,
            resolved: line.resolved, reminders: line.reminders, sendTime: line.sendTime)
    }

    private mutating func number(of group: String) -> UInt16 {
        if let known = groupNumbers[group] { return known }
        let number = UInt16(clamping: groups.count)
        groups.append(group)
        groupNumbers[group] = number
        return number
    }

    private mutating func add(
        group: UInt16, reason: PermissionErrorType?, startedAt: Date, closedAt: Date, resolved: Bool, reminders: Int,
        sendTime: SendTime.Arm?
    ) {
        let arm = sendTime.flatMap { SendTime.Arm.allCases.firstIndex(of: $0) }.map { UInt8($0 + 1) } ?? 0
        let code = reason.flatMap { PermissionErrorType.allCases.firstIndex(of: $0) }.map { UInt8($0 + 1) }
        closed.append(
            Closed(
                startedAt: startedAt.timeIntervalSince1970,
                timeToFix: max(0, closedAt.timeIntervalSince(startedAt)), group: group, reason: code ?? 0,
                resolved: resolved, reminders: UInt8(clamping: reminders), sendTime: arm))
    }

    /// Adds every closed episode `other` holds.
    public mutating func add(contentsOf other: OutcomeStatistics) {
        for entry in other.closed {
            var moved = entry
            let name = other.groups[Int(entry.group)]
            if let known = groupNumbers[name] {
                moved.group = known
            } else {
                moved.group = UInt16(clamping: groups.count)
                groups.append(name)
                groupNumbers[name] = moved.group
            }
            closed.append(moved)
        }
    }

    /// The report for episodes that opened in `[since, until)`; `forEachOpen` calls its body
    /// with every open episode's start, group and reason.
    public func report(
        since: Date, until: Date, forEachOpen: ((Date, String, PermissionErrorType?) -> Void) -> Void
    ) -> StatsReport {
        report(since: since, until: until, sendTime: .due) { body in
            withoutActuallyEscaping(body) { body in
                forEachOpen { started, group, reason in body(started, group, reason, nil) }
            }
        }
    }

    /// The same, with `bySendTime` while `sendTime` is `active`: closed episodes by the arm
    /// their outcome line names, open ones by the arm `sendTime` puts their user in.
    public func report(
        since: Date, until: Date, sendTime: SendTime,
        forEachOpen: ((Date, String, PermissionErrorType?, UserID?) -> Void) -> Void
    ) -> StatsReport {
        var armEpisodes = [0, 0, 0]
        var armResolved = [0, 0, 0]
        let lower = since.timeIntervalSince1970
        let upper = until.timeIntervalSince1970
        var tallies: [String: Tally] = [:]
        var reasons: [String: (episodes: Int, resolved: Int)] = [:]
        // The scan touches a million entries: plain arrays indexed by small numbers, no
        // strings or dictionaries inside the loop.
        let reasonCount = PermissionErrorType.allCases.count + 1
        var reasonEpisodes = [Int](repeating: 0, count: reasonCount)
        var reasonResolved = [Int](repeating: 0, count: reasonCount)
        var perGroup = [Tally](repeating: Tally(), count: groups.count)
        for entry in closed where entry.startedAt >= lower && entry.startedAt < upper {
            perGroup[Int(entry.group)].add(entry.resolved, reminders: entry.reminders, timeToFix: entry.timeToFix)
            reasonEpisodes[Int(entry.reason)] += 1
            if entry.resolved { reasonResolved[Int(entry.reason)] += 1 }
            armEpisodes[Int(entry.sendTime)] += 1
            if entry.resolved { armResolved[Int(entry.sendTime)] += 1 }
        }
        for code in 0..<reasonCount where reasonEpisodes[code] > 0 {
            let name = code == 0 ? "unknown" : PermissionErrorType.allCases[code - 1].rawValue
            reasons[name] = (reasonEpisodes[code], reasonResolved[code])
        }
        for (index, tally) in perGroup.enumerated() where tally.episodes > 0 {
            tallies[groups[index], default: Tally()].merge(tally)
        }
        forEachOpen { startedAt, group, reason, userID in
            let start = startedAt.timeIntervalSince1970
            guard start >= lower && start < upper else { return }
            if let userID, sendTime != .due {
                armEpisodes[SendTime.Arm.allCases.firstIndex(of: sendTime.arm(for: userID))! + 1] += 1
            }
            tallies[group, default: Tally()].open += 1
            tallies[group, default: Tally()].episodes += 1
            reasons[reason?.rawValue ?? "unknown", default: (0, 0)].episodes += 1
        }
        let order = tallies.sorted { lhs, rhs in
            func rank(_ name: String) -> Int {
                name == Experiment.defaultGroup ? 0 : name == Experiment.holdoutGroup ? 2 : 1
            }
            return (rank(lhs.key), lhs.key) < (rank(rhs.key), rhs.key)
        }
        let groupsOut = order.map { $0.value.group($0.key) }
        var uplift: [(group: String, uplift: Double)] = []
        if let holdout = groupsOut.first(where: { $0.group == Experiment.holdoutGroup }),
            let baseline = holdout.resolutionRate
        {
            for group in groupsOut where group.group != Experiment.holdoutGroup {
                if let rate = group.resolutionRate { uplift.append((group.group, rate - baseline)) }
            }
        }
        let byReason = reasons.sorted { $0.key < $1.key }.map {
            StatsReport.Reason(reason: $0.key, episodes: $0.value.episodes, resolved: $0.value.resolved)
        }
        var report = StatsReport(
            since: since, until: until, groups: groupsOut, byReason: byReason, upliftVsHoldout: uplift)
        if sendTime != .due {
            report.bySendTime = SendTime.Arm.allCases.enumerated().map { index, arm in
                StatsReport.SendTimeArm(
                    arm: arm.rawValue, episodes: armEpisodes[index + 1], resolved: armResolved[index + 1])
            }
        }
        return report
    }
}

/// One group's counts while a report is made.
private struct Tally {
    var episodes = 0
    var open = 0
    var resolved = 0
    var forgotten = 0
    var afterReminders: (Int, Int, Int, Int) = (0, 0, 0, 0)
    var timesToFix = TimeToFix()

    mutating func add(_ resolved: Bool, reminders: UInt8, timeToFix: Double) {
        episodes += 1
        if resolved {
            self.resolved += 1
            switch reminders {
            case 0: afterReminders.0 += 1
            case 1: afterReminders.1 += 1
            case 2: afterReminders.2 += 1
            default: afterReminders.3 += 1
            }
            timesToFix.add(timeToFix)
        } else {
            forgotten += 1
        }
    }

    mutating func merge(_ other: Tally) {
        episodes += other.episodes
        open += other.open
        resolved += other.resolved
        forgotten += other.forgotten
        afterReminders.0 += other.afterReminders.0
        afterReminders.1 += other.afterReminders.1
        afterReminders.2 += other.afterReminders.2
        afterReminders.3 += other.afterReminders.3
        timesToFix.merge(other.timesToFix)
    }

    func group(_ name: String) -> StatsReport.Group {
        StatsReport.Group(
            group: name, episodes: episodes, open: open, resolved: resolved, forgotten: forgotten,
            resolutionRate: episodes > 0 ? Double(resolved) / Double(episodes) : nil,
            resolutionRateCI95: StatsReport.wilson(successes: resolved, trials: episodes),
            timeToFixP50: timesToFix.quantile(0.5), timeToFixP90: timesToFix.quantile(0.9),
            resolvedAfterReminders: [afterReminders.0, afterReminders.1, afterReminders.2, afterReminders.3])
    }
}

/// Times to fix, for their quantiles: exact (kept and sorted) up to `exactLimit` values, then a
/// histogram with buckets 1 % wide, so a million episodes cost a pass, not a sort, and every
/// quantile is within 1 %.
struct TimeToFix {
    static let exactLimit = 20_000
    /// log(1.01): bucket `b` holds values in [1.01^b − 1, 1.01^(b+1) − 1).
    private static let step = log(1.01)
    /// Enough buckets for 10^10 s (over 300 years); longer times share the last one.
    private static let bucketCount = Int((log1p(1e10) / step).rounded(.up)) + 1

    private var values: [Double] = []
    private var buckets: [Int] = []
    private var total = 0

    mutating func add(_ value: Double) {
        total += 1
        if buckets.isEmpty && values.count < Self.exactLimit {
            values.append(value)
            return
        }
        spill()
        buckets[Self.bucket(value)] += 1
    }

    /// Moves the exact values into the histogram.
    private mutating func spill() {
        guard buckets.isEmpty else { return }
        buckets = [Int](repeating: 0, count: Self.bucketCount)
        for kept in values { buckets[Self.bucket(kept)] += 1 }
        values = []
    }

    mutating func merge(_ other: TimeToFix) {
        if other.buckets.isEmpty {
            for value in other.values { add(value) }
            return
        }
        spill()
        for index in 0..<Self.bucketCount { buckets[index] += other.buckets[index] }
        total += other.total
    }

    private static func bucket(_ value: Double) -> Int {
        min(bucketCount - 1, Int((log1p(max(0, value)) / step).rounded(.down)))
    }

    /// The nearest-rank quantile `q` (the value at rank ⌈q·n⌉); nil without values.
    func quantile(_ q: Double) -> Double? {
        guard total > 0 else { return nil }
        let rank = max(1, Int((q * Double(total)).rounded(.up)))
        if buckets.isEmpty {
            return values.sorted()[rank - 1]
        }
        var seen = 0
        for (bucket, count) in buckets.enumerated() where count > 0 {
            seen += count
            if seen >= rank {
                // The bucket's middle, in the log scale it was cut in: within 0.5 % of any value in it.
                return expm1((Double(bucket) + 0.5) * Self.step)
            }
        }
        return nil
    }
}
