import Foundation
import RemindCore

/// An event one sink gave up on (`GET /v1/dead-letters`).
public struct DeadLetter: Sendable, Equatable {
    /// The event's id, what `replay` takes.
    public var id: String
    public var sink: String
    public var attempts: Int
    public var lastError: String
    public var deadLetteredAt: Date
    /// The event as the sinks receive it.
    public var event: JSONValue

    /// The event's `type` (`reminder`, `withdraw`, `heartbeat`), when it has one.
    public var eventType: String? {
        guard case .object(let object) = event, case .string(let type)? = object["type"] else { return nil }
        return type
    }

    /// Reads the answer's `deadLetters`.
    public static func list(json: JSONValue) throws(ValidationError) -> [DeadLetter] {
        var reader = try AnswerReader(json)
        return try reader.array("deadLetters") { value, path throws(ValidationError) in
            var letter = try AnswerReader(value, path: path)
            return DeadLetter(
                id: try letter.string("id"), sink: try letter.string("sink"), attempts: try letter.int("attempts"),
                lastError: try letter.optionalString("lastError") ?? "",
                deadLetteredAt: try letter.date("deadLetteredAt"),
                event: try letter.value("event"))
        }
    }
}
