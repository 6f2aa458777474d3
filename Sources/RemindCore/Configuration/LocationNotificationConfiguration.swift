/// What reminders say and how often they come: Zendrive's `LocationNotificationConfiguration`,
/// with its exact names and defaults.
public struct LocationNotificationConfiguration: Sendable, Equatable {
    public static let defaultTriggerDelay: Int64 = 604_800
    public static let defaultTitle = "App is unable to record trips"
    public static let defaultDescription = "Please grant Always access for location."

    /// With false an episode gets at most one reminder; with true one every delay.
    public var showRecurringNotification: Bool
    /// Seconds from the start of an episode (or the last delivery) to the next reminder.
    public var notificationTriggerDelay: Int64
    public var notificationTitle: String
    public var notificationDescription: String

    public init(
        showRecurringNotification: Bool = false,
        notificationTriggerDelay: Int64 = defaultTriggerDelay,
        notificationTitle: String = defaultTitle,
        notificationDescription: String = defaultDescription
    ) {
        self.showRecurringNotification = showRecurringNotification
        self.notificationTriggerDelay = notificationTriggerDelay
        self.notificationTitle = notificationTitle
        self.notificationDescription = notificationDescription
    }

    /// Reads the `notification` object of the configuration, strictly: unknown keys, wrong
    /// types and out-of-range values are errors naming `path.key`.
    public init(object: JSONObject, path: String = "notification") throws(ValidationError) {
        var reader = JSONObjectReader(object, path: path)
        self.init(
            showRecurringNotification: try reader.bool("showRecurringNotification") ?? false,
            notificationTriggerDelay: try reader.integer("notificationTriggerDelay", in: 1...Int64(Int32.max) * 100)
                ?? Self.defaultTriggerDelay,
            notificationTitle: try reader.string("notificationTitle") ?? Self.defaultTitle,
            notificationDescription: try reader.string("notificationDescription") ?? Self.defaultDescription
        )
        try reader.rejectUnknownKeys()
        try validate(path: path)
    }

    public func validate(path: String = "notification") throws(ValidationError) {
        guard notificationTriggerDelay >= 1 else {
            throw ValidationError(field: "\(path).notificationTriggerDelay", reason: "must be at least 1")
        }
        guard !notificationTitle.isBlank else {
            throw ValidationError(field: "\(path).notificationTitle", reason: "must not be empty")
        }
    }

    public var json: JSONValue {
        .object([
            "showRecurringNotification": .bool(showRecurringNotification),
            "notificationTriggerDelay": .int(notificationTriggerDelay),
            "notificationTitle": .string(notificationTitle),
            "notificationDescription": .string(notificationDescription),
        ])
    }
}

extension String {
    var isBlank: Bool { allSatisfy(\.isWhitespace) }
}
