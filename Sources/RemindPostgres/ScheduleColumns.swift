import Foundation
import RemindCore

/// What the `remindd_users` row keeps beside the document, so that the scheduler, the
/// pending list, the counts and `/v1/stats` are answered by indexed columns, not by reading
/// documents: the policy's `ScheduleIndex` and what the counts need. They follow from the
/// document and the policy, and are recomputed when the policy's timing changes.
struct ScheduleColumns: Sendable, Equatable {
    var wakeAt: Date?
    var reminderAt: Date?
    var nextSequence: Int
    var reason: String
    var conditions: Int16
    var episodeStartedAt: Date?
    var episodeGroup: String?
    var episodeReason: String?
    /// The user's most active hour (`UserSchedule.activeHour`), counted per hour.
    var activeHour: Int16?
    /// The user's platform and their open episode's funnel steps: what `/v1/stats` splits
    /// open episodes by.
    var platform: String?
    var episodeMarks: Int16
    var episodeOpening: String?

    init(_ schedule: UserSchedule, policy: ReminderPolicy, daemonStartedAt: Date) {
        let index = policy.index(schedule, daemonStartedAt: daemonStartedAt)
        reminderAt = index.reminderAt
        wakeAt = index.wakeAt
        nextSequence = index.nextSequence
        reason = index.reason.rawValue
        conditions = Int16(schedule.conditions.rawValue)
        episodeStartedAt = schedule.episodeStartedAt
        episodeGroup = schedule.episodeGroup
        episodeReason = schedule.episodeReason?.rawValue
        activeHour = schedule.activeHour.map(Int16.init)
        platform = schedule.platform?.rawValue
        episodeMarks = Int16(schedule.funnelMarks.rawValue)
        episodeOpening = schedule.episodeOpening?.rawValue
    }

    /// What of the policy the columns depend on: when it changes, every row is recomputed.
    static func fingerprint(_ policy: ReminderPolicy) -> String {
        let configuration = policy.configuration
        let notification = configuration.notification
        return
            ([
                "v1", "\(notification.notificationTriggerDelay)", "\(notification.showRecurringNotification)",
                "\(notification.remindFor.rawValue)", "\(configuration.catchUpSpreadSeconds)",
                "\(String(describing: configuration.quietHours))", "\(configuration.jitterSeconds)",
                "\(String(describing: configuration.maxRemindersPerEpisode))",
                "\(String(describing: configuration.heartbeatIntervalSeconds))",
            ]
            // Due times move with the send time and the population's hour it may use; absent
            // while it is `due`, so the fingerprint of such a policy is what it always was.
            + (notification.sendTime == .due
                ? [] : ["\(notification.sendTime)", "\(String(describing: configuration.populationActiveHour))"]))
            .joined(separator: "|")
    }
}
