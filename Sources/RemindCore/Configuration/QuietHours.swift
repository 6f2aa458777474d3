import Foundation

/// A daily window, in each user's local time, in which reminders are not sent: a reminder due
/// inside `[start, end)` waits until `end`. A window may span midnight (21:00–08:00).
public struct QuietHours: Sendable, Equatable {
    /// Minutes after local midnight.
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// Parses `{"start":"21:00","end":"08:00"}`.
    public init(object: JSONObject, path: String) throws(ValidationError) {
        var reader = JSONObjectReader(object, path: path)
        func time(_ key: String) throws(ValidationError) -> Int {
            guard let text = try reader.string(key) else {
                throw ValidationError(field: reader.fieldPath(key), reason: "is required")
            }
            guard let minutes = Self.minutes(text) else {
                throw ValidationError(
                    field: reader.fieldPath(key), reason: "must be a time of day as HH:MM, got \"\(text)\"")
            }
            return minutes
        }
        let start = try time("start")
        let end = try time("end")
        try reader.rejectUnknownKeys()
        guard start != end else {
            throw ValidationError(field: "\(path).end", reason: "must differ from start")
        }
        self.init(start: start, end: end)
    }

    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    static func format(_ minutes: Int) -> String {
        let hour = minutes / 60
        let minute = minutes % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    public var startText: String { Self.format(start) }
    public var endText: String { Self.format(end) }

    public var json: JSONValue {
        .object(["start": .string(startText), "end": .string(endText)])
    }

    /// Whether a local time of day (in seconds after midnight) falls inside the window.
    func contains(secondOfDay: Int) -> Bool {
        let startSecond = start * 60
        let endSecond = end * 60
        if start < end {
            return secondOfDay >= startSecond && secondOfDay < endSecond
        }
        return secondOfDay >= startSecond || secondOfDay < endSecond
    }

    /// `date` itself when it is outside the window, else the first instant at which the
    /// window ends in `timeZone`.
    ///
    /// Local times are computed by Foundation's calendar, so daylight-saving changes inside
    /// the window are handled: the end is 08:00 on the wall clock, whatever the offset.
    public func release(_ date: Date, in timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let secondOfDay = (components.hour ?? 0) * 3600 + (components.minute ?? 0) * 60 + (components.second ?? 0)
        guard contains(secondOfDay: secondOfDay) else { return date }
        // Inside the window: it ends today if the end is still ahead, else tomorrow.
        var day = DateComponents(year: components.year, month: components.month, day: components.day)
        if secondOfDay >= end * 60 {
            guard let today = calendar.date(from: day),
                let tomorrow = calendar.date(byAdding: .day, value: 1, to: today)
            else { return date }
            let next = calendar.dateComponents([.year, .month, .day], from: tomorrow)
            day = DateComponents(year: next.year, month: next.month, day: next.day)
        }
        day.hour = end / 60
        day.minute = end % 60
        day.second = 0
        // An end time that falls in a spring-forward gap (02:30 on the night clocks jump from
        // 02:00 to 03:00) does not exist: take the first instant after the gap instead.
        if let startOfDay = calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day)),
            let released = calendar.nextDate(
                after: startOfDay.addingTimeInterval(-1),
                matching: DateComponents(hour: day.hour, minute: day.minute, second: 0),
                matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
        {
            return released
        }
        return calendar.date(from: day) ?? date
    }
}
