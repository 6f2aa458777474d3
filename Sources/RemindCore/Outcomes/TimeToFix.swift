import Foundation

/// Times to fix, for their quantiles: exact (kept and sorted) up to `exactLimit` values, then a
/// histogram with buckets 1 % wide, so a million episodes cost a pass, not a sort, and every
/// quantile is within 1 %.
///
/// Merging is exact: times summed in parts and merged give the quantiles that adding every
/// time to one value gives, whatever the parts (kept values are added one by one, histograms
/// bucket by bucket), which is what lets a store keep them summed per day.
public struct TimeToFix: Sendable, Equatable {
    public static let exactLimit = 20_000
    /// log(1.01): bucket `b` holds values in [1.01^b − 1, 1.01^(b+1) − 1).
    private static let step = log(1.01)
    /// Enough buckets for 10^10 s (over 300 years); longer times share the last one.
    static let bucketCount = Int((log1p(1e10) / step).rounded(.up)) + 1

    private var values: [Double] = []
    private var buckets: [Int] = []
    public private(set) var total = 0

    public init() {}

    /// The times themselves, added in order (past `exactLimit` they go into the histogram).
    public init(exactValues: [Double]) {
        for value in exactValues { add(value) }
    }

    /// Times known by their buckets alone (what `histogram` gave): merged into others, they
    /// give what the times themselves give wherever the total is past `exactLimit`, where
    /// quantiles come from the histogram anyway. Nil for a bucket out of range or a count
    /// below one.
    public init?(histogram: [(bucket: Int, count: Int)]) {
        guard !histogram.isEmpty else { return }
        buckets = [Int](repeating: 0, count: Self.bucketCount)
        for (bucket, count) in histogram {
            guard (0..<Self.bucketCount).contains(bucket), count > 0 else { return nil }
            buckets[bucket] += count
            total += count
        }
    }

    /// The values as they were added, while they are kept exactly; nil once in the histogram.
    public var exactValues: [Double]? { buckets.isEmpty ? values : nil }

    /// The buckets that hold values, as (bucket, count), whether the values are kept exactly
    /// or not.
    public var histogram: [(bucket: Int, count: Int)] {
        var counts = buckets
        if counts.isEmpty {
            counts = [Int](repeating: 0, count: Self.bucketCount)
            for value in values { counts[Self.bucket(value)] += 1 }
        }
        return counts.enumerated().filter { $0.element > 0 }.map { ($0.offset, $0.element) }
    }

    public mutating func add(_ value: Double) {
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

    public mutating func merge(_ other: TimeToFix) {
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
    public func quantile(_ q: Double) -> Double? {
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
