import Foundation

/// Repeated reports not yet folded into the user's record: the little that applying each of
/// them would have changed, kept so that folding them in later gives the same record.
public struct PendingRepeats: Sendable, Equatable {
    public internal(set) var count = 0
    public internal(set) var lastReceivedAt: Date?
    /// The newest observation times, as many as a run keeps.
    var observations: [Date] = []
    var notifications: UserRecord.Known<NotificationAuthorization>?
    var timeZone: UserRecord.Known<String>?
    var motion: UserRecord.Known<MotionAuthorization>?
    var platform: String?
    var appVersion: String?
    /// When the repeats were observed, for the user's `ActivityHistogram`: counts by quarter
    /// hour since 1970 (every zone's offset is a whole number of quarter hours, so the local
    /// hour is found at the fold, off the repeat path). The newest quarter is kept inline:
    /// repeats between two folds rarely span two, and then nothing is allocated.
    var activityQuarter: Int64 = 0
    var activityQuarterCount: Int32 = 0
    var activityEarlier: [ActivityQuarter] = []

    public struct ActivityQuarter: Sendable, Equatable {
        public var quarter: Int64
        public var count: Int32
    }

    public init() {}

    /// The repeats' observations by quarter hour, oldest first.
    public var activity: [ActivityQuarter] {
        activityQuarterCount > 0
            ? activityEarlier + [ActivityQuarter(quarter: activityQuarter, count: activityQuarterCount)]
            : activityEarlier
    }

    mutating func noteActivity(_ observedAt: Date) {
        let quarter = Int64((observedAt.timeIntervalSince1970 / 900).rounded(.down))
        if activityQuarterCount > 0 && quarter != activityQuarter {
            activityEarlier.append(ActivityQuarter(quarter: activityQuarter, count: activityQuarterCount))
            activityQuarterCount = 0
        }
        activityQuarter = quarter
        activityQuarterCount &+= 1
    }

    /// Sets the quarters as logged (`LoggedRepeats`).
    mutating func setActivity(_ quarters: [ActivityQuarter]) {
        activityEarlier = Array(quarters.dropLast())
        activityQuarter = quarters.last?.quarter ?? 0
        activityQuarterCount = quarters.last?.count ?? 0
    }

    public var isEmpty: Bool { count == 0 }

    /// Notes one repeat (`RepeatCriterion.isRepeat` said so) received at `receivedAt`.
    public mutating func add(_ report: PermissionReport, receivedAt: Date) {
        let receivedAt = receivedAt.millisecondPrecision
        count += 1
        lastReceivedAt = max(lastReceivedAt ?? receivedAt, receivedAt)
        let observedAt = report.observedAt
        noteActivity(observedAt)
        if !observations.contains(observedAt) {
            let index = observations.firstIndex { $0 > observedAt } ?? observations.count
            observations.insert(observedAt, at: index)
            if observations.count > HistoryEntry.keptObservations { observations.removeFirst() }
        }
        // Ties go to the report received later, as in `apply`.
        if let value = report.notifications, observedAt >= (notifications?.observedAt ?? .distantPast) {
            notifications = .init(value: value, observedAt: observedAt)
        }
        if let value = report.timeZone, observedAt >= (timeZone?.observedAt ?? .distantPast) {
            timeZone = .init(value: value, observedAt: observedAt)
        }
        if let value = report.motion, observedAt >= (motion?.observedAt ?? .distantPast) {
            motion = .init(value: value, observedAt: observedAt)
        }
        if let value = report.platform { platform = value }
        if let value = report.appVersion { appVersion = value }
    }
}

extension UserRecord {
    /// Folds repeats noted against this record's `RepeatCriterion` in: the record that applying
    /// each of them in turn would have given.
    public mutating func fold(_ repeats: PendingRepeats) {
        guard let lastReceivedAt = repeats.lastReceivedAt else { return }
        reportCount += repeats.count
        lastReportAt = max(lastReportAt, lastReceivedAt)
        if !history.isEmpty { history[0].add(repeats.observations) }
        knownNotifications = Known.newest(knownNotifications, repeats.notifications)
        knownTimeZone = Known.newest(knownTimeZone, repeats.timeZone)
        knownMotion = Known.newest(knownMotion, repeats.motion)
        if let value = repeats.platform { platform = value }
        if let value = repeats.appVersion { appVersion = value }
        addActivity(repeats.activity, newest: repeats.count)
    }

    /// Counts the newest `limit` of these observations in the activity histogram, in the
    /// user's time zone as it is now (a repeat does not change it).
    mutating func addActivity(_ quarters: [PendingRepeats.ActivityQuarter], newest limit: Int) {
        var left = limit
        var counted: [(Date, Int)] = []
        for entry in quarters.reversed() where left > 0 {
            let take = min(left, Int(entry.count))
            counted.append((Date(timeIntervalSince1970: TimeInterval(entry.quarter) * 900), take))
            left -= take
        }
        let zone = knownTimeZone?.value ?? permissions?.timeZone
        for (date, count) in counted.reversed() {
            let hour = ActivityHistogram.hour(of: date, timeZone: zone)
            for _ in 0..<count { activity.add(hour: hour) }
        }
    }
}

extension PendingRepeats {
    /// These repeats followed by `newer` (noted after them): what noting both runs one after
    /// the other would have given, as many observation times as a run keeps.
    public mutating func append(_ newer: PendingRepeats) {
        guard let newerLast = newer.lastReceivedAt else { return }
        guard let last = lastReceivedAt else {
            self = newer
            return
        }
        count += newer.count
        lastReceivedAt = max(last, newerLast)
        for observedAt in newer.observations where !observations.contains(observedAt) {
            let index = observations.firstIndex { $0 > observedAt } ?? observations.count
            observations.insert(observedAt, at: index)
        }
        if observations.count > HistoryEntry.keptObservations {
            observations.removeFirst(observations.count - HistoryEntry.keptObservations)
        }
        // Ties go to the newer repeats, as in `add`.
        notifications = UserRecord.Known.newest(notifications, newer.notifications)
        timeZone = UserRecord.Known.newest(timeZone, newer.timeZone)
        motion = UserRecord.Known.newest(motion, newer.motion)
        if let value = newer.platform { platform = value }
        if let value = newer.appVersion { appVersion = value }
        var quarters = activity
        for entry in newer.activity {
            if let lastQuarter = quarters.last, lastQuarter.quarter == entry.quarter {
                quarters[quarters.count - 1].count &+= entry.count
            } else {
                quarters.append(entry)
            }
        }
        setActivity(quarters)
    }
}

extension UserRecord.Known {
    /// The register observed last, `candidate` on a tie (it came later).
    static func newest(_ current: Self?, _ candidate: Self?) -> Self? {
        guard let candidate else { return current }
        return candidate.observedAt >= (current?.observedAt ?? .distantPast) ? candidate : current
    }
}
