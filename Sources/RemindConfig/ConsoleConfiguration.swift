import RemindCore

/// The web console at `/ui/`, served on every listener. Its pages hold no data (every figure is
/// fetched from the JSON API with the caller's own credentials), so serving it grants nothing;
/// `enabled: false` is for operators who want no HTML on the API's port at all.
public struct ConsoleConfiguration: Sendable, Equatable {
    public var enabled: Bool

    public init(enabled: Bool = true) {
        self.enabled = enabled
    }

    public init(object: JSONObject, path: String = "console") throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        let enabled = try reader.bool("enabled")
        try reader.rejectUnknownKeys(context: "in console (enabled)")
        self.init(enabled: enabled ?? true)
    }

    public var json: JSONValue {
        .object(["enabled": .bool(enabled)])
    }
}
