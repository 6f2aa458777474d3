import Foundation

/// RFC 3339 timestamps, written in UTC with `Z` and with milliseconds only where the instant
/// has them, as every remindd timestamp is.
///
/// Hand-written rather than `ISO8601DateFormatter` because it sits on the report hot path and
/// must round-trip exactly: remindd keeps instants at millisecond precision (see
/// `Date.millisecondPrecision`), so formatting and parsing never drift.
public enum RFC3339 {
    /// Formats `date` as `2026-11-22T10:00:00Z` or `2026-11-22T10:00:00.012Z`.
    public static func format(_ date: Date) -> String {
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = totalMilliseconds.floorDiv(1000)
        let milliseconds = Int(totalMilliseconds - seconds * 1000)
        let days = seconds.floorDiv(86_400)
        seconds -= days * 86_400
        let (year, month, day) = CivilDate.fromDays(days)
        let hour = Int(seconds / 3600)
        let minute = Int(seconds % 3600 / 60)
        let second = Int(seconds % 60)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendDigits(&bytes, year, width: 4)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(&bytes, month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(&bytes, day, width: 2)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(&bytes, hour, width: 2)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(&bytes, minute, width: 2)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(&bytes, second, width: 2)
        if milliseconds != 0 {
            bytes.append(UInt8(ascii: "."))
            appendDigits(&bytes, milliseconds, width: 3)
        }
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` in at least `width` digits. Only a year can fall outside them: `parse` admits
    /// none outside 0000–9999, but an instant computed from one (a due date) may; it is written
    /// in ISO 8601's expanded form (`-0001`, `10000`) rather than trapping.
    private static func appendDigits(_ bytes: inout [UInt8], _ value: Int, width: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // Most significant digit first, without a temporary array: seven of these per date,
        // and dates are most of a record.
        let magnitude = value.magnitude
        var divisor: UInt = 1
        var digits = 1
        while digits < width || magnitude / divisor >= 10 {
            divisor *= 10
            digits += 1
        }
        var rest = magnitude
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Parses an RFC 3339 date-time (`T` or `t`, `Z`, `z` or a `±HH:MM` offset, any number of
    /// fraction digits); the result is rounded to milliseconds. Returns nil for anything else,
    /// including dates that do not exist (February 30th) and leap seconds.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// `parse` over UTF-8 bytes, for readers that never build a `String`.
    public static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func number(_ width: Int) -> Int? {
            guard index + width <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<width {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                index += 1
            }
            return value
        }
        func expect(_ characters: UInt8...) -> Bool {
            guard index < bytes.count, characters.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), expect(UInt8(ascii: "T"), UInt8(ascii: "t")), let hour = number(2),
            expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")), let second = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offsetSeconds = 0
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2), expect(UInt8(ascii: ":")), let offsetMinutes = number(2),
                offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = CivilDate.toDays(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        let milliseconds = seconds * 1000 + Int64((fraction * 1000).rounded())
        // The offset (or rounding) can carry an instant out of the four-digit years:
        // `0000-01-01T00:00:00+00:01` is in year -1 in UTC, which `format` cannot write as
        // RFC 3339. Such an instant is refused here rather than stored and echoed back.
        guard validMilliseconds.contains(milliseconds) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// 0000-01-01T00:00:00Z up to 9999-12-31T23:59:59.999Z, in Unix milliseconds.
    static let validMilliseconds: Range<Int64> =
        CivilDate.toDays(year: 0, month: 1, day: 1) * 86_400_000..<CivilDate.toDays(year: 10_000, month: 1, day: 1)
        * 86_400_000
}

/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), after
/// Howard Hinnant's `days_from_civil`; exact for every year remindd can meet.
enum CivilDate {
    static func toDays(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func fromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension Int64 {
    /// Division rounding toward negative infinity, so instants before 1970 format correctly.
    func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

extension Date {
    /// This instant rounded to whole milliseconds: every instant remindd stores or compares is
    /// kept at this precision so that what is written to JSON reads back as the same value.
    public var millisecondPrecision: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// Whole Unix seconds, rounded down: the episode part of a reminder id.
    public var unixSeconds: Int64 {
        Int64(timeIntervalSince1970.rounded(.down))
    }
}
