import Foundation

/// A validated permission report: what a device observed, with the defaults for absent fields
/// applied except those that depend on the user's earlier reports.
public struct PermissionReport: Sendable, Equatable {
    /// How far in the future `observedAt` may be before the report is refused: device clocks
    /// drift, but a report from next week would pin the user's state for a week.
    public static let futureTolerance: TimeInterval = 300
    public static let maximumFreeTextLength = 64
    public static let localeLength = 2...35

    public var location: LocationAuthorization
    public var accuracy: LocationAccuracy
    public var locationServices: Bool
    /// Absent means "the last known value" (or `unknown`): filled in by the fold.
    public var notifications: NotificationAuthorization?
    public var observedAt: Date
    /// Absent means "the last known value": filled in by the fold.
    public var timeZone: String?
    /// Absent means "the last known value" (or `unknown`): filled in by the fold.
    public var motion: MotionAuthorization?
    public var platform: String?
    public var appVersion: String?
    /// Device fields (not permissions): absent means unchanged.
    public var locale: String?
    public var push: PushUpdate
    /// The permissions whose system dialog the app can still show (nil: not reported, the
    /// stored list stays; `[]` clears it).
    public var canPrompt: [PromptablePermission]?
    /// What the user did with earlier reminders and asks (docs/in-app.md), applied before the
    /// report; empty when none were sent.
    public var events: [EngagementEvent] = []

    public init(
        location: LocationAuthorization,
        accuracy: LocationAccuracy = .full,
        locationServices: Bool = true,
        notifications: NotificationAuthorization? = nil,
        observedAt: Date,
        timeZone: String? = nil,
        platform: String? = nil,
        appVersion: String? = nil,
        locale: String? = nil,
        push: PushUpdate = .unchanged,
        motion: MotionAuthorization? = nil,
        canPrompt: [PromptablePermission]? = nil
    ) {
        self.motion = motion
        self.canPrompt = canPrompt
        self.location = location
        self.accuracy = accuracy
        self.locationServices = locationServices
        self.notifications = notifications
        self.observedAt = observedAt.millisecondPrecision
        self.timeZone = timeZone
        self.platform = platform
        self.appVersion = appVersion
        self.locale = locale
        self.push = push
    }

    /// Decodes and validates a report body received at `receivedAt`.
    ///
    /// Unknown members are ignored (newer apps may send more); `null` counts as absent. The
    /// first broken rule is thrown, naming its field.
    public init(json body: some Collection<UInt8>, receivedAt: Date) throws(ValidationError) {
        try self.init(object: Self.object(json: body), receivedAt: receivedAt)
    }

    /// The JSON object a report is read from (a request's body, or a line of a bulk request:
    /// `what` names which in the error).
    public static func object(
        json bytes: some Collection<UInt8>, what: String = "body"
    ) throws(ValidationError)
        -> JSONObject
    {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw ValidationError(field: "", reason: "\(what) is not valid JSON (\(error))")
        }
        guard case .object(let object) = value else {
            throw ValidationError(field: "", reason: "\(what) must be a JSON object, got \(value.typeName)")
        }
        return object
    }

    public init(object: JSONObject, receivedAt: Date) throws(ValidationError) {
        var reader = JSONObjectReader(object)
        guard let location = try reader.enumeration("location", LocationAuthorization.self) else {
            throw ValidationError(field: "location", reason: "is required")
        }
        let accuracy = try reader.enumeration("accuracy", LocationAccuracy.self) ?? .full
        let locationServices = try reader.bool("locationServices") ?? true
        let notifications = try reader.enumeration(
            "notifications", NotificationAuthorization.self, allowed: NotificationAuthorization.reportable)
        let receivedAt = receivedAt.millisecondPrecision
        var observedAt = receivedAt
        if let text = try reader.string("observedAt") {
            guard let date = RFC3339.parse(text) else {
                throw ValidationError(field: "observedAt", reason: "must be an RFC 3339 timestamp")
            }
            guard date.timeIntervalSince(receivedAt) <= Self.futureTolerance else {
                throw ValidationError(
                    field: "observedAt", reason: "is more than \(Int(Self.futureTolerance)) s in the future")
            }
            observedAt = date
        }
        let timeZone = try reader.string("timeZone")
        if let timeZone, !TimeZoneCache.isValid(timeZone) {
            throw ValidationError(field: "timeZone", reason: "must be an IANA time zone name such as Europe/Berlin")
        }
        let motion = try reader.enumeration("motion", MotionAuthorization.self, allowed: MotionAuthorization.reportable)
        let platform = try reader.string("platform")
        let appVersion = try reader.string("appVersion")
        for (field, text) in [("platform", platform), ("appVersion", appVersion)] {
            if let text, text.count > Self.maximumFreeTextLength {
                throw ValidationError(field: field, reason: "must be at most \(Self.maximumFreeTextLength) characters")
            }
            // Shown in logs and the console, and PostgreSQL's jsonb holds no NUL: no control
            // characters.
            if let text, text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw ValidationError(field: field, reason: "must not contain control characters")
            }
        }
        let locale = try reader.string("locale")
        if let locale,
            !Self.localeLength.contains(locale.utf8.count)
                || !locale.utf8.allSatisfy({
                    $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                })
        {
            throw ValidationError(
                field: "locale", reason: "must be a BCP 47 tag of 2–35 letters, digits and '-', such as de-CH")
        }
        let canPrompt = try reader.array("canPrompt").map { values throws(ValidationError) in
            try PromptablePermission.list(values, field: "canPrompt")
        }
        var events: [EngagementEvent] = []
        switch reader.value("events") {
        case nil, .null?: break
        case .array(let values)?: events = try EngagementEvent.list(values, field: "events", receivedAt: receivedAt)
        case let other?:
            throw ValidationError(field: "events", reason: "must be an array, got \(other.typeName)", status: 422)
        }
        // `null` is meaningful here (forget the address), so the member is read raw.
        var push = PushUpdate.unchanged
        switch object["push"] {
        case nil: break
        case .null?: push = .forget
        case .object(let pushObject)?: push = .set(try PushAddress(reportObject: pushObject))
        case let other?:
            throw ValidationError(field: "push", reason: "must be an object or null, got \(other.typeName)")
        }
        self.init(
            location: location, accuracy: accuracy, locationServices: locationServices,
            notifications: notifications, observedAt: observedAt, timeZone: timeZone,
            platform: platform, appVersion: appVersion, locale: locale, push: push, motion: motion,
            canPrompt: canPrompt)
        self.events = events
    }

    /// The full state this report sets, given the state before it (for the fields that
    /// default to "last known").
    public func permissions(after previous: Permissions?) -> Permissions {
        Permissions(
            location: location,
            accuracy: accuracy,
            locationServices: locationServices,
            notifications: notifications ?? previous?.notifications ?? .unknown,
            timeZone: timeZone ?? previous?.timeZone,
            motion: motion ?? previous?.motion ?? .unknown
        )
    }
}
