import Foundation
import RemindCore

/// Why a reminder is or is not due (`GET /v1/users/{userID}/explain`): the policy's reasons in
/// the order it decided.
public struct UserExplanation: Sendable, Equatable {
    public struct Reason: Sendable, Equatable {
        /// Kept as text: a code added by a newer daemon is still shown, by its text.
        public var code: String
        public var text: String
    }

    public var userID: String
    public var nextReminderAt: Date?
    public var reasons: [Reason]

    public init(json: JSONValue) throws(ValidationError) {
        var reader = try AnswerReader(json)
        userID = try reader.string("userID")
        nextReminderAt = try reader.optionalDate("nextReminderAt")
        reasons = try reader.array("reasons") { value, path throws(ValidationError) in
            var reason = try AnswerReader(value, path: path)
            return Reason(code: try reason.string("code"), text: try reason.string("text"))
        }
    }
}
