/// When the answer to a report carries an ask (`Ask`, docs/in-app.md): the `inApp` block of
/// the configuration.
public struct InAppConfiguration: Sendable, Equatable {
    /// Off by default: every answer's `ask` is then null.
    public var enabled: Bool
    /// Asks given in one episode at most.
    public var maxPerEpisode: Int
    /// Seconds between two asks of one episode, at least (by the reports' receive times).
    public var minIntervalSeconds: Int64
    /// Seconds after the episode's start before its first ask.
    public var afterSeconds: Int64

    public init(
        enabled: Bool = false, maxPerEpisode: Int = 3, minIntervalSeconds: Int64 = 86_400, afterSeconds: Int64 = 0
    ) {
        self.enabled = enabled
        self.maxPerEpisode = maxPerEpisode
        self.minIntervalSeconds = minIntervalSeconds
        self.afterSeconds = afterSeconds
    }

    /// Reads the `inApp` object, strictly: an unknown key or a value out of range is an error
    /// naming `path.key`.
    public init(object: JSONObject, path: String = "inApp") throws(ValidationError) {
        var reader = JSONObjectReader(object, path: path)
        let defaults = Self()
        self.init(
            enabled: try reader.bool("enabled") ?? defaults.enabled,
            maxPerEpisode: Int(try reader.integer("maxPerEpisode", in: 1...1_000) ?? Int64(defaults.maxPerEpisode)),
            minIntervalSeconds: try reader.integer("minIntervalSeconds", in: 0...Int64(Int32.max) * 100)
                ?? defaults.minIntervalSeconds,
            afterSeconds: try reader.integer("afterSeconds", in: 0...Int64(Int32.max) * 100) ?? defaults.afterSeconds)
        try reader.rejectUnknownKeys()
    }

    public var json: JSONValue {
        .object([
            "enabled": .bool(enabled),
            "maxPerEpisode": .int(Int64(maxPerEpisode)),
            "minIntervalSeconds": .int(minIntervalSeconds),
            "afterSeconds": .int(afterSeconds),
        ])
    }
}
