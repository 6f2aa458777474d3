import RemindCore

/// The top-level `fallback` section (docs/fallback.md): how long an app may stay silent before
/// its user's reminders go to the fallback sinks (an Android app in hibernation gets no push at
/// all). Absent: 30 days; `null`: never.
public struct FallbackConfiguration: Sendable, Equatable {
    public var silentAfterSeconds: Int64?

    public init(silentAfterSeconds: Int64? = ChannelConfiguration.defaultSilentAfterSeconds) {
        self.silentAfterSeconds = silentAfterSeconds
    }

    public init(object: JSONObject, path: String = "fallback") throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        // Here `null` is a value (never), not the default as elsewhere: the effective
        // configuration writes it for never, and must read back the same.
        let never = object["silentAfterSeconds"] == .null
        let seconds = try reader.integer("silentAfterSeconds", atLeast: 1, atMost: maximumSeconds)
        try reader.rejectUnknownKeys(context: "in fallback (silentAfterSeconds)")
        self.init(silentAfterSeconds: never ? nil : seconds ?? ChannelConfiguration.defaultSilentAfterSeconds)
    }

    public var json: JSONValue {
        .object(["silentAfterSeconds": silentAfterSeconds.map(JSONValue.int) ?? .null])
    }
}
