import Foundation
import RemindCore

/// An event a sink gave up on: after `maxAttempts`, or at once on a permanent failure. It
/// stays here, durable, until an operator replays it (`remindctl dead-letters replay`).
public struct DeadLetter: Sendable, Equatable {
    public var event: OutboxEvent
    public var sink: String
    public var attempts: Int
    public var lastError: String
    public var deadLetteredAt: Date

    public init(event: OutboxEvent, sink: String, attempts: Int, lastError: String, deadLetteredAt: Date) {
        self.event = event
        self.sink = sink
        self.attempts = attempts
        self.lastError = lastError
        self.deadLetteredAt = deadLetteredAt
    }

    /// `{"id","sink","attempts","lastError","deadLetteredAt","event"}`, as the API lists it.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", event.id)
        writer.member("sink", sink)
        writer.member("attempts", attempts)
        writer.member("lastError", lastError)
        writer.member("deadLetteredAt", RFC3339.format(deadLetteredAt))
        writer.key("event")
        writer.raw(event.bytes)
        writer.endObject()
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }

    /// Reads what `write` wrote; nil for anything else.
    init?(object: JSONObject) {
        var reader = JSONObjectReader(object)
        guard let sink = try? reader.string("sink"),
            let attempts = try? reader.integer("attempts", in: 0...Int64(Int32.max)),
            let lastError = try? reader.string("lastError"),
            let at = (try? reader.string("deadLetteredAt")).flatMap({ $0 }),
            let deadLetteredAt = RFC3339.parse(at), let eventValue = object["event"],
            let event = try? OutboxEvent(bytes: Array(eventValue.serialized.utf8))
        else { return nil }
        self.init(
            event: event, sink: sink, attempts: Int(attempts), lastError: lastError, deadLetteredAt: deadLetteredAt)
    }
}
