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
