import Foundation

/// A closed episode as the outcomes log keeps it (docs/outcomes.md): one JSON line in
/// `outcomes/outcomes-YYYY-MM.jsonl` (the month of `closedAt`, UTC), exactly these keys:
/// `{"userID","group","reason","startedAt","closedAt","outcome","reminders","platform"}`, and
/// `"sendTime"` (`due` or `active`) while `notification.sendTime` is `active`.
public struct EpisodeOutcome: Sendable, Equatable, Hashable {
    public enum Result: String, Sendable, CaseIterable {
        /// A report closed it: no reminding error left.
        case resolved
        /// The user was deleted while it was open.
        case forgotten
    }

    public var userID: UserID
    public var group: String
    /// The reason it opened with.
    public var reason: PermissionErrorType?
    public var startedAt: Date
    public var closedAt: Date
    public var outcome: Result
    /// Reminders delivered (or held out) before it closed.
    public var reminders: Int
    public var platform: String?
    /// The send-time arm (`due` or `active`) while send time is `active`; nil otherwise.
    public var sendTime: SendTime.Arm?

    public init(
        userID: UserID, group: String, reason: PermissionErrorType?, startedAt: Date, closedAt: Date,
        outcome: Result, reminders: Int, platform: String?, sendTime: SendTime.Arm? = nil
    ) {
        self.sendTime = sendTime
        self.userID = userID
        self.group = group
        self.reason = reason
        self.startedAt = startedAt
        self.closedAt = closedAt
        self.outcome = outcome
        self.reminders = reminders
        self.platform = platform
    }

    /// The outcome of `episode` of `record`, closed now (its `closedAt` set) or forgotten at `at`.
    public init(_ episode: Episode, of record: UserRecord, outcome: Result, closedAt: Date) {
        self.init(
            userID: record.userID, group: episode.group, reason: episode.reason, startedAt: episode.startedAt,
            closedAt: closedAt, outcome: outcome, reminders: episode.deliveries.count, platform: record.platform,
            sendTime: episode.sendTime)
    }

    public var timeToFix: TimeInterval { closedAt.timeIntervalSince(startedAt) }

    /// `outcomes-YYYY-MM.jsonl` for the UTC month of `closedAt`.
    public var fileName: String {
        let components = Calendar.utc.dateComponents([.year, .month], from: closedAt)
        let month = components.month ?? 1
        return "outcomes-\(components.year ?? 1970)-\(month < 10 ? "0" : "")\(month).jsonl"
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256)
        write(to: &writer)
        return writer.bytes
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("userID", userID.rawValue)
        writer.member("group", group)
        writer.member("reason", reason?.rawValue)
        writer.member("startedAt", RFC3339.format(startedAt))
        writer.member("closedAt", RFC3339.format(closedAt))
        writer.member("outcome", outcome.rawValue)
        writer.member("reminders", reminders)
        writer.member("platform", platform)
        if let sendTime { writer.member("sendTime", sendTime.rawValue) }
        writer.endObject()
    }

    public init(object: JSONObject) throws(ValidationError) {
        var reader = JSONObjectReader(object, path: "outcome")
        guard let user = try reader.string("userID"), let group = try reader.string("group"),
            let started = try reader.string("startedAt").flatMap(RFC3339.parse),
            let closed = try reader.string("closedAt").flatMap(RFC3339.parse),
            let outcome = try reader.enumeration("outcome", Result.self),
            let reminders = try reader.integer("reminders", in: 0...Int64(Int32.max))
        else {
            throw ValidationError(
                field: "outcome", reason: "needs userID, group, startedAt, closedAt, outcome, reminders")
        }
        self.init(
            userID: try UserID(user), group: group, reason: try reader.enumeration("reason", PermissionErrorType.self),
            startedAt: started, closedAt: closed, outcome: outcome, reminders: Int(reminders),
            platform: try reader.string("platform"), sendTime: try reader.enumeration("sendTime", SendTime.Arm.self))
    }

    public init(json bytes: some Collection<UInt8>) throws(ValidationError) {
        guard case .object(let object)? = try? JSONParser.parse(bytes) else {
            throw ValidationError(field: "outcome", reason: "is not a JSON object")
        }
        try self.init(object: object)
    }
}

extension Calendar {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
