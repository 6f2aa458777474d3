import Foundation

/// "Always kept" (docs/outcomes.md): of the moments a user gained Always access, the share
/// that still had it 7, 30 and 90 days later — what shows whether a fix lasts (iOS asks
/// again whether to keep Always; a provisional Always may never be confirmed).
///
/// A gain is a history entry with Always access following one without it, or a user's first
/// report having it, at its `observedAt` t. At t + N days the user's state is the fold of the
/// reports observed by then (the newest history entry observed at or before it); the gain is
/// counted for N once t + N is past `computedAt`. Made by visiting every user's history
/// (`add`), summed per day of the gain and platform so that any window is a sum of days.
public struct AlwaysKeptTally: Sendable {
    /// The horizons, in days.
    public static let horizons = [7, 30, 90]

    /// Gains counted and kept, per horizon.
    struct Counts: Sendable {
        var users = [0, 0, 0]
        var kept = [0, 0, 0]

        mutating func merge(_ other: Counts) {
            for index in users.indices {
                users[index] += other.users[index]
                kept[index] += other.kept[index]
            }
        }
    }

    /// When the histories were read: a horizon is decided for gains at least that long before.
    public let computedAt: Date
    /// Per day of the gain (days since 1970 UTC), per platform code (0: none, else 1 + the
    /// index in `ReportedPlatform.allCases`).
    private var days: [Int: [Counts]] = [:]
    public private(set) var users = 0

    public init(computedAt: Date) { self.computedAt = computedAt }

    /// Adds one user's gains. A history cut at `historyMaxEntries` has lost its first report:
    /// its oldest entry is then no gain of its own.
    public mutating func add(_ record: UserRecord, historyMaxEntries: Int) {
        users += 1
        let history = record.history
        guard !history.isEmpty else { return }
        let platform =
            ReportedPlatform(reported: record.platform).flatMap { ReportedPlatform.allCases.firstIndex(of: $0) }
            .map { $0 + 1 } ?? 0
        let complete = history.count < historyMaxEntries
        // Oldest first.
        for index in stride(from: history.count - 1, through: 0, by: -1) {
            let entry = history[index]
            guard entry.permissions.hasAlwaysAccess else { continue }
            let isGain =
                index == history.count - 1 ? complete : !history[index + 1].permissions.hasAlwaysAccess
            guard isGain else { continue }
            let t = entry.observedAt
            var counts = Counts()
            for (horizon, daysAfter) in Self.horizons.enumerated() {
                let later = t.addingTimeInterval(Double(daysAfter) * 86_400)
                guard later <= computedAt else { continue }
                counts.users[horizon] = 1
                if Self.state(of: history, at: later)?.hasAlwaysAccess == true { counts.kept[horizon] = 1 }
            }
            let day = Int((t.timeIntervalSince1970 / 86_400).rounded(.down))
            var perPlatform = days[day] ?? [Counts](repeating: Counts(), count: ReportedPlatform.allCases.count + 1)
            perPlatform[platform].merge(counts)
            days[day] = perPlatform
        }
    }

    /// The permissions of the newest entry observed at or before `time` (history newest first).
    private static func state(of history: [HistoryEntry], at time: Date) -> Permissions? {
        history.first { $0.observedAt <= time }?.permissions
    }

    /// The gains whose t lies in `[since, until)`, by horizon, overall and by platform. Whole
    /// days only: a gain counts in the window its day starts in.
    public func report(since: Date, until: Date) -> AlwaysKeptReport {
        let first = Int((since.timeIntervalSince1970 / 86_400).rounded(.down))
        let end = Int((until.timeIntervalSince1970 / 86_400).rounded(.up))
        var overall = Counts()
        var perPlatform = [Counts](repeating: Counts(), count: ReportedPlatform.allCases.count + 1)
        for (day, counts) in days where day >= first && day < end {
            for (code, platform) in counts.enumerated() {
                overall.merge(platform)
                perPlatform[code].merge(platform)
            }
        }
        func horizons(_ counts: Counts) -> [AlwaysKeptReport.Horizon] {
            Self.horizons.enumerated().map { index, days in
                AlwaysKeptReport.Horizon(days: days, users: counts.users[index], kept: counts.kept[index])
            }
        }
        var byPlatform: [(name: String, horizons: [AlwaysKeptReport.Horizon])] = []
        for (code, counts) in perPlatform.enumerated() where counts.users.contains(where: { $0 > 0 }) {
            let platform = code == 0 ? nil : ReportedPlatform.allCases[code - 1]
            byPlatform.append((ReportedPlatform.statisticsName(platform), horizons(counts)))
        }
        byPlatform.sort { $0.name < $1.name }
        return AlwaysKeptReport(
            computedAt: computedAt, overall: horizons(overall),
            byPlatform: byPlatform.map { AlwaysKeptReport.Platform(name: $0.name, horizons: $0.horizons) })
    }
}

/// `alwaysKept` in `/v1/stats`: per horizon, the gains decided and how many kept Always access.
public struct AlwaysKeptReport: Sendable, Equatable {
    public struct Horizon: Sendable, Equatable {
        public var days: Int
        public var users: Int
        public var kept: Int

        public init(days: Int, users: Int, kept: Int) {
            self.days = days
            self.users = users
            self.kept = kept
        }

        public var rate: Double? { users > 0 ? Double(kept) / Double(users) : nil }
        public var rateCI95: ClosedRange<Double>? { StatsReport.wilson(successes: kept, trials: users) }
    }

    public struct Platform: Sendable, Equatable {
        public var name: String
        public var horizons: [Horizon]

        public init(name: String, horizons: [Horizon]) {
            self.name = name
            self.horizons = horizons
        }
    }

    public var computedAt: Date
    public var overall: [Horizon]
    public var byPlatform: [Platform]

    public init(computedAt: Date, overall: [Horizon], byPlatform: [Platform]) {
        self.computedAt = computedAt
        self.overall = overall
        self.byPlatform = byPlatform
    }
}
