import Foundation

/// The fields of an outcomes-log line that the statistics need, read straight from its bytes.
///
/// A million lines are read when the daemon starts (`/v1/stats` waits for them); the generic
/// JSON parser builds a `String` for every key and value and took about 4.5 µs a line. This
/// reads the line as `EpisodeOutcome.write` writes it (keys in that order, no escapes in the
/// values it reads) and returns nil for anything else, which the caller then reads with the
/// generic parser: a line written by hand or by an older version still counts.
public struct OutcomeLine {
    public var group: ArraySlice<UInt8>
    public var reason: PermissionErrorType?
    public var startedAt: Date
    public var closedAt: Date
    public var resolved: Bool
    public var reminders: Int
    public var sendTime: SendTime.Arm?
    public var platform: ReportedPlatform?
    public var marks: FunnelMarks = []
    public var opening: Episode.Opening?

    public init?(_ line: ArraySlice<UInt8>) {
        var scanner = Scanner(bytes: line)
        guard scanner.expect(#"{"userID":""#), scanner.skipString(),
            scanner.expect(#","group":""#), let group = scanner.string(),
            scanner.expect(#","reason":"#)
        else { return nil }
        var reason: PermissionErrorType?
        if scanner.expect("null") {
            reason = nil
        } else {
            guard scanner.expect("\""), let raw = scanner.string(),
                let known = PermissionErrorType.allCases.first(where: { $0.rawValue.utf8.elementsEqual(raw) })
            else { return nil }
            reason = known
        }
        guard scanner.expect(#","startedAt":""#), let started = scanner.string().flatMap(Self.date),
            scanner.expect(#","closedAt":""#), let closed = scanner.string().flatMap(Self.date),
            scanner.expect(#","outcome":""#), let outcome = scanner.string(),
            scanner.expect(#","reminders":"#), let reminders = scanner.integer(),
            scanner.expect(#","platform":"#)
        else { return nil }
        if outcome.elementsEqual("resolved".utf8) {
            resolved = true
        } else if outcome.elementsEqual("forgotten".utf8) {
            resolved = false
        } else {
            return nil
        }
        var platformWord: ArraySlice<UInt8>?
        if scanner.expect("null") {
            platformWord = nil
        } else {
            guard scanner.expect("\""), let raw = scanner.string() else { return nil }
            platformWord = raw
        }
        platform = platformWord.flatMap(ReportedPlatform.init(utf8:))
        if scanner.expect(#","sendTime":""#), let arm = scanner.string() {
            sendTime = SendTime.Arm.allCases.first { $0.rawValue.utf8.elementsEqual(arm) }
        }
        if scanner.expect(#","opening":""#), let name = scanner.string() {
            opening = Episode.Opening.allCases.first { $0.rawValue.utf8.elementsEqual(name) }
        }
        // What the app reported: absent from lines of older versions.
        if scanner.expect(#","opened":"#), let opened = scanner.integer(), scanner.expect(#","asks":"#),
            let asks = scanner.integer(), scanner.expect(#","asksShown":"#), let shown = scanner.integer(),
            scanner.expect(#","asksAccepted":"#), let accepted = scanner.integer()
        {
            marks = FunnelMarks(
                reminded: false, opened: opened, asks: asks, asksShown: shown, asksAccepted: accepted)
        }
        // The channels (absent from older lines: `FunnelAggregate` counts theirs as push).
        var channels: FunnelMarks = []
        if scanner.expect(#","channels":["#) {
            var found: FunnelMarks = []
            while scanner.expect("\""), let name = scanner.string() {
                guard let channel = ReminderChannel.allCases.first(where: { $0.rawValue.utf8.elementsEqual(name) })
                else { return nil }
                found.insert(FunnelMarks(channel: channel))
                _ = scanner.expect(",")
            }
            guard scanner.expect("]") else { return nil }
            channels = found
        }
        self.group = group
        self.reason = reason
        self.startedAt = started
        self.closedAt = closed
        self.reminders = reminders
        if reminders > 0 && !group.elementsEqual(Experiment.holdoutGroup.utf8) {
            marks.insert(.reminded)
        }
        marks.formUnion(channels)
    }

    private static func date(_ bytes: ArraySlice<UInt8>) -> Date? {
        bytes.withUnsafeBufferPointer { RFC3339.parse(bytes: $0) }
    }

    private struct Scanner {
        let bytes: ArraySlice<UInt8>
        var index: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            self.index = bytes.startIndex
        }

        mutating func expect(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.endIndex - index >= count else { return false }
            let matches = literal.withUTF8Buffer { expected in
                var offset = 0
                while offset < count {
                    if bytes[index + offset] != expected[offset] { return false }
                    offset += 1
                }
                return true
            }
            if matches { index += count }
            return matches
        }

        /// The bytes up to the closing quote, which it consumes; nil at an escape or the end.
        mutating func string() -> ArraySlice<UInt8>? {
            let start = index
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    return bytes[start..<index]
                }
                if byte == UInt8(ascii: "\\") { return nil }
                index += 1
            }
            return nil
        }

        mutating func skipString() -> Bool { string() != nil }

        mutating func integer() -> Int? {
            var value = 0
            let start = index
            while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]),
                index - start < 9
            {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            return index > start ? value : nil
        }
    }
}
