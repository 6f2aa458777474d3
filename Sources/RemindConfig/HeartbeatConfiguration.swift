import RemindCore

/// The optional heartbeat (docs/configuration.md): an event for every user silent for longer than the
/// interval, so the app backend can send a silent push. Off (nil) by default.
public struct HeartbeatConfiguration: Sendable, Equatable {
    public var intervalSeconds: Int64?

    public init(intervalSeconds: Int64? = nil) {
        self.intervalSeconds = intervalSeconds
    }

    public init(object: JSONObject, path: String = "heartbeat") throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        let interval = try reader.integer("intervalSeconds", atLeast: 1, atMost: maximumSeconds)
        try reader.rejectUnknownKeys(context: "in heartbeat (intervalSeconds)")
        self.init(intervalSeconds: interval)
    }

    public var json: JSONValue {
        .object(["intervalSeconds": intervalSeconds.map(JSONValue.int) ?? .null])
    }
}
