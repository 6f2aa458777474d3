import Foundation
import RemindCore
import RemindTesting
import Testing

struct RFC3339Tests {
    /// 2026-11-22T10:00:00Z, an example due time.
    static let dueAt = Date(timeIntervalSince1970: 1_795_341_600)

    /// The instant `milliseconds` after `dueAt`, built the way a parsed timestamp is.
    static func at(milliseconds: Int64) -> Date {
        Date(unixMilliseconds: 1_795_341_600_000 + milliseconds)
    }

    /// Whole seconds are written without a fraction, others with exactly three digits.
    @Test func formatWritesMillisecondsOnlyWhenPresent() {
        #expect(RFC3339.format(Self.dueAt) == "2026-11-22T10:00:00Z")
        #expect(RFC3339.format(Self.dueAt.addingTimeInterval(0.012)) == "2026-11-22T10:00:00.012Z")
        #expect(RFC3339.format(Self.dueAt.addingTimeInterval(0.5)) == "2026-11-22T10:00:00.500Z")
        #expect(RFC3339.format(Self.dueAt.addingTimeInterval(59.999)) == "2026-11-22T10:00:59.999Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
    }

    /// A sub-millisecond remainder is rounded to the nearest millisecond, not truncated.
    @Test func formatRoundsToTheNearestMillisecond() {
        #expect(RFC3339.format(Self.dueAt.addingTimeInterval(0.0126)) == "2026-11-22T10:00:00.013Z")
        #expect(RFC3339.format(Self.dueAt.addingTimeInterval(0.9996)) == "2026-11-22T10:00:01Z")
    }

    /// Offsets are applied and the result is UTC; `t` and `z` may be lower case.
    @Test func parseAppliesOffsetsAndAcceptsLowerCase() {
        #expect(RFC3339.parse("2026-11-22T10:00:00Z") == Self.dueAt)
        #expect(RFC3339.parse("2026-11-22T12:00:00+02:00") == Self.dueAt)
        #expect(RFC3339.parse("2026-11-22T04:30:00-05:30") == Self.dueAt)
        #expect(RFC3339.parse("2026-11-22T10:00:00+00:00") == Self.dueAt)
        #expect(RFC3339.parse("2026-11-22T10:00:00-00:00") == Self.dueAt)
        #expect(RFC3339.parse("2026-11-22t10:00:00z") == Self.dueAt)
        #expect(RFC3339.parse("2026-11-23T00:30:00+14:30") == Self.dueAt)
    }

    /// Fractions of any length are rounded to milliseconds.
    @Test func parseRoundsFractionsToMilliseconds() {
        #expect(RFC3339.parse("2026-11-22T10:00:00.012Z") == Self.at(milliseconds: 12))
        #expect(RFC3339.parse("2026-11-22T10:00:00.5Z") == Self.at(milliseconds: 500))
        #expect(RFC3339.parse("2026-11-22T10:00:00.0126Z") == Self.at(milliseconds: 13))
        #expect(RFC3339.parse("2026-11-22T10:00:00.1234567Z") == Self.at(milliseconds: 123))
        #expect(RFC3339.parse("2026-11-22T09:59:59.9996Z") == Self.dueAt)
        #expect(RFC3339.parse("2026-11-22T10:00:00.000000000Z") == Self.dueAt)
        // The rounded value is what formatting writes back: millisecond instants only.
        #expect(RFC3339.parse("2026-11-22T10:00:00.0126Z").map(RFC3339.format) == "2026-11-22T10:00:00.013Z")
    }

    /// Dates and times that do not exist, and incomplete timestamps, are refused.
    @Test func parseRejectsInvalidTimestamps() {
        let invalid = [
            "2026-02-30T00:00:00Z", "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
            "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-11-00T00:00:00Z", "2026-11-22T24:00:00Z",
            "2026-11-22T10:60:00Z", "2026-11-22T23:59:60Z", "2026-11-22T10:00:00", "2026-11-22T10:00Z",
            "2026-11-22", "2026-11-22T10:00:00.Z", "2026-11-22T10:00:00+2:00", "2026-11-22T10:00:00+0200",
            "2026-11-22T10:00:00+24:00", "2026-11-22T10:00:00+02:60", "2026-11-22T10:00:00ZZ", "26-11-22T10:00:00Z",
            "2026-1-22T10:00:00Z", "2026-11-22X10:00:00Z", "", "not a date", " 2026-11-22T10:00:00Z",
            "2026-11-22T10:00:00Z ",
        ]
        for text in invalid {
            #expect(RFC3339.parse(text) == nil, "\(text)")
        }
        #expect(RFC3339.parse("2028-02-29T00:00:00Z") != nil)
        #expect(RFC3339.parse("2000-02-29T00:00:00Z") != nil)
    }

    /// Instants before 1970 format with the right calendar day and a positive fraction.
    @Test func negativeInstantsFormatCorrectly() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -86_400)) == "1969-12-31T00:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -31_536_000)) == "1969-01-01T00:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -2_208_988_800.25)) == "1899-12-31T23:59:59.750Z")
        #expect(RFC3339.parse("1969-12-31T23:59:59.999Z") == Date(unixMilliseconds: -1))
    }

    /// An offset (or rounding) that carries an instant out of the four-digit years is refused,
    /// and formatting never traps on such an instant computed later: a report observed at
    /// `0000-01-01T00:00:00+00:01` used to stop the daemon when its status was written.
    @Test func instantsOutsideFourDigitYearsAreRefused() {
        #expect(RFC3339.parse("0000-01-01T00:00:00+00:01") == nil)
        #expect(RFC3339.parse("9999-12-31T23:59:59-00:01") == nil)
        #expect(RFC3339.parse("9999-12-31T23:59:59.9999Z") == nil)
        #expect(RFC3339.parse("0000-01-01T00:00:00Z").map(RFC3339.format) == "0000-01-01T00:00:00Z")
        #expect(RFC3339.parse("9999-12-31T23:59:59.999Z").map(RFC3339.format) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -62_167_219_201)) == "-0001-12-31T23:59:59Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
    }

    /// For random millisecond instants from 1900 to 2100, formatting agrees with Foundation's
    /// Gregorian calendar and parsing gives the instant back.
    @Test func randomMillisecondInstantsRoundTrip() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for seed in propertySeeds(0x3339_0001, count: 500) {
            var rng = SplitMix64(seed: seed)
            let milliseconds = rng.int64(-2_208_988_800_000...4_102_444_800_000)
            let date = Date(unixMilliseconds: milliseconds)
            let text = RFC3339.format(date)
            #expect(RFC3339.parse(text) == date, "seed \(seed): \(milliseconds) → \(text)")
            let seconds = Date(timeIntervalSince1970: Double(milliseconds.floorDivided(by: 1000)))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: seconds)
            let fraction = milliseconds - milliseconds.floorDivided(by: 1000) * 1000
            let expected =
                String(
                    format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!,
                    parts.minute!, parts.second!) + (fraction == 0 ? "" : String(format: ".%03d", Int(fraction))) + "Z"
            #expect(text == expected, "seed \(seed): \(milliseconds)")
        }
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return self % divisor != 0 && self < 0 ? quotient - 1 : quotient
    }
}
