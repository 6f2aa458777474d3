import Foundation

extension ReminderPolicy {
    /// The hour of day a user's reminders wait for under `sendTime` `active`: their own most
    /// active hour once `minReports` reports are counted, else the population's; nil when send
    /// time is `due`, the user is in its holdout, or no hour is known yet.
    public func activeHour(_ schedule: UserSchedule) -> (hour: Int, own: Bool)? {
        guard let active = configuration.notification.sendTime.active,
            configuration.notification.sendTime.arm(for: schedule.userID) == .active
        else { return nil }
        if schedule.activityReports >= active.minReports, let hour = schedule.activeHour { return (hour, true) }
        return configuration.populationActiveHour.map { ($0, false) }
    }

    /// When a reminder due at `due` goes out, before jitter and quiet hours, and why.
    public func sendTime(for due: Date, _ schedule: UserSchedule) -> SendTimeChoice {
        guard let active = configuration.notification.sendTime.active else {
            return SendTimeChoice(sendAt: due, why: .dueTime(heldOut: false))
        }
        guard configuration.notification.sendTime.arm(for: schedule.userID) == .active else {
            return SendTimeChoice(sendAt: due, why: .dueTime(heldOut: true))
        }
        guard let (hour, own) = activeHour(schedule) else { return SendTimeChoice(sendAt: due, why: .noActivity) }
        let next = SendTimeChoice.next(hour: hour, after: due, timeZone: schedule.timeZone)
        if next.inside { return SendTimeChoice(sendAt: due, why: .insideActiveHour(hour: hour, own: own)) }
        guard next.date.timeIntervalSince(due) <= TimeInterval(active.maxDelaySeconds) else {
            return SendTimeChoice(sendAt: due, why: .tooFar(hour: hour, own: own))
        }
        return SendTimeChoice(sendAt: next.date, why: .movedToActiveHour(hour: hour, own: own))
    }
}
