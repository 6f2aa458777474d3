import ArgumentParser
import Foundation
import RemindClient
import RemindCore

/// `remindctl stats`: did the reminders work, per experiment group (docs/outcomes.md), as a table a
/// product manager can read.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show whether reminders make users fix their settings, per group and reason.",
        discussion: """
            Counts the episodes (stretches without the access reminded of) that opened in the \
            window: how many were resolved, the resolution rate with its 95 % interval, the time \
            to fix, after how many reminders, and each group's uplift over the holdout. Open \
            episodes count as not resolved.

            --since and --until take an RFC 3339 timestamp or a span back from now (30d, 12h).

            Examples:
              remindctl stats
              remindctl stats --since 90d
              remindctl stats --since 2026-11-01T00:00:00Z --until 2026-12-01T00:00:00Z
              remindctl --json stats --since 7d
              remindctl stats --funnel

            --funnel shows instead where users are lost on the way (docs/outcomes.md): \
            of the episodes, how many were reminded, opened a reminder, were asked in the app, \
            saw the ask, accepted it and fixed the setting, each step counting the episodes \
            that reached every step before it, with its rate of the step before; by group, \
            reason and platform; and the resolution of episodes with an accepted ask against \
            those asked that never accepted.
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    @Option(help: ArgumentHelp("Episodes that opened at or after this time (default: 30d).", valueName: "time"))
    var since: String?

    @Option(help: ArgumentHelp("Episodes that opened before this time (default: now).", valueName: "time"))
    var until: String?

    @Flag(help: "Show the funnel from reminder to fix instead of the outcomes.")
    var funnel = false

    /// A timestamp, or a span back from `now` (`30d` is 30 days ago).
    static func instant(_ text: String, now: Date) -> Date? {
        if let date = RFC3339.parse(text) { return date }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()), count >= 0 else {
            return nil
        }
        return now.addingTimeInterval(-Double(count) * unit)
    }

    func validate() throws {
        let now = Date()
        for (flag, value) in [("--since", since), ("--until", until)] {
            if let value, Self.instant(value, now: now) == nil {
                throw ValidationError("\(flag) must be an RFC 3339 timestamp or a span such as 30d, got \"\(value)\"")
            }
        }
    }

    func run() throws {
        let session = try options.session()
        let now = Date()
        let sinceDate = since.flatMap { Self.instant($0, now: now) }
        let untilDate = until.flatMap { Self.instant($0, now: now) }
        guard
            let report = try session.call({ client throws(DaemonClientError) in
                try client.stats(since: sinceDate, until: untilDate)
            })
        else { return }
        let terminal = session.terminal
        let time = session.time
        terminal.line("Episodes that opened from \(time.both(report.since)) to \(time.both(report.until))")
        guard !report.groups.isEmpty else {
            terminal.line("No episodes in this window.")
            return
        }
        if funnel {
            Self.printFunnel(report, terminal)
            return
        }
        terminal.line("")
        var table = Table(
            header: [
                "GROUP", "EPISODES", "RESOLVED", "OPEN", "FORGOTTEN", "RATE", "95% CI", "FIX p50", "FIX p90",
                "AFTER 0/1/2/3+", "UPLIFT",
            ],
            rightAligned: [1, 2, 3, 4, 5, 8, 9])
        let uplift = Dictionary(report.upliftVsHoldout.map { ($0.group, $0.uplift) }, uniquingKeysWith: { $1 })
        for group in report.groups {
            table.append([
                group.group, "\(group.episodes)", "\(group.resolved)", "\(group.open)", "\(group.forgotten)",
                group.resolutionRate.map(Self.percent) ?? "—",
                group.resolutionRateCI95.map { "\(Self.percent($0.lowerBound))–\(Self.percent($0.upperBound))" } ?? "—",
                group.timeToFixP50.map(Self.duration) ?? "—", group.timeToFixP90.map(Self.duration) ?? "—",
                group.resolvedAfterReminders.map(String.init).joined(separator: "/"),
                uplift[group.group].map { ($0 >= 0 ? "+" : "") + Self.points($0) } ?? "—",
            ])
        }
        table.print(terminal)
        if let allocation = report.allocation {
            terminal.line("")
            var heading = "Allocation: \(allocation.type)"
            if let computedAt = allocation.computedAt {
                heading += allocation.learned ? ", learned" : ", configured weights while training"
                heading += ", computed \(time.both(computedAt))"
            }
            terminal.line(heading)
            var weights = Table(
                header: allocation.type == "adaptive"
                    ? ["GROUP", "WEIGHT", "P(BEST)", "SUCCESSES", "FAILURES"] : ["GROUP", "WEIGHT"],
                rightAligned: [1, 2, 3, 4])
            for group in allocation.groups {
                var row = [group.name, Self.percent(group.weight)]
                if allocation.type == "adaptive" {
                    row += [
                        group.probabilityBest.map(Self.percent) ?? "—", "\(group.successes)", "\(group.failures)",
                    ]
                }
                weights.append(row)
            }
            weights.print(terminal)
        }
        if !report.bySendTime.isEmpty {
            Self.printResolutions("SEND TIME", report.bySendTime, terminal)
            if let uplift = report.sendTimeUplift {
                terminal.line("Send-time uplift (active − due): \(uplift >= 0 ? "+" : "")\(Self.points(uplift))")
            }
        }
        // The channels (docs/fallback.md): shown once any episode got a reminder.
        if report.byChannel.contains(where: { $0.episodes > 0 }) {
            Self.printResolutions("CHANNEL", report.byChannel, terminal)
        }
        if !report.byReason.isEmpty {
            terminal.line("")
            var reasons = Table(header: ["REASON", "EPISODES", "RESOLVED"], rightAligned: [1, 2])
            for reason in report.byReason {
                reasons.append([reason.reason, "\(reason.episodes)", "\(reason.resolved)"])
            }
            reasons.print(terminal)
        }
        Self.printKept(report, terminal, time: time)
    }

    /// Episodes of each kind with their resolution rate and its interval: `bySendTime`, `byChannel`.
    static func printResolutions(_ heading: String, _ resolutions: [StatsReport.NamedResolution], _ terminal: Terminal)
    {
        terminal.line("")
        var table = Table(header: [heading, "EPISODES", "RESOLVED", "RATE", "95% CI"], rightAligned: [1, 2, 3])
        for resolution in resolutions {
            table.append([resolution.name] + rateCells(resolution.episodes, resolution.resolved))
        }
        table.print(terminal)
    }

    /// Episodes by how they opened, and whether gains of Always were still held 7, 30 and 90
    /// days on (docs/outcomes.md "Always kept").
    static func printKept(_ report: StatsReport, _ terminal: Terminal, time: TimeText) {
        if !report.funnel.byOpening.isEmpty {
            printResolutions(
                "OPENING",
                report.funnel.byOpening.map {
                    StatsReport.NamedResolution(name: $0.name, episodes: $0.sum.episodes, resolved: $0.sum.resolved)
                }, terminal)
        }
        guard let kept = report.alwaysKept else { return }
        terminal.line("")
        terminal.line(
            "Always kept (histories read \(time.both(kept.computedAt))): gains of Always still held N days on")
        var table = Table(
            header: ["PLATFORM"] + AlwaysKeptTally.horizons.flatMap { ["\($0)d GAINS", "KEPT", "95% CI"] },
            rightAligned: [1, 2, 4, 5, 7, 8])
        for (name, horizons) in [("all", kept.overall)] + kept.byPlatform.map({ ($0.name, $0.horizons) }) {
            table.append(
                [name]
                    + horizons.flatMap { horizon in
                        [
                            "\(horizon.users)", horizon.rate.map(percent) ?? "—",
                            horizon.rateCI95.map { "\(percent($0.lowerBound))–\(percent($0.upperBound))" } ?? "—",
                        ]
                    })
        }
        table.print(terminal)
    }

    /// The funnel's tables: a row per group, reason and platform, each step's count and its
    /// rate of the step before; then the resolution after an accepted ask.
    static func printFunnel(_ report: StatsReport, _ terminal: Terminal) {
        let splits = [
            ("GROUP", report.funnel.byGroup), ("REASON", report.funnel.byReason),
            ("PLATFORM", report.funnel.byPlatform),
        ]
        for (title, list) in splits where !list.isEmpty {
            terminal.line("")
            var table = Table(
                header: [title] + FunnelAggregate.steps.map { $0.uppercased() },
                rightAligned: Set(1...FunnelAggregate.steps.count))
            for named in list {
                let reached = named.sum.reached
                table.append(
                    [named.name]
                        + reached.indices.map { step in
                            guard step > 0 else { return "\(reached[0])" }
                            let rate = reached[step - 1] > 0 ? Double(reached[step]) / Double(reached[step - 1]) : nil
                            return "\(reached[step]) (\(rate.map(percent) ?? "—"))"
                        })
            }
            table.print(terminal)
        }
        terminal.line("")
        terminal.line("Resolved after an ask: episodes with an accepted ask against those asked that never accepted")
        var after = Table(
            header: ["GROUP", "ACCEPTED", "RESOLVED", "RATE", "95% CI", "NOT ACCEPTED", "RESOLVED", "RATE", "95% CI"],
            rightAligned: [1, 2, 3, 5, 6, 7])
        for named in report.funnel.byGroup {
            let sum = named.sum
            after.append(
                [named.name] + rateCells(sum.accepted, sum.acceptedResolved)
                    + rateCells(sum.notAccepted, sum.notAcceptedResolved))
        }
        after.print(terminal)
    }

    private static func rateCells(_ episodes: Int, _ resolved: Int) -> [String] {
        let interval = StatsReport.wilson(successes: resolved, trials: episodes)
        return [
            "\(episodes)", "\(resolved)", episodes > 0 ? percent(Double(resolved) / Double(episodes)) : "—",
            interval.map { "\(percent($0.lowerBound))–\(percent($0.upperBound))" } ?? "—",
        ]
    }

    static func percent(_ rate: Double) -> String { String(format: "%.1f%%", rate * 100) }
    /// Percentage points: an uplift of 0.12 is 12 points, not 12 %.
    static func points(_ difference: Double) -> String { String(format: "%.1f pts", difference * 100) }

    /// `3d 4h`, `5h 12m`, `42m`, `30s`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let days = total / 86_400
        let hours = total % 86_400 / 3_600
        let minutes = total % 3_600 / 60
        if days > 0 { return hours > 0 ? "\(days)d \(hours)h" : "\(days)d" }
        if hours > 0 { return minutes > 0 ? "\(hours)h \(minutes)m" : "\(hours)h" }
        if minutes > 0 { return "\(minutes)m" }
        return "\(total)s"
    }
}
