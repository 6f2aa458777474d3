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
        /// Bits 0–1: 0 no send-time arm, else 1 + the index in `SendTime.Arm.allCases`; bits 2–3
        /// the opening (the same for `Episode.Opening`).
        var sendTime: UInt8
        /// `FunnelMarks`, and the platform's code (`platformCode`): the last two bytes of padding.
        var marks: UInt8
        var platform: UInt8
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
            sendTime: outcome.sendTime, marks: outcome.marks,
            platform: ReportedPlatform(reported: outcome.platform), opening: outcome.opening)
    }

    /// Adds a line of the outcomes log read by `OutcomeLine`, without building its strings.
    public mutating func add(_ line: OutcomeLine) {
        // A handful of groups: a linear look among their bytes beats hashing a new String.
        let group =
            groups.firstIndex { $0.utf8.elementsEqual(line.group) }.map { UInt16($0) }
            ?? number(of: String(decoding: line.group, as: UTF8.self))
        add(
            group: group, reason: line.reason, startedAt: line.startedAt, closedAt: line.closedAt,
            resolved: line.resolved, reminders: line.reminders, sendTime: line.sendTime, marks: line.marks,
            platform: line.platform, opening: line.opening)
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
        sendTime: SendTime.Arm?, marks: FunnelMarks, platform: ReportedPlatform?, opening: Episode.Opening?
    ) {
        closed.append(
            Closed(
                startedAt: startedAt.timeIntervalSince1970,
                timeToFix: max(0, closedAt.timeIntervalSince(startedAt)), group: group,
                reason: UInt8(Self.reasonCode(reason)), resolved: resolved, reminders: UInt8(clamping: reminders),
                sendTime: UInt8(Self.armCode(sendTime) | Self.openingCode(opening) << 2), marks: marks.rawValue,
                platform: UInt8(Self.platformCode(platform))))
    }

    /// 0 for no platform, else 1 + its index in `ReportedPlatform.allCases`.
    private static func platformCode(_ platform: ReportedPlatform?) -> Int {
        platform.flatMap { ReportedPlatform.allCases.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
    }

    /// 0 for no opening, else 1 + its index in `Episode.Opening.allCases`.
    private static func openingCode(_ opening: Episode.Opening?) -> Int {
        opening.flatMap { Episode.Opening.allCases.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
    }

    private static func openingName(_ code: Int) -> String {
        code == 0 ? "unknown" : Episode.Opening.allCases[code - 1].rawValue
    }

    private static func platformName(_ code: Int) -> String {
        ReportedPlatform.statisticsName(code == 0 ? nil : ReportedPlatform.allCases[code - 1])
    }

    private static func reasonName(_ code: Int) -> String {
        code == 0 ? "unknown" : PermissionErrorType.allCases[code - 1].rawValue
    }

    /// 0 for no reason, else 1 + the reason's index in `PermissionErrorType.allCases`.
    private static func reasonCode(_ reason: PermissionErrorType?) -> Int {
        reason.flatMap { PermissionErrorType.allCases.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
    }

    /// 0 for no send-time arm, else 1 + the arm's index in `SendTime.Arm.allCases`.
    private static func armCode(_ arm: SendTime.Arm?) -> Int {
        arm.flatMap { SendTime.Arm.allCases.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
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

    /// The report for episodes that opened in `[since, until)`: the closed ones held here and
    /// those summed in `sums` and `funnelSums` (a store's per-day sums of days inside the
    /// window, which this does not filter); `forEachOpen` calls its body with every open
    /// episode. While `sendTime` is `active` the report has `bySendTime`: closed episodes by
    /// the arm their outcome line names, open ones by the arm `sendTime` puts their user in.
    public func report(
        since: Date, until: Date, adding sums: [OutcomeAggregate.Keyed] = [],
        funnelSums: [FunnelAggregate.Keyed] = [], sendTime: SendTime = .due,
        forEachOpen: ((OpenEpisode) -> Void) -> Void
    ) -> StatsReport {
        let armCount = SendTime.Arm.allCases.count + 1
        var armEpisodes = [Int](repeating: 0, count: armCount)
        var armResolved = [Int](repeating: 0, count: armCount)
        let lower = since.timeIntervalSince1970
        let upper = until.timeIntervalSince1970
        var tallies: [String: Tally] = [:]
        var reasons: [String: (episodes: Int, resolved: Int)] = [:]
        // The scan touches a million entries: plain arrays indexed by small numbers, no
        // strings or dictionaries inside the loop.
        let reasonCount = PermissionErrorType.allCases.count + 1
        var reasonEpisodes = [Int](repeating: 0, count: reasonCount)
        var reasonResolved = [Int](repeating: 0, count: reasonCount)
        var perGroup = [OutcomeAggregate](repeating: OutcomeAggregate(), count: groups.count)
        // The funnel by group, reason and platform, indexed like the rest.
        var funnel = FunnelTally(groups: groups.count)
        for entry in closed where entry.startedAt >= lower && entry.startedAt < upper {
            perGroup[Int(entry.group)].add(
                resolved: entry.resolved, reminders: Int(entry.reminders), timeToFix: entry.timeToFix)
            funnel.add(
                FunnelMarks(rawValue: entry.marks), resolved: entry.resolved, group: Int(entry.group),
                reason: Int(entry.reason), platform: Int(entry.platform), opening: Int(entry.sendTime >> 2))
            reasonEpisodes[Int(entry.reason)] += 1
            if entry.resolved { reasonResolved[Int(entry.reason)] += 1 }
            armEpisodes[Int(entry.sendTime & 3)] += 1
            if entry.resolved { armResolved[Int(entry.sendTime & 3)] += 1 }
        }
        for keyed in sums {
            let code = Self.reasonCode(keyed.reason)
            reasonEpisodes[code] += keyed.sum.episodes
            reasonResolved[code] += keyed.sum.resolved
            let arm = Self.armCode(keyed.sendTime)
            armEpisodes[arm] += keyed.sum.episodes
            armResolved[arm] += keyed.sum.resolved
            tallies[keyed.group, default: Tally()].closed.merge(keyed.sum)
        }
        for code in 0..<reasonCount where reasonEpisodes[code] > 0 {
            reasons[Self.reasonName(code), default: (0, 0)].episodes += reasonEpisodes[code]
            reasons[Self.reasonName(code), default: (0, 0)].resolved += reasonResolved[code]
        }
        var funnelByGroup: [String: FunnelAggregate] = [:]
        var funnelByReason: [String: FunnelAggregate] = [:]
        var funnelByPlatform: [String: FunnelAggregate] = [:]
        var funnelByOpening: [String: FunnelAggregate] = [:]
        for (index, sum) in funnel.byGroup.enumerated() where sum.episodes > 0 {
            funnelByGroup[groups[index], default: FunnelAggregate()].merge(sum)
        }
        for (code, sum) in funnel.byReason.enumerated() where sum.episodes > 0 {
            funnelByReason[Self.reasonName(code), default: FunnelAggregate()].merge(sum)
        }
        for (code, sum) in funnel.byPlatform.enumerated() where sum.episodes > 0 {
            funnelByPlatform[Self.platformName(code), default: FunnelAggregate()].merge(sum)
        }
        for (code, sum) in funnel.byOpening.enumerated() where sum.episodes > 0 {
            funnelByOpening[Self.openingName(code), default: FunnelAggregate()].merge(sum)
        }
        for keyed in funnelSums {
            funnelByGroup[keyed.group, default: FunnelAggregate()].merge(keyed.sum)
            funnelByReason[Self.reasonName(Self.reasonCode(keyed.reason)), default: FunnelAggregate()].merge(keyed.sum)
            funnelByPlatform[ReportedPlatform.statisticsName(keyed.platform), default: FunnelAggregate()].merge(
                keyed.sum)
            funnelByOpening[Self.openingName(Self.openingCode(keyed.opening)), default: FunnelAggregate()].merge(
                keyed.sum)
        }
        for (index, sum) in perGroup.enumerated() where sum.episodes > 0 {
            tallies[groups[index], default: Tally()].closed.merge(sum)
        }
        forEachOpen { episode in
            let start = episode.startedAt.timeIntervalSince1970
            guard start >= lower && start < upper else { return }
            if let userID = episode.userID, sendTime != .due {
                armEpisodes[Self.armCode(sendTime.arm(for: userID))] += 1
            }
            tallies[episode.group, default: Tally()].open += 1
            let reason = episode.reason?.rawValue ?? "unknown"
            reasons[reason, default: (0, 0)].episodes += 1
            funnelByGroup[episode.group, default: FunnelAggregate()].add(episode.marks, resolved: false)
            funnelByReason[reason, default: FunnelAggregate()].add(episode.marks, resolved: false)
            funnelByPlatform[ReportedPlatform.statisticsName(episode.platform), default: FunnelAggregate()].add(
                episode.marks, resolved: false)
            funnelByOpening[Self.openingName(Self.openingCode(episode.opening)), default: FunnelAggregate()].add(
                episode.marks, resolved: false)
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
        report.funnel = StatsReport.Funnel(
            byGroup: order.map {
                StatsReport.NamedFunnel(name: $0.key, sum: funnelByGroup[$0.key] ?? FunnelAggregate())
            },
            byReason: funnelByReason.sorted { $0.key < $1.key }.map {
                StatsReport.NamedFunnel(name: $0.key, sum: $0.value)
            },
            byPlatform: funnelByPlatform.sorted { $0.key < $1.key }.map {
                StatsReport.NamedFunnel(name: $0.key, sum: $0.value)
            },
            byOpening: funnelByOpening.sorted { $0.key < $1.key }.map {
                StatsReport.NamedFunnel(name: $0.key, sum: $0.value)
            })
        var reached = FunnelAggregate()
        for sum in funnelByGroup.values { reached.merge(sum) }
        report.byChannel = ReminderChannel.allCases.enumerated().map { index, channel in
            StatsReport.NamedResolution(
                name: channel.rawValue, episodes: reached.channelEpisodes[index],
                resolved: reached.channelResolved[index])
        }
        if sendTime != .due {
            report.bySendTime = SendTime.Arm.allCases.enumerated().map { index, arm in
                StatsReport.NamedResolution(
                    name: arm.rawValue, episodes: armEpisodes[index + 1], resolved: armResolved[index + 1])
            }
        }
        return report
    }
}

/// The funnel while a report is made: sums indexed by group number, reason code and platform
/// code, so that the scan of a million closed episodes builds no strings.
private struct FunnelTally {
    var byGroup: [FunnelAggregate]
    var byReason = [FunnelAggregate](repeating: FunnelAggregate(), count: PermissionErrorType.allCases.count + 1)
    var byPlatform = [FunnelAggregate](repeating: FunnelAggregate(), count: ReportedPlatform.allCases.count + 1)
    var byOpening = [FunnelAggregate](repeating: FunnelAggregate(), count: Episode.Opening.allCases.count + 1)

    init(groups: Int) { byGroup = [FunnelAggregate](repeating: FunnelAggregate(), count: groups) }

    mutating func add(_ marks: FunnelMarks, resolved: Bool, group: Int, reason: Int, platform: Int, opening: Int) {
        byGroup[group].add(marks, resolved: resolved)
        byReason[reason].add(marks, resolved: resolved)
        byPlatform[platform].add(marks, resolved: resolved)
        byOpening[opening].add(marks, resolved: resolved)
    }
}

/// One group's counts while a report is made.
private struct Tally {
    var closed = OutcomeAggregate()
    var open = 0

    func group(_ name: String) -> StatsReport.Group {
        let episodes = closed.episodes + open
        return StatsReport.Group(
            group: name, episodes: episodes, open: open, resolved: closed.resolved, forgotten: closed.forgotten,
            resolutionRate: episodes > 0 ? Double(closed.resolved) / Double(episodes) : nil,
            resolutionRateCI95: StatsReport.wilson(successes: closed.resolved, trials: episodes),
            timeToFixP50: closed.timesToFix.quantile(0.5), timeToFixP90: closed.timesToFix.quantile(0.9),
            resolvedAfterReminders: closed.resolvedAfterReminders)
    }
}
