import Foundation
import RemindCore

/// One line of the write-ahead log.
///
/// - `{"op":"change","record":{…},"events":[{"sinks":[…],"event":{…}}],"outcomes":[{…}]}`: a
///   change to a user, as a `RecordDelta` (the record's members in the file's format, but only
///   the new newest history entries and episodes, with `historyKeep` and `episodesKeep` for the
///   rest; a new user's first change keeps nothing), with the events the change produced and
///   the episodes it closed (docs/outcomes.md): one line, so a crash keeps all or none.
/// - `{"op":"put","record":{…},"events":[]}`: a user's whole record, as `remindd migrate`
///   brings it from another store (a transfer, not a change). Releases before every change was
///   a delta wrote it for changes too, with events and outcomes; replay still reads those.
/// - `{"op":"delete","userID":"…","outcome":{…}}`: the user was forgotten (with the outcome of
///   the episode that was open, if one was).
/// - `{"op":"ack","id":"…","sink":"…"}`: a sink is done with an event.
/// - `{"op":"dead","letter":{…}}`: a sink gave up on an event (see `DeadLetterRecord`).
/// - `{"op":"replay","id":"…","sink":"…"}`: a dead letter went back to its sink's queue.
/// - `{"op":"repeats","users":[{…}]}`: users' repeated reports not yet folded into their
///   files, each as `LoggedRepeats` (idempotent to fold: a user's newest line is what counts).
/// - `{"op":"fired","changes":[{…}],"events":[…]}`: what a scheduler pass did to users it
///   fired from their schedules, each as a `FiredChange` (idempotent to apply), with the events
///   it emitted; a snapshot logs the changes not yet in their files again, without events.
enum LogEntry {
    case put(UserRecord, events: [(event: OutboxEvent, sinks: [String])], outcomes: [EpisodeOutcome] = [])
    case change(RecordDelta, events: [(event: OutboxEvent, sinks: [String])], outcomes: [EpisodeOutcome] = [])
    case delete(UserID, outcome: EpisodeOutcome? = nil)
    case ack(eventID: String, sink: String)
    case dead(DeadLetterRecord)
    case replay(eventID: String, sink: String)
    case repeats([LoggedRepeats])
    case fired([FiredChange], events: [(event: OutboxEvent, sinks: [String])])

    var line: [UInt8] {
        switch self {
        case .put(let record, let events, let outcomes):
            return Self.recordLine("put", json: record.jsonBytes, events: events, outcomes: outcomes)
        case .change(let delta, let events, let outcomes):
            return Self.recordLine("change", json: delta.jsonBytes, events: events, outcomes: outcomes)
        case .delete(let userID, let outcome):
            return Self.object { writer in
                writer.member("op", "delete")
                writer.member("userID", userID.rawValue)
                if let outcome {
                    writer.key("outcome")
                    outcome.write(to: &writer)
                }
            }
        case .ack(let eventID, let sink):
            return Self.object { writer in
                writer.member("op", "ack")
                writer.member("id", eventID)
                writer.member("sink", sink)
            }
        case .dead(let letter):
            return Self.object { writer in
                writer.member("op", "dead")
                writer.key("letter")
                letter.write(to: &writer)
            }
        case .replay(let eventID, let sink):
            return Self.object { writer in
                writer.member("op", "replay")
                writer.member("id", eventID)
                writer.member("sink", sink)
            }
        case .repeats(let users):
            return Self.object(reservingCapacity: 64 + 256 * users.count) { writer in
                writer.member("op", "repeats")
                writer.key("users")
                writer.beginArray()
                for user in users { user.write(to: &writer) }
                writer.endArray()
            }
        case .fired(let changes, let events):
            return Self.object(reservingCapacity: 64 + 192 * changes.count + 512 * events.count) { writer in
                writer.member("op", "fired")
                writer.key("changes")
                writer.beginArray()
                for change in changes { change.write(to: &writer) }
                writer.endArray()
                Self.write(events, to: &writer)
            }
        }
    }

    /// A line holding one JSON object with the members `members` writes.
    private static func object(reservingCapacity capacity: Int = 256, _ members: (inout JSONWriter) -> Void) -> [UInt8]
    {
        var writer = JSONWriter(reservingCapacity: capacity)
        writer.beginObject()
        members(&writer)
        writer.endObject()
        return writer.bytes
    }

