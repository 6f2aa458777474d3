import RemindCore

/// How many changes each user's history keeps; the oldest are dropped beyond it.
public struct HistoryConfiguration: Sendable, Equatable {
    public static let defaultMaxEntries = 1000
    /// Every history is read and rewritten with its user's file, so the cap bounds file size.
    public static let maximumMaxEntries = 100_000

    public var maxEntries: Int

    public init(maxEntries: Int = defaultMaxEntries) {
        self.maxEntries = maxEntries
    }

    public init(object: JSONObject, path: String = "history") throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        let maxEntries = try reader.integer("maxEntries", atLeast: 1, atMost: Int64(Self.maximumMaxEntries))
        try reader.rejectUnknownKeys(context: "in history (maxEntries)")
        self.init(maxEntries: maxEntries.map { Int($0) } ?? Self.defaultMaxEntries)
    }

    public var json: JSONValue {
        .object(["maxEntries": .int(Int64(maxEntries))])
    }
}
