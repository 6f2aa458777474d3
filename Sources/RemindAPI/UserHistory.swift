import Foundation
import RemindCore

/// A user's changes, newest `observedAt` first (`GET /v1/users/{userID}/history`): the daemon
/// writes it, `remindctl` reads it.
public struct UserHistory: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var observedAt: Date
        public var receivedAt: Date
        public var permissions: Permissions
        public var errors: [PermissionErrorType]

        public init(observedAt: Date, receivedAt: Date, permissions: Permissions, errors: [PermissionErrorType]) {
            self.observedAt = observedAt
            self.receivedAt = receivedAt
            self.permissions = permissions
            self.errors = errors
        }

        /// A stored history entry as the API shows it (without the observations it folded).
        public init(_ entry: HistoryEntry) {
            self.init(
                observedAt: entry.observedAt, receivedAt: entry.receivedAt, permissions: entry.permissions,
                errors: entry.errors)
        }
    }

    /// Something the app was asked or reported (docs/in-app.md): an ask given (`asked`), or an
    /// engagement event (`reminderOpened`, `askShown`, `askAccepted`, `askDismissed`), with
    /// the reminder's or ask's ID.
    public struct Engagement: Sendable, Equatable {
        public var type: String
        public var id: String
        public var at: Date

        public init(type: String, id: String, at: Date) {
            self.type = type
            self.id = id
            self.at = at
        }

        /// Everything of this kind in the record's kept episodes, newest first (ties: asks before
        /// what the app reported of them).
        public static func all(in record: UserRecord) -> [Engagement] {
            var found: [Engagement] = []
            for episode in record.episodes {
                for delivery in episode.deliveries {
                    if let at = delivery.openedAt {
                        found.append(
                            Engagement(type: EngagementEvent.Kind.reminderOpened.rawValue, id: delivery.id, at: at))
                    }
                }
                for ask in episode.asks {
                    found.append(Engagement(type: "asked", id: ask.id, at: ask.givenAt))
                    let reported: [(EngagementEvent.Kind, Date?)] = [
                        (.askShown, ask.shownAt), (.askAccepted, ask.acceptedAt), (.askDismissed, ask.dismissedAt),
                    ]
                    for case (let kind, let at?) in reported {
                        found.append(Engagement(type: kind.rawValue, id: ask.id, at: at))
                    }
                }
            }
            // Stable: within one time, the order above (an ask before its events).
            return found.enumerated().sorted { ($0.element.at, $1.offset) > ($1.element.at, $0.offset) }.map(\.element)
        }
    }

    public var userID: String
    public var entries: [Entry]
    /// The asks and engagement events of the kept episodes, newest first.
    public var engagement: [Engagement]

    public init(userID: String, entries: [Entry], engagement: [Engagement] = []) {
        self.userID = userID
        self.entries = entries
        self.engagement = engagement
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("userID", userID)
        writer.key("entries")
        writer.beginArray()
        for entry in entries {
            writer.beginObject()
            writer.member("observedAt", RFC3339.format(entry.observedAt))
            writer.member("receivedAt", RFC3339.format(entry.receivedAt))
            writer.key("permissions")
            UserRecord.write(entry.permissions, observedAt: nil, to: &writer)
            writer.member("errors", strings: entry.errors.map(\.rawValue))
            writer.endObject()
        }
        writer.endArray()
        writer.key("engagement")
        writer.beginArray()
        for item in engagement {
            writer.beginObject()
            writer.member("type", item.type)
            writer.member("id", item.id)
            writer.member("at", RFC3339.format(item.at))
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    public init(json: JSONValue) throws(ValidationError) {
        var reader = try AnswerReader(json)
        userID = try reader.string("userID")
        entries = try reader.array("entries") { value, path throws(ValidationError) in
            var entry = try AnswerReader(value, path: path)
            return Entry(
                observedAt: try entry.date("observedAt"), receivedAt: try entry.date("receivedAt"),
                permissions: try entry.permissions("permissions"), errors: try entry.errors("errors"))
        }
        engagement =
            (try? reader.array("engagement") { value, path throws(ValidationError) in
                var item = try AnswerReader(value, path: path)
                return Engagement(type: try item.string("type"), id: try item.string("id"), at: try item.date("at"))
            }) ?? []
    }
}
