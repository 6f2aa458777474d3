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

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// Notes one repeat (`RepeatCriterion.isRepeat` said so) received at `receivedAt`.
    public mutating func add(_ report: PermissionReport, receivedAt: Date) {
        let receivedAt = receivedAt.millisecondPrecision
        count += 1
        lastReceivedAt = max(lastReceivedAt ?? receivedAt, receivedAt)
        let observedAt = report.observedAt
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
        if let known = repeats.notifications, known.observedAt >= (knownNotifications?.observedAt ?? .distantPast) {
            knownNotifications = known
        }
        if let known = repeats.timeZone, known.observedAt >= (knownTimeZone?.observedAt ?? .distantPast) {
            knownTimeZone = known
        }
        if let known = repeats.motion, known.observedAt >= (knownMotion?.observedAt ?? .distantPast) {
            knownMotion = known
        }
        if let value = repeats.platform { platform = value }
        if let value = repeats.appVersion { appVersion = value }
    }
}
