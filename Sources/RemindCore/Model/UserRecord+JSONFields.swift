import Foundation

/// The members the user file shares with the other formats that carry a record's parts (a
/// logged `FiredChange` or `LoggedRepeats`, the API's status and history): permissions,
/// deliveries, `known` registers, dates and the user ID, each written and read one way.
extension UserRecord {
    /// One `known` register: `"name":{"value":…,"observedAt":…}`.
    static func write(known name: String, _ value: String, _ observedAt: Date, to writer: inout JSONWriter) {
        writer.key(name)
        writer.beginObject()
        writer.member("value", value)
        writer.member("observedAt", RFC3339.format(observedAt))
        writer.endObject()
    }

    /// Reads the register `key` of `known` (nil when absent); `value` reads its value member.
    /// Errors name the member under `known`'s path (`known.motion.value` in a user file).
    static func readKnown<Value>(
        _ known: inout JSONObjectReader, _ key: String,
        value: (inout JSONObjectReader) throws(ValidationError) -> Value?
    ) throws(ValidationError) -> Known<Value>? {
        guard let object = try known.object(key) else { return nil }
        var register = JSONObjectReader(object, path: known.fieldPath(key))
        guard let read = try value(&register) else {
            throw ValidationError(field: register.fieldPath("value"), reason: "is required")
        }
        return Known(value: read, observedAt: try requiredDate(&register, "observedAt"))
    }

    /// Writes permissions in the API's shape; `observedAt` only where given (the current state).
    public static func write(_ permissions: Permissions, observedAt: Date?, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("location", permissions.location.rawValue)
        writer.member("accuracy", permissions.accuracy.rawValue)
        writer.member("locationServices", permissions.locationServices)
        writer.member("notifications", permissions.notifications.rawValue)
        if let observedAt {
            writer.member("observedAt", RFC3339.format(observedAt))
        }
        writer.member("timeZone", permissions.timeZone)
        writer.member("motion", permissions.motion.rawValue)
        writer.endObject()
    }

    static func readPermissions(_ object: JSONObject, path: String) throws(ValidationError) -> Permissions {
        var reader = JSONObjectReader(object, path: path)
        guard let location = try reader.enumeration("location", LocationAuthorization.self) else {
            throw ValidationError(field: "\(path).location", reason: "is required")
        }
        return Permissions(
            location: location,
            accuracy: try reader.enumeration("accuracy", LocationAccuracy.self) ?? .full,
            locationServices: try reader.bool("locationServices") ?? true,
            notifications: try reader.enumeration("notifications", NotificationAuthorization.self) ?? .unknown,
            timeZone: try reader.string("timeZone"),
            motion: try reader.enumeration("motion", MotionAuthorization.self) ?? .unknown)
    }

    /// A delivery as the user file (and a logged `FiredChange`) writes it.
    static func write(_ delivery: Delivery, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", delivery.id)
        writer.member("sequence", delivery.sequence)
        writer.member("dueAt", RFC3339.format(delivery.dueAt))
        writer.member("deliveredAt", RFC3339.format(delivery.deliveredAt))
        if delivery.heldOut { writer.member("heldOut", true) }
        if let openedAt = delivery.openedAt { writer.member("openedAt", RFC3339.format(openedAt)) }
        // Only a fallback is written: a push delivery reads the same as one stored before
        // channels existed.
        if delivery.channel != .push { writer.member("channel", delivery.channel.rawValue) }
        if let because = delivery.because { writer.member("because", because.rawValue) }
        writer.endObject()
    }

    /// An ask as the user file writes it: `{"id","number","givenAt","action","page","reason"}`
    /// and the times the app reported, each only once set.
    static func write(_ ask: Ask, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", ask.id)
        writer.member("number", ask.number)
        writer.member("givenAt", RFC3339.format(ask.givenAt))
        writer.member("action", ask.action.rawValue)
        if let page = ask.page { writer.member("page", page.rawValue) }
        writer.member("reason", ask.reason.rawValue)
        for (name, date) in [("shownAt", ask.shownAt), ("acceptedAt", ask.acceptedAt), ("dismissedAt", ask.dismissedAt)]
        {
            if let date { writer.member(name, RFC3339.format(date)) }
        }
        writer.endObject()
    }

    static func readAsk(_ object: JSONObject, path: String) throws(ValidationError) -> Ask {
        var reader = JSONObjectReader(object, path: path)
        guard let id = try reader.string("id"), let number = try reader.integer("number", in: 1...Int64(Int32.max)),
            let action = try reader.enumeration("action", Ask.Action.self),
            let reason = try reader.enumeration("reason", PermissionErrorType.self)
        else { throw ValidationError(field: path, reason: "needs id, number, action and reason") }
        return Ask(
            id: id, number: Int(number), givenAt: try requiredDate(&reader, "givenAt"), action: action,
            page: try reader.enumeration("page", Ask.Page.self), reason: reason,
            shownAt: try optionalDate(&reader, "shownAt"), acceptedAt: try optionalDate(&reader, "acceptedAt"),
            dismissedAt: try optionalDate(&reader, "dismissedAt"))
    }

    static func readDelivery(_ object: JSONObject, path: String) throws(ValidationError) -> Delivery {
        var delivery = JSONObjectReader(object, path: path)
        guard let id = try delivery.string("id"),
            let sequence = try delivery.integer("sequence", in: 1...Int64(Int32.max))
        else { throw ValidationError(field: path, reason: "needs id and sequence") }
        return Delivery(
            id: id, sequence: Int(sequence), dueAt: try Self.requiredDate(&delivery, "dueAt"),
            deliveredAt: try Self.requiredDate(&delivery, "deliveredAt"),
            heldOut: try delivery.bool("heldOut") ?? false, openedAt: try optionalDate(&delivery, "openedAt"),
            channel: try delivery.enumeration("channel", ReminderChannel.self) ?? .push,
            because: try delivery.enumeration("because", FallbackReason.self))
    }

    static func optionalDate(_ reader: inout JSONObjectReader, _ key: String) throws(ValidationError) -> Date? {
        guard let text = try reader.string(key) else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw ValidationError(field: reader.fieldPath(key), reason: "must be an RFC 3339 timestamp")
        }
        return date
    }

    /// The `userID` member, required (a log entry's user).
    static func requiredUserID(_ reader: inout JSONObjectReader) throws(ValidationError) -> UserID {
        guard let rawID = try reader.string("userID") else {
            throw ValidationError(field: reader.fieldPath("userID"), reason: "is required")
        }
        return try UserID(rawID)
    }

    static func requiredDate(_ reader: inout JSONObjectReader, _ key: String) throws(ValidationError) -> Date {
        guard let date = try optionalDate(&reader, key) else {
            throw ValidationError(field: reader.fieldPath(key), reason: "is required")
        }
        return date
    }
}
