import Foundation

/// A closed episode as the outcomes log keeps it (docs/outcomes.md): one JSON line in
/// `outcomes/outcomes-YYYY-MM.jsonl` (the month of `closedAt`, UTC), exactly these keys:
/// `{"userID","group","reason","startedAt","closedAt","outcome","reminders","platform"}`,
/// `"sendTime"` (`due` or `active`) while `notification.sendTime` is `active`, `"opening"`
/// (`first`, `again`, `downgrade`) where known, then what the app reported
/// (docs/in-app.md): `"opened","asks","asksShown","asksAccepted"`, and `"channels"`, the sorted
/// channels its sent reminders took (docs/fallback.md). Lines of older versions, without the
/// last six, read as none of them, their reminders sent by push.
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
    /// How it opened; nil for episodes stored before openings were kept.
    public var opening: Episode.Opening?
    /// Reminders the user opened; asks given, shown and accepted.
    public var opened = 0
    public var asks = 0
    public var asksShown = 0
    public var asksAccepted = 0
    /// The channels its sent reminders took, sorted; nil on lines written before channels
    /// existed, whose reminders all took push.
    public var channels: [ReminderChannel]?

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
        opening = episode.opening
        (opened, asks, asksShown, asksAccepted) = (
            episode.openedCount, episode.asks.count, episode.asksShown, episode.asksAccepted
        )
        channels = episode.funnelMarks.channels
    }

    /// The funnel steps it reached (`FunnelMarks`) and its channels: a held-out episode's
    /// reminders were never sent. A line without `channels` marks none (`FunnelAggregate`
    /// counts such a reminded episode as push).
    public var marks: FunnelMarks {
        var marks = FunnelMarks(
            reminded: reminders > 0 && group != Experiment.holdoutGroup, opened: opened, asks: asks,
            asksShown: asksShown, asksAccepted: asksAccepted)
        for channel in channels ?? [] { marks.insert(FunnelMarks(channel: channel)) }
        return marks
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
        if let opening { writer.member("opening", opening.rawValue) }
        writer.member("opened", opened)
        writer.member("asks", asks)
        writer.member("asksShown", asksShown)
        writer.member("asksAccepted", asksAccepted)
        if let channels { writer.member("channels", strings: channels.map(\.rawValue)) }
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
        opening = try reader.enumeration("opening", Episode.Opening.self)
        let range = 0...Int64(Int32.max)
        opened = Int(try reader.integer("opened", in: range) ?? 0)
        asks = Int(try reader.integer("asks", in: range) ?? 0)
        asksShown = Int(try reader.integer("asksShown", in: range) ?? 0)
        asksAccepted = Int(try reader.integer("asksAccepted", in: range) ?? 0)
        if let list = try reader.array("channels") {
            channels = try list.map { value throws(ValidationError) in
                guard case .string(let name) = value, let channel = ReminderChannel(rawValue: name) else {
                    throw ValidationError(field: "outcome.channels", reason: "must list push or fallback")
                }
                return channel
            }
        }
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
