import Foundation
import RemindCore

/// An event one sink gave up on (`GET /v1/dead-letters`): the daemon writes the list,
/// `remindctl` reads it.
public struct DeadLetter: Sendable, Equatable {
    /// The event's id, what `replay` takes.
    public var id: String
    public var sink: String
    public var attempts: Int
    public var lastError: String
    public var deadLetteredAt: Date
    /// The event as the sinks receive it.
    public var event: JSONValue

    public init(id: String, sink: String, attempts: Int, lastError: String, deadLetteredAt: Date, event: JSONValue) {
        self.id = id
        self.sink = sink
        self.attempts = attempts
        self.lastError = lastError
        self.deadLetteredAt = deadLetteredAt
        self.event = event
    }

    /// The event's `type` (`reminder`, `withdraw`, `heartbeat`), when it has one.
    public var eventType: String? {
        guard case .object(let object) = event, case .string(let type)? = object["type"] else { return nil }
        return type
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", id)
        writer.member("sink", sink)
        writer.member("attempts", attempts)
        writer.member("lastError", lastError)
        writer.member("deadLetteredAt", RFC3339.format(deadLetteredAt))
        writer.key("event")
        writer.value(event)
        writer.endObject()
    }

    /// `{"deadLetters":[…]}`, the answer to `GET /v1/dead-letters`.
    public static func listJSON(_ letters: [DeadLetter]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("deadLetters")
        writer.beginArray()
        for letter in letters { letter.write(to: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
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

/// The answer to `POST /v1/dead-letters/replay`: how many went back to their sinks.
public struct DeadLetterReplay: Sendable, Equatable {
    public var replayed: Int

    public init(replayed: Int) {
        self.replayed = replayed
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("replayed", replayed)
        writer.endObject()
        return writer.bytes
    }

    public init(json: JSONValue) throws(ValidationError) {
        var reader = try AnswerReader(json)
        replayed = try reader.int("replayed")
    }
}
