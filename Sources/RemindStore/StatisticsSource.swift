import Foundation
import RemindCore

/// The daemon-wide counts and the outcomes of the episodes: what `/v1/status`, `/metrics`,
/// `STATUS=` and `/v1/stats` show. `MemoryStateStore` is the reference reading.
///
/// Implementation requirements: **counts without scans.** Both are answered from counters and
/// aggregates kept current as records change, never by visiting every user or every outcome;
/// a backend shared by several daemons may answer counts up to 5 s old.
public protocol StatisticsSource: Sendable {
    /// The counts of `/v1/status` and the metrics.
    func statistics() async -> StoreStatistics
    /// The outcomes of the episodes that opened in `[since, until)`, open ones included
    /// (`/v1/stats`, docs/outcomes.md).
    func stats(since: Date, until: Date) async -> StatsReport
}
