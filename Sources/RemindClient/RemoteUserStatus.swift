import Foundation
import RemindCore

/// A user's status as the daemon sends it (`GET /v1/users/{userID}`, and the answer to a
/// report): the client-side reading of RemindAPI's `UserStatus`, which the daemon builds from
/// a stored record and which therefore has no initialiser a client could use.
public struct RemoteUserStatus: Sendable, Equatable {
    public struct Episode: Sendable, Equatable {
        public var startedAt: Date
        public var remindersDelivered: Int
        public var remindersSuppressed: Int
    }

    public var userID: String
    public var permissions: Permissions
    /// When the current state was observed on the device.
    public var observedAt: Date
    public var errors: [PermissionErrorType]
    public var alwaysAccess: Bool
    /// The open episode, nil while the user has Always access.
    public var episode: Episode?
    public var nextReminderAt: Date?
    public var lastReminderAt: Date?
    public var reportCount: Int
    public var lastReportAt: Date

    public init(json: JSONValue) throws(ValidationError) {
        var reader = try AnswerReader(json)
        userID = try reader.string("userID")
        permissions = try reader.permissions("permissions")
        var permissionsObject = try reader.object("permissions")
        observedAt = try permissionsObject.date("observedAt")
        errors = try reader.errors("errors")
        alwaysAccess = try reader.bool("alwaysAccess")
        if var episode = try reader.optionalObject("episode") {
            self.episode = Episode(
                startedAt: try episode.date("startedAt"),
                remindersDelivered: try episode.int("remindersDelivered"),
                remindersSuppressed: try episode.int("remindersSuppressed"))
        }
        nextReminderAt = try reader.optionalDate("nextReminderAt")
        lastReminderAt = try reader.optionalDate("lastReminderAt")
        reportCount = try reader.int("reportCount")
        lastReportAt = try reader.date("lastReportAt")
    }
}
