import Foundation
import RemindCore

/// Why a reminder is or is not due (`GET /v1/users/{userID}/explain`): the policy's reasons in
/// the order it decided.
public struct UserExplanation: Sendable, Equatable {
    public struct Reason: Sendable, Equatable {
        /// Kept as text: a code added by a newer daemon is still shown, by its text.
        public var code: String
        public var text: String

        public init(code: String, text: String) {
            self.code = code
            self.text = text
        }
    }

    public var userID: String
    public var nextReminderAt: Date?
    public var reasons: [Reason]

    public init(userID: String, nextReminderAt: Date?, reasons: [Reason]) {
        self.userID = userID
        self.nextReminderAt = nextReminderAt
        self.reasons = reasons
    }

    /// The policy's explanation of a stored user.
    public init(userID: UserID, _ explanation: Explanation) {
        self.init(
            userID: userID.rawValue, nextReminderAt: explanation.nextReminderAt,
            reasons: explanation.reasons.map { Reason(code: $0.code.rawValue, text: $0.text) })
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("userID", userID)
        writer.member("nextReminderAt", nextReminderAt.map(RFC3339.format))
        writer.key("reasons")
        writer.beginArray()
        for reason in reasons {
            writer.beginObject()
            writer.member("code", reason.code)
            writer.member("text", reason.text)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

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
