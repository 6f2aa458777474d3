import Foundation
import RemindCore

/// The figures of a finished simulation: per day and against the goals.
struct Report {
    struct Row {
        var day: Int
        var shareToBest: Double
        var regret: Double
        var evenRegret: Double
        var holdoutShare: Double
        var uplift: Double?
        var upliftCI: ClosedRange<Double>?
    }

    var rows: [Row] = []
    var shareToBestFromDay30: Double
    var lowestShareFromDay30: Double
    var regretRatio: Double
    var holdoutShare: Double
    var holdoutTarget: Double
    var uplift: Double?
    var upliftCI: ClosedRange<Double>?

    init(_ simulation: Simulation) {
        var regret = 0.0
        var even = 0.0
        var episodes = 0
        var holdout = 0
        var arms = [0, 0]
        var resolved = [0, 0]
        var toBestLate = 0
        var nonHoldoutLate = 0
        var lowest = 1.0
        for (day, figures) in simulation.days.enumerated() {
            regret += figures.regret
            even += figures.evenRegret
            episodes += figures.episodes
            holdout += figures.holdout
            for arm in 0..<2 {
                arms[arm] += figures.armEpisodes[arm]
                resolved[arm] += figures.armResolved[arm]
            }
            let share = figures.nonHoldout > 0 ? Double(figures.toBest) / Double(figures.nonHoldout) : 0
            if day >= 30 {
                toBestLate += figures.toBest
                nonHoldoutLate += figures.nonHoldout
                lowest = min(lowest, share)
            }
            let difference = Self.difference(
                successes: (resolved[1], resolved[0]), trials: (arms[1], arms[0]))
            rows.append(
                Row(
                    day: day + 1, shareToBest: share, regret: regret, evenRegret: even,
                    holdoutShare: episodes > 0 ? Double(holdout) / Double(episodes) : 0, uplift: difference?.value,
                    upliftCI: difference?.interval))
        }
        shareToBestFromDay30 = nonHoldoutLate > 0 ? Double(toBestLate) / Double(nonHoldoutLate) : 0
        lowestShareFromDay30 = lowest
        regretRatio = even > 0 ? regret / even : 0
        holdoutShare = rows.last?.holdoutShare ?? 0
        holdoutTarget = simulation.settings.holdoutPercent / 100
        uplift = rows.last?.uplift
        upliftCI = rows.last?.upliftCI
    }

    var goals: [(name: String, met: Bool)] {
        [
            ("share to the best variant from day 31 ≥ 80 %", shareToBestFromDay30 >= 0.8),
            ("regret at day 90 ≤ 40 % of the even split's", regretRatio <= 0.4),
            ("holdout share within ±0.5 pp", abs(holdoutShare - holdoutTarget) <= 0.005),
        ]
    }

    /// The difference of two rates (first − second) with Newcombe's hybrid score interval,
    /// built from the two Wilson intervals `/v1/stats` reports.
    static func difference(
        successes: (Int, Int), trials: (Int, Int)
    ) -> (value: Double, interval: ClosedRange<Double>)? {
        guard let first = StatsReport.wilson(successes: successes.0, trials: trials.0),
            let second = StatsReport.wilson(successes: successes.1, trials: trials.1)
        else { return nil }
        let p1 = Double(successes.0) / Double(trials.0)
        let p2 = Double(successes.1) / Double(trials.1)
        let d = p1 - p2
        let low =
            d
            - ((p1 - first.lowerBound) * (p1 - first.lowerBound) + (second.upperBound - p2) * (second.upperBound - p2))
            .squareRoot()
        let high =
            d
            + ((first.upperBound - p1) * (first.upperBound - p1) + (p2 - second.lowerBound) * (p2 - second.lowerBound))
            .squareRoot()
        return (d, low...high)
    }

