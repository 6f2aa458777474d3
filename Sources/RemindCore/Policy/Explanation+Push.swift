import Foundation

extension Explanation {
    /// The explanation's last step: whether the `apns` and `fcm` sinks can reach the device.
    /// Only the token's last characters appear, as everywhere outside the user's file.
    static func pushReason(_ push: PushAddress?) -> Reason {
        guard let push else {
            return Reason(
                code: .push,
                text:
                    "no push address reported: push sinks (apns, fcm) skip this user; other sinks still get the events")
        }
        let service = push.service == .apns ? "APNs" : "FCM"
        let environment = push.environment.map { " (\($0.rawValue))" } ?? ""
        let token = "\(service)\(environment) token …\(push.tokenSuffix)"
        guard let dead = push.unreachable else {
            return Reason(code: .push, text: "push address: \(token), reachable")
        }
        return Reason(
            code: .push,
            text: "\(token) is dead (\(dead.reason) since \(RFC3339.format(dead.since))): the \(push.service.rawValue) "
                + "sink skips this user until a report brings a new token")
    }
}

extension ReminderPolicy {
    /// Which channel a reminder of `record` firing at `date` takes, and why (docs/fallback.md):
    /// the decision the fire makes, from what the record holds now.
    func explainChannel(_ record: UserRecord, at date: Date) -> Explanation.Reason {
        let channels = configuration.channels
        let schedule = record.schedule
        let route = channels.decide(
            push: schedule.push, notificationsDeliverable: schedule.notificationsDeliverable,
            lastReportAt: schedule.lastReportAt, now: date)
        guard let route, route.channel == .fallback, let because = route.because else {
            return Explanation.Reason(code: .channel, text: "the next reminder takes push")
        }
        let sinks = channels.fallbackSinks.sorted().joined(separator: ", ")
        let why: String
        switch because {
        case .noPushAddress:
            why =
                channels.pushSinks.isEmpty
                ? "no push sink is configured" : "no push address for a configured push sink (apns, fcm)"
        case .unreachable: why = "the push address is unreachable (its token is dead)"
        case .notificationsOff: why = "notifications are \(record.permissions?.notifications.rawValue ?? "off")"
        case .silent:
            why = "the app has not reported since \(RFC3339.format(schedule.lastReportAt)) (fallback.silentAfterSeconds)"
        }
        return Explanation.Reason(
            code: .channel, text: "the next reminder goes to the fallback sinks (\(sinks)), because \(because.rawValue): \(why)")
    }
}
