import Foundation
import RemindCore

/// One scheduled reminder (`GET /v1/reminders`): the daemon writes the list, `remindctl`
/// reads it.
public struct PendingReminder: Sendable, Equatable {
    public var userID: String
    public var dueAt: Date
    public var sequence: Int
    public var reason: PermissionErrorType

    public init(userID: String, dueAt: Date, sequence: Int, reason: PermissionErrorType) {
        self.userID = userID
        self.dueAt = dueAt
        self.sequence = sequence
        self.reason = reason
    }

    /// `{"reminders":[…]}`, the answer to `GET /v1/reminders`.
    public static func listJSON(_ reminders: [PendingReminder]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("reminders")
        writer.beginArray()
        for reminder in reminders {
            writer.beginObject()
            writer.member("userID", reminder.userID)
            writer.member("dueAt", RFC3339.format(reminder.dueAt))
            writer.member("sequence", reminder.sequence)
            writer.member("reason", reminder.reason.rawValue)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// Reads the answer's `reminders`, soonest first.
    public static func list(json: JSONValue) throws(ValidationError) -> [PendingReminder] {
        var reader = try AnswerReader(json)
        return try reader.array("reminders") { value, path throws(ValidationError) in
            var reminder = try AnswerReader(value, path: path)
            return PendingReminder(
                userID: try reminder.string("userID"), dueAt: try reminder.date("dueAt"),
                sequence: try reminder.int("sequence"),
                reason: try reminder.enumeration("reason", PermissionErrorType.self))
        }
    }
}
