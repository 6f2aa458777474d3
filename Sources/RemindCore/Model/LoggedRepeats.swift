import Foundation

/// A user's repeated reports as the write-ahead log keeps them between a checkpoint and the
/// fold into their file (ARCHITECTURE.md "Glossary"): the absolute `reportCount` they bring the record to, and
/// what `PendingRepeats` holds, except that of the run's observation times only the newest
/// is kept (each repeat usually has its own, and sixteen per user made the log lines four
/// times as long; the older ones matter only to where a late report splits the run).
///
/// Folding one in is idempotent (`UserRecord.fold(_:)` below): the count and `lastReportAt`
/// take the larger value, observation times are a set, the `known` registers keep the newest
/// observation, and `platform`/`appVersion` apply only when these repeats are not older than
/// the record's last report. Replay can therefore fold the newest logged state of a user into
/// their file without knowing whether a fold already wrote some or all of it there.
public struct LoggedRepeats: Sendable, Equatable {
    public var userID: UserID
    /// The record's `reportCount` with these repeats in.
    public var reportCount: Int
    public var repeats: PendingRepeats

    public init(userID: UserID, reportCount: Int, repeats: PendingRepeats) {
        self.userID = userID
        self.reportCount = reportCount
        self.repeats = repeats
    }

    /// These logged repeats followed by `newer`, of the same user: folding the result is
    /// folding both, one after the other.
    public mutating func append(_ newer: LoggedRepeats) {
        precondition(newer.userID == userID, "repeats of one user")
        reportCount = max(reportCount, newer.reportCount)
        repeats.append(newer.repeats)
    }

    /// `{"userID":…,"reportCount":…,"lastReportAt":…,"count":…,"observedAt":…,"notifications":{…},…}`
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("userID", userID.rawValue)
        writer.member("reportCount", reportCount)
        if let last = repeats.lastReceivedAt { writer.member("lastReportAt", RFC3339.format(last)) }
        writer.member("count", repeats.count)
        if let newest = repeats.observations.last { writer.member("observedAt", RFC3339.format(newest)) }
        // The registers as the user file writes them.
        if let known = repeats.notifications {
            UserRecord.write(known: "notifications", known.value.rawValue, known.observedAt, to: &writer)
        }
        if let known = repeats.timeZone {
            UserRecord.write(known: "timeZone", known.value, known.observedAt, to: &writer)
        }
        if let known = repeats.motion {
            UserRecord.write(known: "motion", known.value.rawValue, known.observedAt, to: &writer)
        }
        if let platform = repeats.platform { writer.member("platform", platform) }
        if let appVersion = repeats.appVersion { writer.member("appVersion", appVersion) }
        let activity = repeats.activity
        if !activity.isEmpty {
            // [[quarter hour since 1970, count], …], oldest first.
            writer.key("activity")
            writer.beginArray()
            for entry in activity {
                writer.beginArray()
                writer.int(entry.quarter)
                writer.int(entry.count)
                writer.endArray()
            }
            writer.endArray()
        }
        writer.endObject()
    }

    /// Decodes what `write` wrote; any deviation is an error naming the member.
    public init(object: JSONObject) throws(ValidationError) {
        var reader = JSONObjectReader(object)
        userID = try UserRecord.requiredUserID(&reader)
        reportCount = Int(try reader.integer("reportCount", in: 0...Int64.max) ?? 0)
        var repeats = PendingRepeats()
        repeats.count = Int(try reader.integer("count", in: 1...Int64.max) ?? 1)
        repeats.lastReceivedAt = try UserRecord.requiredDate(&reader, "lastReportAt")
        if let newest = try UserRecord.optionalDate(&reader, "observedAt") { repeats.observations = [newest] }
        repeats.notifications = try UserRecord.readKnown(&reader, "notifications") { register throws(ValidationError) in
            try register.enumeration("value", NotificationAuthorization.self)
        }
        repeats.timeZone = try UserRecord.readKnown(&reader, "timeZone") { register throws(ValidationError) in
            try register.string("value")
        }
        repeats.motion = try UserRecord.readKnown(&reader, "motion") { register throws(ValidationError) in
            try register.enumeration("value", MotionAuthorization.self)
        }
        repeats.platform = try reader.string("platform")
        repeats.appVersion = try reader.string("appVersion")
        var quarters: [PendingRepeats.ActivityQuarter] = []
        for element in try reader.array("activity") ?? [] {
            guard case .array(let pair) = element, pair.count == 2, case .int(let quarter) = pair[0],
                case .int(let count) = pair[1], count > 0, count <= Int64(Int32.max)
            else { throw ValidationError(field: "activity", reason: "must be pairs of quarter hour and count") }
            quarters.append(PendingRepeats.ActivityQuarter(quarter: quarter, count: Int32(count)))
        }
        repeats.setActivity(quarters)
        self.repeats = repeats
    }
}

extension UserRecord {
    /// Folds logged repeats in, idempotently (see `LoggedRepeats`): the record that folding
    /// them once gives, whether or not it holds some or all of them already.
    public mutating func fold(_ logged: LoggedRepeats) {
        let repeats = logged.repeats
        guard let lastReceivedAt = repeats.lastReceivedAt else { return }
        // A record that saw a later report keeps that report's device fields.
        let current = lastReceivedAt >= lastReportAt
        var once = repeats
        once.count = max(0, logged.reportCount - reportCount)
        if !current {
            once.platform = nil
            once.appVersion = nil
        }
        fold(once)
    }
}
