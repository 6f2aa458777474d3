import Foundation
import RemindCore
import RemindTesting
import Testing

/// Adaptive allocation's pure parts: the sampler, the weights, the floor, the holdout.
struct AdaptiveAllocationTests {
    static let settings = Allocation.Adaptive(minEpisodes: 200, minWeight: 0.05)
    static let configured: [(name: String, weight: Double)] = [("default", 1), ("a", 1), ("b", 1)]

    /// The sampler's draws have the distributions' means and stay in range, shapes below 1 too.
    @Test func betaAndGammaDrawsHaveTheirMeans() {
        var generator = SeededGenerator(seed: 7)
        for (a, b) in [(1.0, 1.0), (2.0, 8.0), (30.0, 70.0), (0.5, 0.5)] {
            var sum = 0.0
            for _ in 0..<20_000 {
                let draw = BetaSampler.beta(a, b, using: &generator)
                #expect((0...1).contains(draw))
                sum += draw
            }
            #expect(abs(sum / 20_000 - a / (a + b)) < 0.01, "Beta(\(a), \(b))")
        }
        for shape in [0.3, 1.0, 4.5] {
            var sum = 0.0
            for _ in 0..<20_000 { sum += BetaSampler.gamma(shape, using: &generator) }
            #expect(abs(sum / 20_000 - shape) < 0.05 * max(1, shape), "Gamma(\(shape))")
        }
    }

    /// A seed gives one sequence, another seed another.
    @Test func theGeneratorIsReproducible() {
        var first = SeededGenerator(seed: 42)
        var second = SeededGenerator(seed: 42)
        var other = SeededGenerator(seed: 43)
        let a = (0..<8).map { _ in first.next() }
        #expect(a == (0..<8).map { _ in second.next() })
        #expect(a != (0..<8).map { _ in other.next() })
    }

    /// Below `minEpisodes` in any group the configured weights apply, normalised.
    @Test func configuredWeightsApplyUntilEveryGroupHasEnough() {
        let decided: [String: AdaptiveAllocation.Decided] = [
            "default": .init(successes: 100, failures: 900), "a": .init(successes: 300, failures: 700),
            "b": .init(successes: 10, failures: 100),
        ]
        let state = AdaptiveAllocation.compute(
            configured: [("default", 2), ("a", 1), ("b", 1), ("off", 0)], decided: decided, settings: Self.settings,
            at: Fixtures.date("2026-11-01T00:00:00Z"))
        #expect(!state.learned)
        #expect(state.groups.map(\.name) == ["default", "a", "b"])
        #expect(state.groups.map(\.weight) == [0.5, 0.25, 0.25])
        #expect(state.groups.allSatisfy { $0.probabilityBest == nil })
    }

    /// With enough episodes the clearly best group gets most of the weight, the others their floor.
    @Test func theBestGroupGetsMostOnceTrained() {
        let decided: [String: AdaptiveAllocation.Decided] = [
            "default": .init(successes: 80, failures: 920), "a": .init(successes: 100, failures: 900),
            "b": .init(successes: 130, failures: 870),
        ]
        let state = AdaptiveAllocation.compute(
            configured: Self.configured, decided: decided, settings: Self.settings,
            at: Fixtures.date("2026-11-01T00:00:00Z"))
        #expect(state.learned)
        let weights = state.weights
        #expect(weights["b"]! > 0.85)
        #expect(weights["default"]! == 0.05)
        #expect(abs(state.groups.reduce(0) { $0 + $1.weight } - 1) < 1e-12)
        #expect(state.groups.first { $0.name == "b" }!.probabilityBest! > 0.9)
    }

    /// The same counts at the same time give the same weights; another time may differ.
    @Test func theSameInputsGiveTheSameWeights() {
        let decided: [String: AdaptiveAllocation.Decided] = [
            "default": .init(successes: 100, failures: 900), "a": .init(successes: 104, failures: 896),
            "b": .init(successes: 98, failures: 902),
        ]
        let at = Fixtures.date("2026-11-01T12:00:00Z")
        let first = AdaptiveAllocation.compute(
            configured: Self.configured, decided: decided, settings: Self.settings, at: at)
        let second = AdaptiveAllocation.compute(
            configured: Self.configured, decided: decided, settings: Self.settings, at: at)
        #expect(first == second)
        #expect(AdaptiveAllocation.seed(for: at) == AdaptiveAllocation.seed(for: at + .seconds(0)))
    }

    /// Property: for any probabilities and any feasible floor the weights sum to 1 and none is
    /// below the floor.
    @Test func flooredWeightsSumToOneAndHoldTheFloor() {
        var generator = SeededGenerator(seed: 1)
        for _ in 0..<2_000 {
            let count = Int(generator.next() % 8) + 1
            var probabilities = (0..<count).map { _ in BetaSampler.beta(0.3, 0.3, using: &generator) }
            if generator.next() % 4 == 0 { probabilities[0] = 0 }
            let floor = BetaSampler.beta(1, 1, using: &generator) / Double(count)
            let weights = AdaptiveAllocation.floored(probabilities, minWeight: floor)
            #expect(abs(weights.reduce(0, +) - 1) < 1e-9, "\(probabilities) floor \(floor)")
            #expect(weights.allSatisfy { $0 >= floor - 1e-12 }, "\(weights) floor \(floor)")
        }
    }

