import RemindCore

/// The keys the `apns` and `fcm` sinks share (docs/push.md): where to send (`url`, `caFile`,
/// for tests and proxies), how long to wait, how many streams at once, the settings link the
/// app opens, and the per-user background-push budget.
public struct PushSinkSettings: Sendable, Equatable {
    public static let defaultTimeoutSeconds: Double = 10
    public static let defaultMaxConcurrency = 64
    public static let defaultBackgroundPushesPerHour = 3

    /// Replaces the service's own host (both APNs environments); nil for the real service.
    public var url: String?
    /// PEM certificates trusted besides the system's roots (also for FCM's `token_uri`).
    public var caFile: String?
    public var timeoutSeconds: Double
    /// HTTP/2 streams in flight on the sink's one connection.
    public var maxConcurrency: Int
    /// What the app opens when the user taps a reminder (APNs' `url`, FCM's `remindd_url`).
    public var settingsURL: String?
    public var backgroundPushesPerHour: Int

    public init(
        url: String? = nil, caFile: String? = nil, timeoutSeconds: Double = defaultTimeoutSeconds,
        maxConcurrency: Int = defaultMaxConcurrency, settingsURL: String?,
        backgroundPushesPerHour: Int = defaultBackgroundPushesPerHour
    ) {
        self.url = url
        self.caFile = caFile
        self.timeoutSeconds = timeoutSeconds
        self.maxConcurrency = maxConcurrency
        self.settingsURL = settingsURL
        self.backgroundPushesPerHour = backgroundPushesPerHour
    }

    static let keys = ["url", "caFile", "timeoutSeconds", "maxConcurrency", "settingsURL", "backgroundPushesPerHour"]

    init(reader: inout JSONObjectReader, defaultSettingsURL: String?) throws(ValidationError) {
        let url = try reader.string("url")
        if let url {
            if let reason = WebhookSinkConfiguration.urlProblem(url) {
                throw ValidationError(field: reader.fieldPath("url"), reason: reason)
            }
            if url.hasSuffix("/") {
                throw ValidationError(
                    field: reader.fieldPath("url"), reason: "must not end in /: paths are added to it")
            }
        }
        let settingsURL = try reader.string("settingsURL")
        if let settingsURL, settingsURL.isEmpty || settingsURL.count > 512 {
            throw ValidationError(field: reader.fieldPath("settingsURL"), reason: "must be 1 to 512 characters")
        }
        self.init(
            url: url, caFile: try reader.path("caFile"),
            timeoutSeconds: try reader.positiveSeconds("timeoutSeconds") ?? Self.defaultTimeoutSeconds,
            maxConcurrency: Int(try reader.integer("maxConcurrency", atLeast: 1, atMost: 1000) ?? 64),
            settingsURL: settingsURL ?? defaultSettingsURL,
            backgroundPushesPerHour: Int(try reader.integer("backgroundPushesPerHour", atLeast: 0, atMost: 3600) ?? 3))
    }

    var members: [(key: String, value: JSONValue)] {
        [
            (key: "url", value: url.map(JSONValue.string) ?? .null),
            (key: "caFile", value: caFile.map(JSONValue.string) ?? .null),
            (key: "timeoutSeconds", value: .double(timeoutSeconds)),
            (key: "maxConcurrency", value: .int(Int64(maxConcurrency))),
            (key: "settingsURL", value: settingsURL.map(JSONValue.string) ?? .null),
            (key: "backgroundPushesPerHour", value: .int(Int64(backgroundPushesPerHour))),
        ]
    }
}
