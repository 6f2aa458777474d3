/// The steps an episode reached on its way to a fix (docs/outcomes.md "The funnel"), each
/// counted once however often: a reminder delivered, a reminder opened, an ask given, shown,
/// accepted. Kept with each open episode's schedule and each outcome, in one byte.
public struct FunnelMarks: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let reminded = FunnelMarks(rawValue: 1)
    public static let opened = FunnelMarks(rawValue: 2)
    public static let asked = FunnelMarks(rawValue: 4)
    public static let shown = FunnelMarks(rawValue: 8)
    public static let accepted = FunnelMarks(rawValue: 16)
    /// Not steps: the channels its reminders took (docs/fallback.md), what `byChannel` counts.
    public static let pushed = FunnelMarks(rawValue: 32)
    public static let fellBack = FunnelMarks(rawValue: 64)

    /// The mark of a channel.
    public init(channel: ReminderChannel) {
        self = channel == .push ? .pushed : .fellBack
    }

    /// The channels marked, sorted by name (an outcome line's `channels`).
    public var channels: [ReminderChannel] {
        ReminderChannel.allCases.filter { contains(FunnelMarks(channel: $0)) }.sorted { $0.rawValue < $1.rawValue }
    }

    /// The marks of counts: each step reached when its count is above 0.
    public init(reminded: Bool, opened: Int, asks: Int, asksShown: Int, asksAccepted: Int) {
        var marks: FunnelMarks = []
        if reminded { marks.insert(.reminded) }
        if opened > 0 { marks.insert(.opened) }
        if asks > 0 { marks.insert(.asked) }
        if asksShown > 0 { marks.insert(.shown) }
        if asksAccepted > 0 { marks.insert(.accepted) }
        self = marks
    }

    /// In funnel order.
    static let ordered: [FunnelMarks] = [.reminded, .opened, .asked, .shown, .accepted]

    /// How many steps past `episodes` an episode reached in order (0 to 6): the funnel counts an
    /// episode at a step only when it reached every step before it, as analytics tools count an
    /// ordered funnel; `resolved` is the last.
    public func depth(resolved: Bool) -> Int {
        var depth = 0
        for mark in Self.ordered {
            guard contains(mark) else { return depth }
            depth += 1
        }
        return resolved ? depth + 1 : depth
    }
}

extension Episode {
    /// The steps this episode reached. A held-out reminder is no reminder: the holdout is never
    /// reminded.
    public var funnelMarks: FunnelMarks {
        var marks = FunnelMarks(
            reminded: deliveries.contains { !$0.heldOut }, opened: openedCount, asks: asks.count, asksShown: asksShown,
            asksAccepted: asksAccepted)
        for delivery in deliveries where !delivery.heldOut { marks.insert(FunnelMarks(channel: delivery.channel)) }
        return marks
    }
}

/// A user's platform as the statistics split it: the first word of the reported `platform`,
/// `ios` or `android`, else `other`; users who never reported one are counted as `unknown`.
public enum ReportedPlatform: String, Sendable, CaseIterable {
    case ios
    case android
    case other

    /// The platform of a reported string; nil for none.
    public init?(reported: String?) {
        guard let reported else { return nil }
        self.init(utf8: ArraySlice(reported.utf8))
    }

    /// The same from the string's UTF-8 bytes (an outcome line's), without making a `String`:
    /// the first word as `CopyPlatform(reported:)` takes it (leading spaces skipped).
    public init?(utf8 bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return nil }
        let word = bytes.drop { $0 == UInt8(ascii: " ") }.prefix { $0 != UInt8(ascii: " ") }
        if word.caseInsensitiveEquals(Self.ios.rawValue.utf8) {
            self = .ios
        } else if word.caseInsensitiveEquals(Self.android.rawValue.utf8) {
            self = .android
        } else {
            self = .other
        }
    }

    /// Its copy platform (`CopySet.platforms`); nil for `other`.
    public var copyPlatform: CopyPlatform? {
        switch self {
        case .ios: .ios
        case .android: .android
        case .other: nil
        }
    }

    /// The name statistics use for a user with `platform` (`unknown` for none).
    public static func statisticsName(_ platform: ReportedPlatform?) -> String { platform?.rawValue ?? "unknown" }
}
