import Foundation

/// When a reminder due at some time goes out under `notification.sendTime` `active`: at once
/// when the due time falls inside the chosen hour, else at the start of that hour's next
/// occurrence, in the user's time zone, unless that is more than `maxDelaySeconds` away.
public struct SendTimeChoice: Sendable, Equatable {
    public enum Why: Sendable, Equatable {
        /// Send time is `due`, or the user is in its holdout.
        case dueTime(heldOut: Bool)
        /// The due time is inside the hour already.
        case insideActiveHour(hour: Int, own: Bool)
        /// Moved to the start of the hour.
        case movedToActiveHour(hour: Int, own: Bool)
        /// The hour's next start is further away than `maxDelaySeconds`.
        case tooFar(hour: Int, own: Bool)
        /// Neither the user nor the population has an hour yet.
        case noActivity
    }

    public var sendAt: Date
    public var why: Why

    /// The start of local hour `hour` next after `due` (or `due` itself when it is inside
    /// that hour), in `timeZone` (UTC when nil or unknown).
    public static func next(hour: Int, after due: Date, timeZone: String?) -> (date: Date, inside: Bool) {
        let zone = timeZone.flatMap(TimeZoneCache.zone)
        func offset(_ date: Date) -> Int64 { Int64(zone?.secondsFromGMT(for: date) ?? 0) }
        let dueSeconds = Int64(due.timeIntervalSince1970.rounded(.down))
        let local = dueSeconds + offset(due)
        let dayStart = local - (((local % 86_400) + 86_400) % 86_400)
        if (local - dayStart) / 3_600 == Int64(hour) { return (due, true) }
        var candidate = dayStart + Int64(hour) * 3_600
        if candidate <= local { candidate += 86_400 }
        // Back to UTC with the offset in force at the candidate: across a daylight saving
        // change the offset at the due time would miss the hour by one.
        var utc = candidate - offset(due)
        utc = candidate - offset(Date(timeIntervalSince1970: TimeInterval(utc)))
        return (Date(timeIntervalSince1970: TimeInterval(utc)), false)
    }
}
