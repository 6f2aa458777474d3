/// The experiment (docs/outcomes.md): a holdout that gets no reminders, and copy variants, so an
/// operator can tell whether reminders work and which words work best.
///
/// Each episode is assigned a group when it opens, by stable hashes of the user ID: `holdout`
/// when the hash (salt `holdout`) modulo 10,000 is below `holdoutPercent × 100`, else a
/// variant by a second hash (salt `variant`) weighted by `weight`, where the `notification`
/// block is the variant `default` with `defaultWeight`. The same user lands in the same group
/// on every machine and after every restart.
public struct Experiment: Sendable, Equatable {
    public static let defaultGroup = "default"
    public static let holdoutGroup = "holdout"
    /// The groups' own names, and the funnel's keys beside the groups in `/v1/stats`.
    public static let reservedNames: Set<String> = [defaultGroup, holdoutGroup, "byReason", "byPlatform"]

    public struct Variant: Sendable, Equatable {
        public var name: String
        public var weight: Double
        public var copy: CopySet

        public init(name: String, weight: Double = 1, copy: CopySet) {
            self.name = name
            self.weight = weight
            self.copy = copy
        }
    }

    /// 0…100, in steps of 0.01.
    public var holdoutPercent: Double
    public var defaultWeight: Double
    public var variants: [Variant]
    /// Fixed (the weights above) or adaptive (weights learned from outcomes).
    public var allocation: Allocation
    /// The learned weights in force (`AllocationState.weights`), set by the daemon, never read
    /// from the configuration file; ignored unless they name exactly the groups configured
    /// with a positive weight (a reload that changed the groups falls back to the configured
    /// weights until the next recompute).
    public var weightsInForce: [String: Double]?

    public init(
        holdoutPercent: Double = 0, defaultWeight: Double = 1, variants: [Variant] = [],
        allocation: Allocation = .fixed, weightsInForce: [String: Double]? = nil
    ) {
        self.holdoutPercent = holdoutPercent
        self.defaultWeight = defaultWeight
        self.variants = variants
        self.allocation = allocation
        self.weightsInForce = weightsInForce
    }

    /// `default` and the variants with their configured weights, in configuration order.
    public var configuredWeights: [(name: String, weight: Double)] {
        [(Self.defaultGroup, defaultWeight)] + variants.map { ($0.name, $0.weight) }
    }

    /// The weights new episodes are split by: the learned ones when they fit the configured
    /// groups, else the configured ones.
    public var weightsUsed: [(name: String, weight: Double)] {
        let configured = configuredWeights
        guard allocation != .fixed, let learned = weightsInForce,
            Set(learned.keys) == Set(configured.filter { $0.weight > 0 }.map(\.name))
        else { return configured }
        return configured.map { ($0.name, $0.weight > 0 ? learned[$0.name] ?? 0 : 0) }
    }

    /// The group a new episode of `userID` joins.
    public func group(for userID: UserID) -> String {
        let key = userID.rawValue
        if holdoutPercent > 0,
            StableHash.offset(for: key, salt: "holdout", window: 10_000) < Int64((holdoutPercent * 100).rounded())
        {
            return Self.holdoutGroup
        }
        let choices = weightsUsed.map { ($0.name, $0.weight) }
        let total = choices.reduce(0) { $0 + max(0, $1.1) }
        guard total > 0, choices.count > 1 else { return Self.defaultGroup }
        // A point in [0, total) from the hash, on a grid fine enough for any sensible weights.
        let resolution: Int64 = 1 << 40
        let point =
            Double(StableHash.offset(for: key, salt: "variant", window: resolution)) / Double(resolution) * total
        var upper = 0.0
        for (name, weight) in choices where weight > 0 {
            upper += weight
            if point < upper { return name }
        }
        return choices.last(where: { $0.1 > 0 })?.0 ?? Self.defaultGroup
    }

    /// The copy set of `group`: the variant's own, else `fallback` (the `notification` block,
    /// which is the `default` variant, and the set of any group no longer configured).
    public func copy(for group: String, fallback: CopySet) -> CopySet {
        variants.first { $0.name == group }?.copy ?? fallback
    }
}
