import RemindCore

/// The answer to `GET /v1/users` (docs/api.md, openapi.yaml): a page of user statuses in byte
/// order of the ID and the cursor of the next page. With `Accept: application/x-ndjson` the
/// answer is instead every status, one per line.
public struct UserList: Sendable {
    /// Statuses per page when the request names no `limit`.
    public static let defaultLimit = 100
    /// The largest `limit` accepted.
    public static let maximumLimit = 10_000
    /// The media type of the stream of every user.
    public static let streamMediaType = "application/x-ndjson"

    /// Each user's status, encoded as `GET /v1/users/{userID}` answers it.
    public var users: [[UInt8]]
    /// What to pass as `after` for the next page; nil on the last page.
    public var next: UserID?

    public init(users: [[UInt8]], next: UserID?) {
        self.users = users
        self.next = next
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("users")
        writer.beginArray()
        for status in users { writer.raw(status) }
        writer.endArray()
        writer.member("next", next?.rawValue)
        writer.endObject()
        return writer.bytes
    }
}
