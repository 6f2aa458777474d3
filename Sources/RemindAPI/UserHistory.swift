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

    public var userID: String
    public var entries: [Entry]

    public init(userID: String, entries: [Entry]) {
        self.userID = userID
        self.entries = entries
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
    }
}
