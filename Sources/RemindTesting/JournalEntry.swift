import Foundation

/// One journal entry as `journalctl --output=json` prints it.
public struct JournalEntry: Sendable {
    /// Every field's values; journald allows a field more than once in one entry.
    public let fields: [String: [String]]

    /// The field's value, or nil when the entry lacks it; the first value if it occurs more than once.
    public subscript(name: String) -> String? {
        self.fields[name]?.first
    }

    /// Whether journald received the entry at or after `date` (to the second). For matches on `_PID`: the journal
    /// keeps earlier runs' entries, and a process of this run may have the PID one of theirs had.
    public func received(since date: Date) -> Bool {
        guard let micros = self["__REALTIME_TIMESTAMP"].flatMap(Int64.init) else { return false }
        return Double(micros) / 1e6 >= date.timeIntervalSince1970.rounded(.down)
    }

    public init(json line: String) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw JournaldFixtureError.unreadable(line)
        }
        var fields: [String: [String]] = [:]
        for (name, value) in object {
            // journalctl prints a value as a string, as an array of bytes when it is not printable UTF-8 (e.g. it
            // contains newlines), and as an array of such values when the field occurs more than once.
            if let values = value as? [Any], !(values.allSatisfy { $0 is NSNumber }) {
                fields[name] = values.compactMap(Self.text(of:))
            } else {
                fields[name] = Self.text(of: value).map { [$0] } ?? []
            }
        }
        self.fields = fields
    }

    private static func text(of value: Any) -> String? {
        if let string = value as? String { return string }
        if let bytes = value as? [NSNumber] { return String(decoding: bytes.map(\.uint8Value), as: UTF8.self) }
        return nil
    }
}
