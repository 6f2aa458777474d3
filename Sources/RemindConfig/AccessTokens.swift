import Foundation
import RemindCore

/// The TCP listener's bearer tokens, each with a name (who holds it: the actor in audit
/// entries) and a scope.
///
/// They come from two files, both optional and both re-read at every reload:
/// - `listen.tokensFile`: one `<name> <scope> <token>` a line, separated by spaces or tabs.
///   A `#` at the start of a field starts a comment (a token may contain `#` elsewhere); blank
///   lines are skipped. Names match `[A-Za-z0-9_.-]{1,64}` and are unique; tokens are at least
///   16 characters and unique (two holders of one token could not be told apart).
/// - `listen.tokenFile`: a single token, surrounding whitespace ignored, which is the `admin`
///   token named `default`.
///
/// No error message, `description` or log line carries a token's characters: errors name the
/// key and line only.
public struct AccessTokens: Sendable, Equatable, CustomStringConvertible {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var scope: AccessScope
        public var token: [UInt8]

        public init(name: String, scope: AccessScope, token: [UInt8]) {
            self.name = name
            self.scope = scope
            self.token = token
        }
    }

    public static let minimumTokenLength = 16
    public static let maximumNameLength = 64
    /// The name of `listen.tokenFile`'s token.
    public static let defaultName = "default"

    public private(set) var entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    public var description: String {
        "AccessTokens(" + entries.map { "\($0.name):\($0.scope.rawValue)" }.joined(separator: ", ") + ")"
    }

    /// Reads the files that `listen` names; no files, no tokens.
    public static func load(_ listen: ListenConfiguration) throws(ValidationError) -> AccessTokens {
        var tokens = AccessTokens()
        if let path = listen.tokenFile {
            let text = try read(path, field: "listen.tokenFile").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else {
                throw ValidationError(field: "listen.tokenFile", reason: "\(path) is empty")
            }
            tokens.entries.append(Entry(name: defaultName, scope: .admin, token: Array(text.utf8)))
        }
        if let path = listen.tokensFile {
            let text = try read(path, field: "listen.tokensFile")
            try tokens.add(parsing: text, file: path, field: "listen.tokensFile")
        }
        return tokens
    }

    /// Adds the entries of a tokens file's text; `field` and `file` name it in errors.
    public mutating func add(parsing text: String, file: String, field: String) throws(ValidationError) {
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            func invalid(_ reason: String) -> ValidationError {
                ValidationError(field: field, reason: "\(file) line \(index + 1): \(reason)")
            }
            var fields: [Substring] = []
            for field in rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }) {
                if field.hasPrefix("#") { break }
                fields.append(field)
            }
            if fields.isEmpty { continue }
            guard fields.count == 3 else {
                throw invalid("expected <name> <scope> <token>, found \(fields.count) field(s)")
            }
            let name = String(fields[0])
            guard Self.isValidName(name) else {
                throw invalid("name must be 1 to \(Self.maximumNameLength) of A-Z a-z 0-9 _ . -")
            }
            guard let scope = AccessScope(rawValue: String(fields[1])) else {
                throw invalid("scope of \(name) must be read, report or admin")
            }
            let token = Array(fields[2].utf8)
            guard token.count >= Self.minimumTokenLength else {
                throw invalid("token of \(name) must be at least \(Self.minimumTokenLength) characters")
            }
            if entries.contains(where: { $0.name == name }) {
                throw invalid("the name \(name) is used twice")
            }
            if entries.contains(where: { $0.token == token }) {
                throw invalid("the token of \(name) is also another name's; every holder needs a token of its own")
            }
            entries.append(Entry(name: name, scope: scope, token: token))
        }
    }

    static func isValidName(_ name: String) -> Bool {
        guard (1...maximumNameLength).contains(name.utf8.count) else { return false }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }

    private static func read(_ path: String, field: String) throws(ValidationError) -> String {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw ValidationError(field: field, reason: "cannot read \(path)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
