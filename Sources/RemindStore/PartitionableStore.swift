import RemindCore

/// What a store offers to be a part of a `PartitionedStore`, beyond the `StateStore` contract:
/// what the router merges across parts without reading every record.
///
/// Implementation requirements: `userIDs` pages the IDs as `users(after:limit:)` pages the
/// records (byte order, the same users); `outcomeSources` gives the closed episodes' statistics
/// and every open episode as `stats` would count them.
public protocol PartitionableStore: StateStore {
    /// Up to `limit` user IDs following `after`, in ascending byte order.
    func userIDs(after: UserID?, limit: Int) async -> [UserID]
    /// What `stats` counts: the closed episodes and the open ones.
    func outcomeSources() async -> (closed: OutcomeStatistics, open: [OpenEpisode])
}
