import Foundation
import RemindCore

/// One scheduled reminder (`GET /v1/reminders`).
public struct PendingReminder: Sendable, Equatable {
    public var userID: String
    public var dueAt: Date
    public var sequence: Int
    public var reason: PermissionErrorType

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