    /// A `put` line around a record already encoded (the checkpoint writes the same bytes to
    /// the user's file, so they are encoded once), or a `change` line around a delta's.
    static func recordLine(
        _ op: String, json: [UInt8], events: [(event: OutboxEvent, sinks: [String])], outcomes: [EpisodeOutcome] = []
    ) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: json.count + 64 + 512 * events.count)
        writer.beginObject()
        writer.member("op", op)
        writer.key("record")
        writer.raw(json)
        write(events, to: &writer)
        if !outcomes.isEmpty {
            writer.key("outcomes")
            writer.beginArray()
            for outcome in outcomes { outcome.write(to: &writer) }
            writer.endArray()
        }
        writer.endObject()
        return writer.bytes
    }

    /// Lines of `entry` over `items`, 1,024 to a line: what a checkpoint logs for many users
    /// (repeats, fired changes) without a line of megabytes.
    static func lines<Item>(_ items: [Item], _ entry: ([Item]) -> LogEntry) -> [[UInt8]] {
        stride(from: 0, to: items.count, by: 1024).map { start in
            entry(Array(items[start..<min(start + 1024, items.count)])).line
        }
    }

    /// `"events":[{"sinks":[…],"event":{…}}]`
    private static func write(_ events: [(event: OutboxEvent, sinks: [String])], to writer: inout JSONWriter) {
        writer.key("events")
        writer.beginArray()
        for (event, sinks) in events {
            writer.beginObject()
            writer.member("sinks", strings: sinks)
            writer.key("event")
            writer.raw(event.bytes)
            writer.endObject()
        }
        writer.endArray()
    }

    /// What `write(_:to:)` wrote; nil when anything in it is not valid.
    private static func events(_ value: JSONValue?) -> [(event: OutboxEvent, sinks: [String])]? {
        guard case .array(let eventValues)? = value else { return nil }
        var events: [(OutboxEvent, [String])] = []
        for value in eventValues {
            guard case .object(let entry) = value, case .array(let sinkValues)? = entry["sinks"],
                let eventValue = entry["event"],
                let event = try? OutboxEvent(bytes: Array(eventValue.serialized.utf8))
            else { return nil }
            events.append((event, sinkValues.compactMap { if case .string(let name) = $0 { name } else { nil } }))
        }
        return events
    }

    /// Decodes a line; nil for anything that is not a whole, valid entry (a torn tail).
    init?(line: ArraySlice<UInt8>) {
        guard case .object(let object)? = try? JSONParser.parse(line), case .string(let op)? = object["op"] else {
            return nil
        }
        switch op {
        case "put", "change":
            guard case .object(let recordObject)? = object["record"], let events = Self.events(object["events"]) else {
                return nil
            }
            var outcomes: [EpisodeOutcome] = []
            if case .array(let values)? = object["outcomes"] {
                for value in values {
                    guard case .object(let outcome) = value, let decoded = try? EpisodeOutcome(object: outcome) else {
                        return nil
                    }
                    outcomes.append(decoded)
                }
            }
            if op == "put" {
                guard let record = try? UserRecord(object: recordObject) else { return nil }
                self = .put(record, events: events, outcomes: outcomes)
            } else {
                guard let delta = try? RecordDelta(object: recordObject) else { return nil }
                self = .change(delta, events: events, outcomes: outcomes)
            }
        case "delete":
            guard case .string(let raw)? = object["userID"], let userID = try? UserID(raw) else { return nil }
            var outcome: EpisodeOutcome?
            if case .object(let value)? = object["outcome"] {
                guard let decoded = try? EpisodeOutcome(object: value) else { return nil }
                outcome = decoded
            }
            self = .delete(userID, outcome: outcome)
        case "ack", "replay":
            guard case .string(let id)? = object["id"], case .string(let sink)? = object["sink"] else { return nil }
            self = op == "ack" ? .ack(eventID: id, sink: sink) : .replay(eventID: id, sink: sink)
        case "dead":
            guard case .object(let letterObject)? = object["letter"],
                let letter = DeadLetterRecord(object: letterObject)
            else { return nil }
            self = .dead(letter)
        case "repeats":
            guard case .array(let values)? = object["users"] else { return nil }
            var users: [LoggedRepeats] = []
            users.reserveCapacity(values.count)
            for value in values {
                guard case .object(let user) = value, let decoded = try? LoggedRepeats(object: user) else { return nil }
                users.append(decoded)
            }
            self = .repeats(users)
        case "fired":
            guard case .array(let values)? = object["changes"], let events = Self.events(object["events"]) else {
                return nil
            }
            var changes: [FiredChange] = []
            changes.reserveCapacity(values.count)
            for value in values {
                guard case .object(let change) = value, let decoded = try? FiredChange(object: change) else {
                    return nil
                }
                changes.append(decoded)
            }
            self = .fired(changes, events: events)
        default:
            return nil
        }
    }
}
