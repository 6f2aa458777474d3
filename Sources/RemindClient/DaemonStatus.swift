import Foundation
import RemindCore

/// The daemon's status (`GET /v1/status`).
public struct DaemonStatus: Sendable, Equatable {
    public struct Sink: Sendable, Equatable {
        public var name: String
        public var type: String
        public var delivered: Int
        public var failed: Int
        public var pending: Int
    }

    public var version: String
    public var startedAt: Date
    public var users: Int
    public var openEpisodes: Int
    public var pendingReminders: Int
    public var nextReminderAt: Date?
    /// Events every sink acknowledged.
    public var delivered: Int
    public var suppressed: Int
    /// Failed delivery attempts.
    public var failed: Int
    public var deadLetters: Int
    public var quarantined: Int
    public var sinks: [Sink]
    public var notification: LocationNotificationConfiguration

    public init(json: JSONValue) throws(ValidationError) {
        var reader = try AnswerReader(json)
        version = try reader.string("version")
        startedAt = try reader.date("startedAt")
        users = try reader.int("users")
        openEpisodes = try reader.int("openEpisodes")
        pendingReminders = try reader.int("pendingReminders")
        nextReminderAt = try reader.optionalDate("nextReminderAt")
        delivered = try reader.int("delivered")
        suppressed = try reader.int("suppressed")
        failed = try reader.int("failed")
        deadLetters = try reader.int("deadLetters")
        quarantined = try reader.int("quarantined")
        sinks = try reader.array("sinks") { value, path throws(ValidationError) in
            var sink = try AnswerReader(value, path: path)
            return Sink(
                name: try sink.string("name"), type: try sink.string("type"), delivered: try sink.int("delivered"),
                failed: try sink.int("failed"), pending: try sink.int("pending"))
        }
        guard case .object(let notification) = try reader.value("notification") else {
            throw ValidationError(field: "notification", reason: "must be an object")
        }
        self.notification = try LocationNotificationConfiguration(object: notification)
    }
}
