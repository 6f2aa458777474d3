import Foundation

/// The part of a user's record that decides when the scheduler must next look at them, and
/// what it must send then.
///
/// remindd keeps one of these in memory for every user (the user files are read on demand),
/// and the start-up snapshot stores exactly this, so it is small: no history, one date per
/// fact the policy's timing rules read. It holds everything `ReminderPolicy.fire` needs, so a
/// due reminder is built without reading the user's file (ARCHITECTURE.md "The fire path").
public struct UserSchedule: Sendable, Equatable {
    public var userID: UserID
    /// The current errors: the policy takes a reminder's reason from them (the first that
    /// `notification.remindFor` lists), so a reload that changes `remindFor` needs no re-read.
    public var errors: PermissionErrorSet
    /// The service conditions that hold now: users are counted by them (docs/configuration.md).
    public var conditions: ServiceConditions
    public var notificationsDeliverable: Bool
    public var timeZone: String?
    /// The open episode's start; nil when none is open.
    public var episodeStartedAt: Date?
    public var deliveredCount: Int
    public var lastDeliveredAt: Date?
    public var isSuppressed: Bool
    public var lastReportAt: Date
    public var lastHeartbeatAt: Date?
    /// The open episode's experiment group and opening reason: what `/v1/stats` counts open
    /// episodes by, without reading user files (docs/outcomes.md).
    public var episodeGroup: String?
    public var episodeReason: PermissionErrorType?
    /// The device's locale: the language a reminder fired from the schedule alone is worded in.
    public var locale: String?
    /// The user's most active hour of day (`ActivityHistogram`) and the reports it rests on:
    /// what `notification.sendTime` `active` moves a reminder by, without the user's file.
    public var activeHour: Int?
    public var activityReports: Int
    /// The platform of the user's last reported `platform`: what the texts of a reminder fired
    /// from the schedule alone are picked by (`CopySet.platforms`), and what `/v1/stats`
    /// splits open episodes by.
    public var platform: ReportedPlatform?
    /// The push address's service and whether it is reachable (never the token): what decides
    /// whether a push sink can deliver the user's reminder. Nil for none.
    public var push: PushReach?
    /// The open episode's funnel steps so far (`FunnelMarks`) and how it opened, for `/v1/stats`.
    public var funnelMarks: FunnelMarks
    public var episodeOpening: Episode.Opening?

    public init(
        userID: UserID, errors: PermissionErrorSet, conditions: ServiceConditions = ServiceConditions(rawValue: 0),
        notificationsDeliverable: Bool, timeZone: String?, episodeStartedAt: Date?, deliveredCount: Int,
        lastDeliveredAt: Date?, isSuppressed: Bool, lastReportAt: Date, lastHeartbeatAt: Date?,
        episodeGroup: String? = nil, episodeReason: PermissionErrorType? = nil, locale: String? = nil,
        activeHour: Int? = nil, activityReports: Int = 0, platform: ReportedPlatform? = nil,
        funnelMarks: FunnelMarks = [], episodeOpening: Episode.Opening? = nil, push: PushReach? = nil
    ) {
        self.push = push
        self.episodeOpening = episodeOpening
        self.platform = platform
        self.funnelMarks = funnelMarks
        self.activeHour = activeHour
        self.activityReports = activityReports
        self.locale = locale
        self.episodeGroup = episodeGroup
        self.episodeReason = episodeReason
        self.userID = userID
        self.errors = errors
        self.conditions = conditions
        self.notificationsDeliverable = notificationsDeliverable
        self.timeZone = timeZone
        self.episodeStartedAt = episodeStartedAt
        self.deliveredCount = deliveredCount
        self.lastDeliveredAt = lastDeliveredAt
        self.isSuppressed = isSuppressed
        self.lastReportAt = lastReportAt
        self.lastHeartbeatAt = lastHeartbeatAt
    }
}

extension UserRecord {
    public var schedule: UserSchedule {
        let open = openEpisode
        let permissions = permissions
        return UserSchedule(
            userID: userID,
            errors: PermissionErrorSet(permissions?.errors ?? []),
            conditions: permissions?.conditions ?? ServiceConditions(rawValue: 0),
            notificationsDeliverable: permissions?.notifications.isDeliverable ?? true,
            timeZone: permissions?.timeZone,
            episodeStartedAt: open?.startedAt,
            deliveredCount: open?.deliveries.count ?? 0,
            lastDeliveredAt: open?.deliveries.last?.deliveredAt,
            isSuppressed: open?.isSuppressed ?? false,
            lastReportAt: lastReportAt,
            lastHeartbeatAt: lastHeartbeatAt,
            episodeGroup: open?.group,
            episodeReason: open?.reason,
            locale: device.locale,
            activeHour: activity.mostActiveHour,
            activityReports: activity.total,
            platform: ReportedPlatform(reported: platform),
            funnelMarks: open?.funnelMarks ?? [], episodeOpening: open?.opening,
            push: device.push.map { PushReach(service: $0.service, isReachable: $0.isReachable) })
    }
}

/// What the schedule keeps of a push address: its service and whether the service still
/// accepts it.
public struct PushReach: Sendable, Equatable {
    public var service: PushService
    public var isReachable: Bool

    public init(service: PushService, isReachable: Bool) {
        self.service = service
        self.isReachable = isReachable
    }
}
