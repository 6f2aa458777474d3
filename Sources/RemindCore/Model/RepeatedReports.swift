import Foundation

/// What tells, without the user's record, whether a report only repeats what is known: the
/// current permissions, where their run began, and the device fields a report may restate.
///
/// A report is a repeat when `ReminderPolicy.apply` would change nothing but `reportCount`,
/// `lastReportAt`, the run's observation times, the `observedAt` of the known registers and
/// `platform`/`appVersion`: it lands in the newest run (observed at or after its start), sets
/// the same permissions, and leaves the device as it is. Such a report can be answered from
/// memory and folded into the record later (`RepeatedReports`), with exactly the result that
/// applying it would have had.
///
/// A basis is only valid for the record it was taken from, under the policy that record was
/// last reconciled with: any other change to the record, or a new policy, must drop it.
public struct RepeatBasis: Sendable {
    public let permissions: Permissions
    /// The first observation of the newest run: an older report lands in an older run.
    public let runStartedAt: Date
    public let locale: String?
    public let push: PushAddress?
    public let platform: String?
    public let appVersion: String?

    /// The basis of a record that a report was just applied to; nil when there is none (no
    /// history yet) or when its known registers disagree with the current permissions (then
    /// an identical report would still reshape the newest entry).
    public init?(_ record: UserRecord) {
        guard let newest = record.history.first else { return nil }
        let permissions = newest.permissions
        if let known = record.knownNotifications, known.value != permissions.notifications { return nil }
        if let known = record.knownTimeZone, known.value != permissions.timeZone { return nil }
        if let known = record.knownMotion, known.value != permissions.motion { return nil }
        self.permissions = permissions
        runStartedAt = newest.observedAt
        locale = record.device.locale
        push = record.device.push
        platform = record.platform
        appVersion = record.appVersion
    }

    /// Whether `report` only repeats this basis.
    public func isRepeat(_ report: PermissionReport) -> Bool {
        guard report.observedAt >= runStartedAt, report.permissions(after: permissions) == permissions else {
            return false
        }
        if let newLocale = report.locale, newLocale != locale { return false }
        if let newPlatform = report.platform, newPlatform != platform { return false }
        if let newVersion = report.appVersion, newVersion != appVersion { return false }
        switch report.push {
        case .unchanged: return true
        case .forget: return push == nil
        case .set(let address): return push?.isSameAddress(as: address) == true
        }
    }
}

/// Repeated reports not yet folded into the user's record: the little that applying each of
/// them would have changed, kept so that folding them in later gives the same record.
public struct RepeatedReports: Sendable, Equatable {
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

    /// Notes one repeat (`RepeatBasis.isRepeat` said so) received at `receivedAt`.
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
    /// Folds repeats noted against this record's `RepeatBasis` in: the record that applying
    /// each of them in turn would have given.
    public mutating func fold(_ repeats: RepeatedReports) {
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
