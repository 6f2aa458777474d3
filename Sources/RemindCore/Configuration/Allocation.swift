/// How new episodes are split among the groups that get reminders (`default` and the variants;
/// the holdout keeps its share whatever this says), docs/outcomes.md "Adaptive allocation".
public enum Allocation: Sendable, Equatable {
    /// The configured weights, always.
    case fixed
    /// Weights learned from decided episodes (`AdaptiveAllocation`), recomputed every
    /// `reweightSeconds`.
    case adaptive(Adaptive)

    public struct Adaptive: Sendable, Equatable {
        /// How often the weights are recomputed.
        public var reweightSeconds: Int64
        /// An episode open longer than this counts as a failure.
        public var horizonSeconds: Int64
        /// Decided episodes every group needs before learned weights replace the configured ones.
        public var minEpisodes: Int
        /// The least share a group gets, so a group that looks bad early keeps being measured.
        public var minWeight: Double

        public init(
            reweightSeconds: Int64 = 43_200, horizonSeconds: Int64 = 1_209_600, minEpisodes: Int = 200,
            minWeight: Double = 0.05
        ) {
            self.reweightSeconds = reweightSeconds
            self.horizonSeconds = horizonSeconds
            self.minEpisodes = minEpisodes
            self.minWeight = minWeight
        }
    }

    public var adaptive: Adaptive? {
        if case .adaptive(let settings) = self { return settings }
        return nil
    }
}