    /// The episodes of each day along the funnel: each step's count and its share of the step
    /// before.
    static func funnelTable(_ simulation: Simulation) -> String {
        var lines = [
            "| day | " + FunnelAggregate.steps.joined(separator: " | ") + " |",
            "|---:|" + String(repeating: "---:|", count: FunnelAggregate.steps.count),
        ]
        var total = FunnelAggregate()
        func row(_ label: String, _ funnel: FunnelAggregate) -> String {
            let cells = funnel.reached.indices.map { step -> String in
                guard step > 0 else { return "\(funnel.reached[0])" }
                let previous = funnel.reached[step - 1]
                let share = previous > 0 ? Double(funnel.reached[step]) / Double(previous) * 100 : 0
                return String(format: "%d (%.0f %%)", funnel.reached[step], share)
            }
            return "| \(label) | " + cells.joined(separator: " | ") + " |"
        }
        for (day, figures) in simulation.days.enumerated() {
            total.merge(figures.funnel)
            lines.append(row("\(day + 1)", figures.funnel))
        }
        lines.append(row("all", total))
        return lines.joined(separator: "\n")
    }

    /// The resolution of non-holdout episodes with asks in the app against the same population
    /// without them (`control`), with Newcombe's interval.
    static func inAppUplift(
        _ simulation: Simulation, control: Simulation
    ) -> (
        value: Double, interval: ClosedRange<Double>, rates: (Double, Double)
    )? {
        func sums(_ run: Simulation) -> (Int, Int) {
            run.days.reduce((0, 0)) { ($0.0 + $1.remindableResolved, $0.1 + $1.remindable) }
        }
        let (with, without) = (sums(simulation), sums(control))
        guard let difference = difference(successes: (with.0, without.0), trials: (with.1, without.1)) else {
            return nil
        }
        return (
            difference.value, difference.interval,
            (Double(with.0) / Double(max(1, with.1)), Double(without.0) / Double(max(1, without.1)))
        )
    }

    func table() -> String {
        var lines = [
            "| day | to best | regret | even split's | ratio | holdout | send-time uplift (95 % CI) |",
            "|---:|---:|---:|---:|---:|---:|---|",
        ]
        for row in rows {
            let uplift =
                row.uplift.map { value in
                    let ci =
                        row.upliftCI.map {
                            String(format: " (%+.1f … %+.1f)", $0.lowerBound * 100, $0.upperBound * 100)
                        } ?? ""
                    return String(format: "%+.1f pts", value * 100) + ci
                } ?? "—"
            lines.append(
                String(
                    format: "| %d | %.1f %% | %.1f | %.1f | %.2f | %.2f %% | %@ |", row.day, row.shareToBest * 100,
                    row.regret,
                    row.evenRegret, row.evenRegret > 0 ? row.regret / row.evenRegret : 0, row.holdoutShare * 100, uplift
                ))
        }
        return lines.joined(separator: "\n")
    }

    func json(seconds: Double, simulation: Simulation, control: Simulation? = nil) -> String {
        var writer = JSONWriter(reservingCapacity: 512)
        writer.beginObject()
        writer.member("users", simulation.settings.users)
        writer.member("days", simulation.settings.days)
        writer.key("shareToBestFromDay31")
        writer.double(shareToBestFromDay30)
        writer.key("lowestDailyShareFromDay31")
        writer.double(lowestShareFromDay30)
        writer.key("regretRatio")
        writer.double(regretRatio)
        writer.key("holdoutShare")
        writer.double(holdoutShare)
        writer.key("sendTimeUplift")
        writer.value(uplift.map(JSONValue.double) ?? .null)
        writer.key("sendTimeUpliftCI95")
        writer.value(upliftCI.map { .array([.double($0.lowerBound), .double($0.upperBound)]) } ?? .null)
        writer.member("firstLearnedDay", simulation.firstLearnedDay.map { $0 + 1 })
        var funnel = FunnelAggregate()
        for day in simulation.days { funnel.merge(day.funnel) }
        writer.key("funnel")
        writer.beginObject()
        for (index, step) in FunnelAggregate.steps.enumerated() { writer.member(step, funnel.reached[index]) }
        writer.endObject()
        if let control, let uplift = Self.inAppUplift(simulation, control: control) {
            writer.key("inAppResolution")
            writer.double(uplift.rates.0)
            writer.key("withoutInAppResolution")
            writer.double(uplift.rates.1)
            writer.key("inAppUplift")
            writer.double(uplift.value)
            writer.key("inAppUpliftCI95")
            writer.value(.array([.double(uplift.interval.lowerBound), .double(uplift.interval.upperBound)]))
        }
        writer.key("seconds")
        writer.double(seconds)
        writer.member("met", goals.allSatisfy(\.met))
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
