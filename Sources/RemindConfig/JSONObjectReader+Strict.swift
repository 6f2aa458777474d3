import RemindCore

// Helpers that make `JSONObjectReader` as strict as a configuration file deserves: duplicate
// keys, empty paths and out-of-range durations are refused with the key path, not ignored.

/// The longest duration any setting accepts, in seconds (about 6,800 years, the bound RemindCore
/// uses for `notificationTriggerDelay`): anything above it is a typo, and keeping durations this
/// small means adding one to a date or converting it to a `Duration` can never overflow.
let maximumSeconds: Int64 = Int64(Int32.max) * 100

extension JSONObject {
    /// Refuses a member name written twice. `JSONObject` keeps both and lookups take the last,
    /// which for a configuration file would silently drop the first value the user wrote.
    func rejectDuplicateKeys(path: String) throws(ValidationError) {
        var seen: Set<String> = []
        for key in keys where !seen.insert(key).inserted {
            throw ValidationError(field: path.isEmpty ? key : "\(path).\(key)", reason: "appears more than once")
        }
    }
}

extension JSONObjectReader {
    /// A reader over `object` that has already refused duplicate keys.
    static func strict(_ object: JSONObject, path: String) throws(ValidationError) -> JSONObjectReader {
        try object.rejectDuplicateKeys(path: path)
        return JSONObjectReader(object, path: path)
    }

    /// A nested object, itself checked for duplicate keys.
    mutating func strictObject(_ key: String) throws(ValidationError) -> JSONObject? {
        guard let object = try object(key) else { return nil }
        try object.rejectDuplicateKeys(path: fieldPath(key))
        return object
    }

    /// Throws for the first member nobody read, saying what was expected instead.
    func rejectUnknownKeys(context: String) throws(ValidationError) {
        if let key = unreadKeys.first {
            throw ValidationError(field: fieldPath(key), reason: "is not a known key \(context)")
        }
    }

    /// An integer in `minimum...maximum`, with a reason that names only the bound it broke.
    mutating func integer(
        _ key: String, atLeast minimum: Int64, atMost maximum: Int64
    ) throws(ValidationError)
        -> Int64?
    {
        guard let number = try integer(key, in: Int64.min...Int64.max) else { return nil }
        if number < minimum {
            throw ValidationError(field: fieldPath(key), reason: "must be at least \(minimum)")
        }
        if number > maximum {
            throw ValidationError(field: fieldPath(key), reason: "must be at most \(maximum)")
        }
        return number
    }

    /// A number of seconds greater than 0 and at most `maximumSeconds`; fractions are allowed.
    mutating func positiveSeconds(_ key: String) throws(ValidationError) -> Double? {
        try positiveNumber(key, atMost: Double(maximumSeconds))
    }

    /// A number greater than 0 and at most `maximum`.
    mutating func positiveNumber(_ key: String, atMost maximum: Double) throws(ValidationError) -> Double? {
        guard let number = try number(key) else { return nil }
        if number <= 0 {
            throw ValidationError(field: fieldPath(key), reason: "must be greater than 0")
        }
        if number > maximum {
            throw ValidationError(
                field: fieldPath(key), reason: "must be at most \(JSONValue.double(maximum).serialized)")
        }
        return number
    }

    /// A file system path: a non-empty string without NUL, which no system call could take.
    mutating func path(_ key: String) throws(ValidationError) -> String? {
        guard let text = try string(key) else { return nil }
        if let reason = PathRule.problem(text) {
            throw ValidationError(field: fieldPath(key), reason: reason)
        }
        return text
    }

    /// The member, or a "is required" error when it is absent or null.
    func required<T>(_ value: T?, _ key: String) throws(ValidationError) -> T {
        guard let value else { throw ValidationError(field: fieldPath(key), reason: "is required") }
        return value
    }
}

/// What makes a string unusable as a path, shared by the file reader and the flag overrides.
enum PathRule {
    static func problem(_ text: String) -> String? {
        if text.isEmpty { return "must not be empty" }
        if text.utf8.contains(0) { return "must not contain a NUL character" }
        return nil
    }
}
