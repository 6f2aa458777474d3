import Foundation
import RemindCore

/// What `remindd migrate` notes in the target while it copies: the source, when it began, how
/// many users the source held then, and the last user copied and how many were copied up to
/// it, so `--resume` goes on after it.
struct MigrationMarker: Equatable {
    var source: String
    var startedAt: Date
    var sourceUsers: Int
    var usersThrough: UserID?
    var usersCopied = 0

    var text: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("source", source)
        writer.member("startedAt", RFC3339.format(startedAt))
        writer.member("sourceUsers", sourceUsers)
        writer.member("usersThrough", usersThrough?.rawValue)
        writer.member("usersCopied", usersCopied)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    init(source: String, startedAt: Date, sourceUsers: Int, usersThrough: UserID? = nil, usersCopied: Int = 0) {
        self.source = source
        self.startedAt = startedAt
        self.sourceUsers = sourceUsers
        self.usersThrough = usersThrough
        self.usersCopied = usersCopied
    }

    /// Reads what `text` wrote; nil for anything else.
    init?(text: String) {
        guard case .object(let object)? = try? JSONParser.parse(Array(text.utf8)) else { return nil }
        var reader = JSONObjectReader(object, path: "migration")
        guard let source = try? reader.string("source"), let started = (try? reader.string("startedAt")) ?? nil,
            let startedAt = RFC3339.parse(started), let users = try? reader.integer("sourceUsers", in: 0...Int64.max)
        else { return nil }
        let through = (try? reader.string("usersThrough")).flatMap { $0 }.flatMap { try? UserID($0) }
        let copied = (try? reader.integer("usersCopied", in: 0...Int64.max)).flatMap { $0 } ?? 0
        self.init(
            source: source, startedAt: startedAt, sourceUsers: Int(users), usersThrough: through,
            usersCopied: Int(copied))
    }
}
