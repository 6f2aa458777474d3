import Foundation

/// When a user uses their phone: 24 counts of their reports by hour of day of `observedAt` in
/// their time zone (UTC without one), every report counted, repeats too. All are halved when
/// their sum passes 64, so the last weeks weigh most and the counts stay small.
public struct ActivityHistogram: Sendable, Equatable {
    public static let halvingThreshold = 64

    public private(set) var counts: [UInt8]

    public init() { counts = [UInt8](repeating: 0, count: 24) }

    /// Counts as stored; nil unless there are exactly 24, each at most 255.
    public init?(counts: [Int]) {
        guard counts.count == 24, counts.allSatisfy({ (0...255).contains($0) }) else { return nil }
        self.counts = counts.map { UInt8($0) }
    }

    public var isEmpty: Bool { counts.allSatisfy { $0 == 0 } }

    /// The reports counted (after halving).
    public var total: Int { counts.reduce(0) { $0 + Int($1) } }

    /// The hour with the most reports, the earliest on a tie; nil before any report.
    public var mostActiveHour: Int? {
        var best: Int?
        for hour in 0..<24 where counts[hour] > 0 && (best.map { counts[hour] > counts[$0] } ?? true) {
            best = hour
        }
        return best
    }

    public mutating func add(hour: Int) {
        counts[hour] &+= 1
        if total > Self.halvingThreshold {
            for index in 0..<24 { counts[index] /= 2 }
        }
    }

    /// Counts a report observed at `observedAt` by a user in `timeZone`.
    public mutating func add(observedAt: Date, timeZone: String?) {
        add(hour: Self.hour(of: observedAt, timeZone: timeZone))
    }

    /// The hour of day (0…23) of `date` in `timeZone`; UTC when it is nil or unknown.
    public static func hour(of date: Date, timeZone: String?) -> Int {
        let offset = timeZone.flatMap(TimeZoneCache.zone).map { $0.secondsFromGMT(for: date) } ?? 0
        let local = Int64((date.timeIntervalSince1970).rounded(.down)) + Int64(offset)
        let secondOfDay = ((local % 86_400) + 86_400) % 86_400
        return Int(secondOfDay / 3_600)
    }
}
