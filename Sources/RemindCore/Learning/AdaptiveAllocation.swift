import Foundation

/// The weights adaptive allocation splits new episodes by (docs/outcomes.md "Adaptive
/// allocation"), as a pure function of the decided episodes, the settings and the recompute
/// time: Thompson sampling over Beta posteriors, floored.
///
/// Everything random comes from a `SeededGenerator` seeded by the recompute time, so every
/// instance that computes from the same counts at the same time gets the same weights.
public enum AdaptiveAllocation {
    /// Draws per recompute: the probability of being best is within about ±0.01 of the truth.
    public static let draws = 10_000

    /// A group's decided episodes: resolved ones are successes; forgotten ones and those open
    /// longer than the horizon are failures.
    public struct Decided: Sendable, Equatable {
        public var successes: Int
        public var failures: Int

        public init(successes: Int = 0, failures: Int = 0) {
            self.successes = successes
            self.failures = failures
        }

        public var count: Int { successes + failures }
    }

    /// The weights in force for the groups `configured` names (`default` and the variants with
    /// a positive configured weight, in configuration order).
    ///
    /// Until every group has `minEpisodes` decided episodes the configured weights apply
    /// (normalised); then each group's probability of being best, floored at `minWeight`.
    public static func compute(
        configured: [(name: String, weight: Double)], decided: [String: Decided], settings: Allocation.Adaptive,
        at computedAt: Date
    ) -> AllocationState {
        let groups = configured.filter { $0.weight > 0 }
        let counts = groups.map { decided[$0.name] ?? Decided() }
        let total = groups.reduce(0) { $0 + $1.weight }
        guard !groups.isEmpty, groups.count > 1, counts.allSatisfy({ $0.count >= settings.minEpisodes }) else {
            return AllocationState(
                computedAt: computedAt, learned: false,
                groups: zip(groups, counts).map { group, count in
                    AllocationState.Group(
                        name: group.name, weight: total > 0 ? group.weight / total : 0, probabilityBest: nil,
                        successes: count.successes, failures: count.failures)
                })
        }
        var generator = SeededGenerator(seed: seed(for: computedAt))
        let best = probabilityBest(counts, draws: draws, using: &generator)
        let weights = floored(best, minWeight: settings.minWeight)
        return AllocationState(
            computedAt: computedAt, learned: true,
            groups: groups.indices.map { index in
                AllocationState.Group(
                    name: groups[index].name, weight: weights[index], probabilityBest: best[index],
                    successes: counts[index].successes, failures: counts[index].failures)
            })
    }

    /// The recompute time's whole seconds: the seed every instance derives alike.
    public static func seed(for computedAt: Date) -> UInt64 {
        UInt64(bitPattern: Int64(computedAt.timeIntervalSince1970.rounded(.down)))
    }

    /// The recompute time a moment belongs to: the last multiple of `reweightSeconds` since
    /// 1970, so instances that recompute a little apart agree on the time and the seed.
    public static func slot(containing now: Date, reweightSeconds: Int64) -> Date {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let step = max(1, reweightSeconds)
        let floored = seconds >= 0 ? seconds / step * step : ((seconds + 1) / step - 1) * step
        return Date(timeIntervalSince1970: TimeInterval(floored))
    }

    /// Each group's share of `draws` rounds in which its Beta(1 + successes, 1 + failures)
    /// draw was the highest (ties: the first group).
    public static func probabilityBest<G: RandomNumberGenerator>(
        _ counts: [Decided], draws: Int, using generator: inout G
    ) -> [Double] {
        guard !counts.isEmpty, draws > 0 else { return counts.map { _ in 0 } }
        var wins = [Int](repeating: 0, count: counts.count)
        let shapes = counts.map { (Double(1 + $0.successes), Double(1 + $0.failures)) }
        for _ in 0..<draws {
            var bestIndex = 0
            var bestDraw = -1.0
            for (index, shape) in shapes.enumerated() {
                let draw = BetaSampler.beta(shape.0, shape.1, using: &generator)
                if draw > bestDraw {
                    bestDraw = draw
                    bestIndex = index
                }
            }
            wins[bestIndex] += 1
        }
        return wins.map { Double($0) / Double(draws) }
    }

    /// `probabilities` with every share raised to at least `minWeight` and the rest scaled to
    /// fill what remains, so the result sums to 1 and no share is below the floor (which needs
    /// `minWeight × count ≤ 1`, as the configuration checks).
    public static func floored(_ probabilities: [Double], minWeight: Double) -> [Double] {
        let count = probabilities.count
        guard count > 0 else { return [] }
        let floor = min(max(0, minWeight), 1 / Double(count))
        var pinned = [Bool](repeating: false, count: count)
        var weights = probabilities.map { max(0, $0) }
        while true {
            let pinnedCount = pinned.count { $0 }
            let remaining = 1 - floor * Double(pinnedCount)
            let free = (0..<count).filter { !pinned[$0] }
            let mass = free.reduce(0) { $0 + max(0, probabilities[$1]) }
            for index in free {
                weights[index] =
                    mass > 0 ? remaining * max(0, probabilities[index]) / mass : remaining / Double(free.count)
            }
            let below = free.filter { weights[$0] < floor }
            if below.isEmpty { break }
            for index in below {
                pinned[index] = true
                weights[index] = floor
            }
        }
        return weights
    }

    /// Decided episodes per group from two reports of the outcomes: `allTime` (every episode)
    /// and `openedBeforeHorizon` (those that opened more than the horizon ago, whose open ones
    /// have waited too long and count as failures).
    public static func decided(allTime: StatsReport, openedBeforeHorizon: StatsReport) -> [String: Decided] {
        var decided: [String: Decided] = [:]
        for group in allTime.groups {
            decided[group.group, default: Decided()].successes += group.resolved
            decided[group.group, default: Decided()].failures += group.forgotten
        }
        for group in openedBeforeHorizon.groups {
            decided[group.group, default: Decided()].failures += group.open
        }
        return decided
    }
}
