import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Times as people read them: the absolute local time and how far it is from now
/// ("2026-11-29 10:16:27 CET (in 6 days)").
struct TimeText {
    let now: Date

    init(now: Date = Date()) {
        self.now = now
    }

    /// Local time as `date` prints it, with the zone's own abbreviation (CET, CEST, UTC) from
    /// the C library: Foundation's formatter on Linux only knows "GMT+1" for most zones.
    func absolute(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S %Z", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// "in 6 days", "3 hours ago", "now". Units are floored, so a reminder due in 6 days and
    /// 23 hours says "in 6 days": never later than it is.
    func relative(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince(now).rounded(.towardZero))
        guard seconds != 0 else { return "now" }
        let text = Self.span(abs(seconds))
        return seconds > 0 ? "in \(text)" : "\(text) ago"
    }

    func both(_ date: Date) -> String {
        "\(absolute(date)) (\(relative(date)))"
    }

    func both(_ date: Date?, otherwise: String) -> String {
        date.map(both) ?? otherwise
    }

    /// A span in its largest sensible unit, floored: "45 seconds", "1 minute", "36 hours",
    /// "6 days". Hours run up to two days, where "1 day" would hide most of the difference.
    static func span(_ seconds: Int64) -> String {
        switch seconds {
        case ..<60: plural(seconds, "second")
        case ..<3_600: plural(seconds / 60, "minute")
        case ..<172_800: plural(seconds / 3_600, "hour")
        default: plural(seconds / 86_400, "day")
        }
    }

    /// A configured duration, exact: "7 days", "90 minutes", "3601 seconds".
    static func duration(_ seconds: Int64) -> String {
        if seconds % 86_400 == 0 { return plural(seconds / 86_400, "day") }
        if seconds % 3_600 == 0 { return plural(seconds / 3_600, "hour") }
        if seconds % 60 == 0 { return plural(seconds / 60, "minute") }
        return plural(seconds, "second")
    }

    static func plural(_ count: Int64, _ unit: String) -> String {
        count == 1 ? "1 \(unit)" : "\(count) \(unit)s"
    }
}
