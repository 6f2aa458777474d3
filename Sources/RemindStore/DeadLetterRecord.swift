import Foundation
import RemindCore

/// An event a sink gave up on: after `maxAttempts`, or at once on a permanent failure. It
/// stays here, durable, until an operator replays it (`remindctl dead-letters replay`).
///
/// The store's own record, written into the log and the snapshot; the API's `DeadLetter` is
/// its wire shape (the same keys).
public struct DeadLetterRecord: Sendable, Equatable {
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

    /// `{"id","sink","attempts","lastError","deadLetteredAt","event"}`, the log's and the API's shape.
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
    /// Reads a letter back from `jsonBytes`; nil when the bytes are not one.
    public init?(json bytes: some Collection<UInt8>) {
        guard case .object(let object)? = try? JSONParser.parse(bytes) else { return nil }
        self.init(object: object)
    }

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

/// The dead letters, oldest first, at most one per event and sink.
struct DeadLetterList {
    private(set) var all: [DeadLetterRecord] = []

    var count: Int { all.count }

    /// Adds a letter, replacing an earlier one of the same event and sink.
    mutating func put(_ letter: DeadLetterRecord) {
        all.removeAll { $0.event.id == letter.event.id && $0.sink == letter.sink }
        all.append(letter)
    }

    /// Removes and returns the letter of `eventID` for `sink`.
    mutating func take(eventID: String, sink: String) -> DeadLetterRecord? {
        guard let index = all.firstIndex(where: { $0.event.id == eventID && $0.sink == sink }) else { return nil }
        return all.remove(at: index)
    }

    /// The letters whose event id is in `ids` (all when nil), oldest first.
    func chosen(_ ids: Set<String>?) -> [DeadLetterRecord] {
        all.filter { ids?.contains($0.event.id) ?? true }
    }
}
