import Foundation
import RemindAPI
import RemindCore

extension UserStatus {
    /// Reads the daemon's answer to `GET /v1/users/{userID}` and to a report: the same type the
    /// daemon writes, so the two sides cannot drift apart.
    public init(json: JSONValue) throws(ValidationError) {
        var reader = try AnswerReader(json)
        let userID: UserID
        let raw = try reader.string("userID")
        do {
            userID = try UserID(raw)
        } catch {
            throw ValidationError(field: "userID", reason: "\"\(raw)\" \(error.reason)")
        }
        var permissionsObject = try reader.object("permissions")
        var episode: EpisodeSummary?
        if var object = try reader.optionalObject("episode") {
            episode = EpisodeSummary(
                startedAt: try object.date("startedAt"), remindersDelivered: try object.int("remindersDelivered"),
                remindersSuppressed: try object.int("remindersSuppressed"))
        }
        self.init(
            userID: userID, permissions: try reader.permissions("permissions"),
            observedAt: try permissionsObject.date("observedAt"), errors: try reader.errors("errors"),
            alwaysAccess: try reader.bool("alwaysAccess"), episode: episode,
            nextReminderAt: try reader.optionalDate("nextReminderAt"),
            lastReminderAt: try reader.optionalDate("lastReminderAt"), reportCount: try reader.int("reportCount"),
            lastReportAt: try reader.date("lastReportAt"))
    }
}
