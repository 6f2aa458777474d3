import Foundation

/// What tells, without the user's record, whether a report only repeats what is known: the
/// current permissions, where their run began, and the device fields a report may restate.
///
/// A report is a repeat when `ReminderPolicy.apply` would change nothing but `reportCount`,
/// `lastReportAt`, the run's observation times and the `observedAt` of the known registers:
/// it lands in the newest run (observed at or after its start), sets the same permissions, and
/// leaves the device, platform and app version as they are (the user's status shows those, so
/// a new one must reach the record before it is answered). Such a report can be answered from
/// memory and folded into the record later (`PendingRepeats`), with exactly the result that
/// applying it would have had.
///
/// A criterion is only valid for the record it was taken from, under the policy that record was
/// last reconciled with: any other change to the record, or a new policy, must drop it.
public struct RepeatCriterion: Sendable {
    public let permissions: Permissions
    /// The first observation of the newest run: an older report lands in an older run.
    public let runStartedAt: Date
    public let locale: String?
    public let push: PushAddress?
    public let platform: String?
    public let appVersion: String?
    public let canPrompt: [PromptablePermission]
    /// From when a report would get an ask (`ReminderPolicy.nextAskAt`): giving one is a
    /// change, so a report received then is no repeat. Nil: none while the record stands.
    public let askDueAt: Date?

    /// The criterion of a record that a report was just applied to; nil when there is none (no
    /// history yet) or when its known registers disagree with the current permissions (then
    /// an identical report would still reshape the newest entry).
    public init?(_ record: UserRecord, askDueAt: Date? = nil) {
        self.askDueAt = askDueAt
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
        canPrompt = record.device.canPrompt
    }

    /// Whether `report`, received at `receivedAt`, only repeats what this criterion holds.
    /// A report carrying engagement events never does.
    public func isRepeat(_ report: PermissionReport, receivedAt: Date) -> Bool {
        guard report.observedAt >= runStartedAt, report.permissions(after: permissions) == permissions,
            report.events.isEmpty
        else { return false }
        if let askDueAt, receivedAt >= askDueAt { return false }
        if let newLocale = report.locale, newLocale != locale { return false }
        if let newPlatform = report.platform, newPlatform != platform { return false }
        if let newVersion = report.appVersion, newVersion != appVersion { return false }
        if let newCanPrompt = report.canPrompt, newCanPrompt != canPrompt { return false }
        switch report.push {
        case .unchanged: return true
        case .forget: return push == nil
        case .set(let address): return push?.isSameAddress(as: address) == true
        }
    }
}
