import Foundation

extension SinkEvent {
    /// Reads an event back from its JSON bytes (the outbox keeps only the bytes; the push sinks
    /// need its fields to build a notification). Exactly the keys `jsonBytes` writes.
    public init(json bytes: some Collection<UInt8>) throws(ValidationError) {
        guard case .object(let object)? = try? JSONParser.parse(bytes) else {
            throw ValidationError(field: "event", reason: "is not a JSON object")
        }
        var reader = JSONObjectReader(object, path: "event")
        guard let kind = try reader.enumeration("type", Kind.self) else {
            throw ValidationError(field: "event.type", reason: "is required")
        }
        let userID = try UserID(try Self.required(reader.string("userID"), "userID"))
        let createdAt = try Self.date(&reader, "createdAt")
        switch kind {
        case .reminder:
            guard let reason = try reader.enumeration("reason", PermissionErrorType.self) else {
                throw ValidationError(field: "event.reason", reason: "is required")
            }
            var errors: [PermissionErrorType] = []
            for value in try reader.array("errors") ?? [] {
                guard case .string(let text) = value, let error = PermissionErrorType(rawValue: text) else {
                    throw ValidationError(field: "event.errors", reason: "must list error names")
                }
                errors.append(error)
            }
            let sequence = try Self.required(reader.integer("sequence", in: 1...Int64(Int32.max)), "sequence")
            self = .reminder(
                Reminder(
                    userID: userID, title: try Self.required(reader.string("title"), "title"),
                    body: try Self.required(reader.string("body"), "body"), reason: reason, errors: errors,
                    sequence: Int(sequence), episodeStartedAt: try Self.date(&reader, "episodeStartedAt"),
                    dueAt: try Self.date(&reader, "dueAt"), createdAt: createdAt,
                    // Events queued before channels existed have none of these.
                    channel: try reader.enumeration("channel", ReminderChannel.self) ?? .push,
                    because: try reader.enumeration("because", FallbackReason.self),
                    locale: try reader.string("locale"),
                    platform: try reader.enumeration("platform", ReportedPlatform.self)))
        case .withdraw:
            var reminderIDs: [String] = []
            for value in try reader.array("reminderIDs") ?? [] {
                guard case .string(let id) = value else {
                    throw ValidationError(field: "event.reminderIDs", reason: "must list strings")
                }
                reminderIDs.append(id)
            }
            self = .withdraw(
                Withdraw(
                    userID: userID, reminderIDs: reminderIDs,
                    episodeStartedAt: try Self.date(&reader, "episodeStartedAt"), createdAt: createdAt))
        case .heartbeat:
            // The id names the heartbeat's due time, which the bytes carry only inside it.
            let id = try Self.required(reader.string("id"), "id")
            guard let seconds = id.split(separator: "/").last.flatMap({ Int64($0) }) else {
                throw ValidationError(field: "event.id", reason: "must end in the heartbeat's Unix time")
            }
            self = .heartbeat(
                Heartbeat(
                    userID: userID, lastReportAt: try Self.date(&reader, "lastReportAt"),
                    dueAt: Date(timeIntervalSince1970: TimeInterval(seconds)), createdAt: createdAt))
        }
    }

    private static func required<T>(_ value: T?, _ key: String) throws(ValidationError) -> T {
        guard let value else { throw ValidationError(field: "event.\(key)", reason: "is required") }
        return value
    }

    private static func date(_ reader: inout JSONObjectReader, _ key: String) throws(ValidationError) -> Date {
        guard let text = try reader.string(key), let date = RFC3339.parse(text) else {
            throw ValidationError(field: "event.\(key)", reason: "must be an RFC 3339 timestamp")
        }
        return date
    }

    /// The episode a reminder or withdraw belongs to, as `<userID>/<start, Unix seconds>`:
    /// the push services' collapse key, so a recurring reminder replaces the one on screen.
    public var episodeKey: String? {
        switch self {
        case .reminder(let event): "\(event.userID.rawValue)/\(event.episodeStartedAt.unixSeconds)"
        case .withdraw(let event): "\(event.userID.rawValue)/\(event.episodeStartedAt.unixSeconds)"
        case .heartbeat: nil
        }
    }
}