    /// Property: learned weights from random counts sum to 1 and hold the floor.
    @Test func learnedWeightsSumToOneAndHoldTheFloor() {
        var generator = SeededGenerator(seed: 2)
        for round in 0..<30 {
            var decided: [String: AdaptiveAllocation.Decided] = [:]
            for (name, _) in Self.configured {
                decided[name] = .init(
                    successes: Int(generator.next() % 500), failures: 200 + Int(generator.next() % 2_000))
            }
            let state = AdaptiveAllocation.compute(
                configured: Self.configured, decided: decided, settings: Self.settings,
                at: Date(timeIntervalSince1970: TimeInterval(round * 43_200)))
            #expect(state.learned)
            #expect(abs(state.groups.reduce(0) { $0 + $1.weight } - 1) < 1e-9)
            #expect(state.groups.allSatisfy { $0.weight >= 0.05 - 1e-12 })
            #expect(abs(state.groups.reduce(0) { $0 + $1.probabilityBest! } - 1) < 1e-9)
        }
    }

    /// The holdout's share is exactly its percentage's hash share whatever the weights: over
    /// 100,000 IDs the same users are held out under fixed and under any learned weights.
    @Test func theHoldoutShareNeverMoves() {
        let users = (0..<100_000).map { Fixtures.userID("user-\($0)") }
        let copy = CopySet(notificationTitle: "t")
        var experiment = Experiment(
            holdoutPercent: 10, variants: [.init(name: "a", copy: copy), .init(name: "b", copy: copy)],
            allocation: .adaptive(Self.settings))
        let fixed = users.map { experiment.group(for: $0) == Experiment.holdoutGroup }
        experiment.weightsInForce = ["default": 0.05, "a": 0.05, "b": 0.9]
        let learned = users.map { experiment.group(for: $0) }
        #expect(learned.map { $0 == Experiment.holdoutGroup } == fixed)
        let held = fixed.count { $0 }
        #expect((9_800...10_200).contains(held), "\(held)")
        let b = learned.count { $0 == "b" }
        #expect(abs(Double(b) / Double(100_000 - held) - 0.9) < 0.01, "\(b)")
    }

    /// Learned weights that do not name the configured groups (a reload added one) are ignored.
    @Test func weightsForOtherGroupsFallBackToTheConfiguredOnes() {
        let copy = CopySet(notificationTitle: "t")
        var experiment = Experiment(
            variants: [.init(name: "a", copy: copy), .init(name: "new", copy: copy)],
            allocation: .adaptive(Self.settings))
        experiment.weightsInForce = ["default": 0.5, "a": 0.5]
        #expect(experiment.weightsUsed.map(\.weight) == [1, 1, 1])
        experiment.weightsInForce = ["default": 0.2, "a": 0.3, "new": 0.5]
        #expect(experiment.weightsUsed.map(\.weight) == [0.2, 0.3, 0.5])
    }

    /// Decided episodes: resolved ones succeed; forgotten ones and those open past the horizon fail.
    @Test func decidedEpisodesCountFromTheTwoReports() {
        let all = StatsReport(
            since: .distantPast, until: .distantFuture,
            groups: [.init(group: "default", episodes: 10, open: 5, resolved: 4, forgotten: 1)], byReason: [],
            upliftVsHoldout: [])
        let old = StatsReport(
            since: .distantPast, until: .distantFuture,
            groups: [.init(group: "default", episodes: 6, open: 2, resolved: 3, forgotten: 1)], byReason: [],
            upliftVsHoldout: [])
        #expect(
            AdaptiveAllocation.decided(allTime: all, openedBeforeHorizon: old)["default"]
                == .init(successes: 4, failures: 3))
    }

    /// The recompute time is the slot's start, the same for instances a little apart.
    @Test func recomputeTimesAreSlots() {
        let slot = AdaptiveAllocation.slot(containing: Fixtures.date("2026-11-01T13:59:00Z"), reweightSeconds: 43_200)
        #expect(slot == Fixtures.date("2026-11-01T12:00:00Z"))
    }

    /// The state survives its durable form.
    @Test func theStateRoundTripsThroughJSON() throws {
        let state = AllocationState(
            computedAt: Fixtures.date("2026-11-01T12:00:00Z"), learned: true,
            groups: [
                .init(name: "default", weight: 0.25, probabilityBest: 0.1, successes: 3, failures: 4),
                .init(name: "a", weight: 0.75, probabilityBest: 0.9, successes: 5, failures: 6),
            ])
        #expect(try AllocationState(json: state.jsonBytes) == state)
    }
}
