import Foundation
import RemindCore

/// A user's changes, newest `observedAt` first (`GET /v1/users/{userID}/history`).
public struct UserHistory: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var observedAt: Date
        public var receivedAt: Date
        public var permissions: Permissions
        public var errors: [PermissionErrorType]
    }

    public var userID: String
    public var entries: [Entry]

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
