import RemindCore

/// When reminders may go out: catch-up spreading, quiet hours, jitter and the per-episode cap
/// (docs/configuration.md). The policy's own `PolicyConfiguration` carries the same values.
public struct ScheduleConfiguration: Sendable, Equatable {
    /// Overdue reminders found at start-up are spread over this many seconds.
    public var catchUpSpreadSeconds: Int64
    public var quietHours: QuietHours?
    /// The window of the fixed per-user offset added to due times.
    public var jitterSeconds: Int64
    /// Delivered reminders after which a recurring series ends; nil is unlimited.
    public var maxRemindersPerEpisode: Int?

    public init(
        catchUpSpreadSeconds: Int64 = 0,
        quietHours: QuietHours? = nil,
        jitterSeconds: Int64 = 0,
        maxRemindersPerEpisode: Int? = nil
    ) {
        self.catchUpSpreadSeconds = catchUpSpreadSeconds
        self.quietHours = quietHours
        self.jitterSeconds = jitterSeconds
        self.maxRemindersPerEpisode = maxRemindersPerEpisode
    }

    public init(object: JSONObject, path: String = "schedule") throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        let catchUp = try reader.integer("catchUpSpreadSeconds", atLeast: 0, atMost: maximumSeconds)
        var quietHours: QuietHours?
        if let window = try reader.strictObject("quietHours") {
            quietHours = try QuietHours(object: window, path: reader.fieldPath("quietHours"))
        }
        let jitter = try reader.integer("jitterSeconds", atLeast: 0, atMost: maximumSeconds)
        let cap = try reader.integer("maxRemindersPerEpisode", atLeast: 1, atMost: Int64(Int32.max))
        try reader.rejectUnknownKeys(
            context: "in schedule (catchUpSpreadSeconds, quietHours, jitterSeconds, maxRemindersPerEpisode)")
        self.init(
            catchUpSpreadSeconds: catchUp ?? 0,
            quietHours: quietHours,
            jitterSeconds: jitter ?? 0,
            maxRemindersPerEpisode: cap.map { Int($0) }
        )
    }

    public var json: JSONValue {
        .object([
            "catchUpSpreadSeconds": .int(catchUpSpreadSeconds),
            "quietHours": quietHours?.json ?? .null,
            "jitterSeconds": .int(jitterSeconds),
            "maxRemindersPerEpisode": maxRemindersPerEpisode.map { .int(Int64($0)) } ?? .null,
        ])
    }
}
