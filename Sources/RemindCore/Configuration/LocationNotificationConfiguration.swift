/// What reminders say and how often they come: Zendrive's `LocationNotificationConfiguration`,
/// with its exact names and defaults, and what remindd adds to it (docs/configuration.md): the errors that
/// open an episode (`remindFor`) and the rest of the `default` copy set (`byReason`,
/// `localizations`).
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
    /// The errors that open an episode; the first present is a reminder's reason. Never
    /// empty, never `notificationsTurnedOff`.
    public var remindFor: PermissionErrorSet
    public var byReason: [PermissionErrorType: CopySet.Texts]
    public var localizations: [String: CopySet.Localization]
    /// The in-app texts of the `default` set (`inAppTitle`, `inAppBody`, `inAppButton`; absent
    /// ones fall back, docs/in-app.md) and its per-platform sets.
    public var inAppTexts = CopySet.Texts()
    public var platforms: [CopyPlatform: CopySet] = [:]
    /// When a due reminder goes out: at its due time, or in the user's active hour.
    public var sendTime: SendTime

    public init(
        showRecurringNotification: Bool = false,
        notificationTriggerDelay: Int64 = defaultTriggerDelay,
        notificationTitle: String = defaultTitle,
        notificationDescription: String = defaultDescription,
        remindFor: PermissionErrorSet = .defaultRemindFor,
        byReason: [PermissionErrorType: CopySet.Texts] = [:],
        localizations: [String: CopySet.Localization] = [:],
        sendTime: SendTime = .due
    ) {
        self.sendTime = sendTime
        self.remindFor = remindFor
        self.byReason = byReason
        self.localizations = localizations
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
        if let names = try reader.array("remindFor") {
            remindFor = try Self.remindFor(names, path: reader.fieldPath("remindFor"))
        }
        var copy = CopySet()
        try copy.readExtras(&reader)
        byReason = copy.byReason
        localizations = copy.localizations
        inAppTexts = copy.texts
        platforms = copy.platforms
        if let value = reader.value("sendTime") {
            sendTime = try SendTime(json: value, path: reader.fieldPath("sendTime"))
        }
        try reader.rejectUnknownKeys()
        try validate(path: path)
    }

    /// The `default` variant's copy set.
    public var copy: CopySet {
        var texts = inAppTexts
        texts.notificationTitle = notificationTitle
        texts.notificationDescription = notificationDescription
        return CopySet(texts: texts, byReason: byReason, localizations: localizations, platforms: platforms)
    }

    private static func remindFor(_ names: [JSONValue], path: String) throws(ValidationError) -> PermissionErrorSet {
        guard !names.isEmpty else {
            throw ValidationError(field: path, reason: "must list at least one reason (an empty list never reminds)")
        }
        var set = PermissionErrorSet(rawValue: 0)
        let allowed = PermissionErrorSet.remindable.map(\.rawValue).joined(separator: ", ")
        for (index, value) in names.enumerated() {
            let field = "\(path)[\(index)]"
            guard case .string(let name) = value else {
                throw ValidationError(field: field, reason: "must be a string, got \(value.typeName)")
            }
            if name == PermissionErrorType.notificationsTurnedOff.rawValue {
                throw ValidationError(
                    field: field,
                    reason:
                        "notificationsTurnedOff cannot be reminded of: a reminder cannot reach a user whose notifications are off"
                )
            }
            guard let error = PermissionErrorType(rawValue: name) else {
                throw ValidationError(field: field, reason: "must be one of \(allowed); got \"\(name)\"")
            }
            guard !set.contains(error) else {
                throw ValidationError(field: field, reason: "\(name) is listed twice")
            }
            set.insert(error)
        }
        return set
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
        var members: [(key: String, value: JSONValue)] = [
            ("showRecurringNotification", .bool(showRecurringNotification)),
            ("notificationTriggerDelay", .int(notificationTriggerDelay)),
            ("notificationTitle", .string(notificationTitle)),
            ("notificationDescription", .string(notificationDescription)),
        ]
        members += copy.inAppMembers
        members += [
            ("remindFor", .array(remindFor.members.map { .string($0.rawValue) })),
            ("byReason", CopySet.json(byReason)),
            ("localizations", CopySet.json(localizations)),
        ]
        if !platforms.isEmpty { members.append(("platforms", CopySet.json(platforms))) }
        members.append(("sendTime", sendTime.json))
        return .object(JSONObject(members))
    }
}

extension String {
    var isBlank: Bool { allSatisfy(\.isWhitespace) }
}
