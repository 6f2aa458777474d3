/// Reads typed members out of a `JSONObject`, throwing a `ValidationError` that names the
/// member (prefixed with `path`) when it has the wrong type or value.
///
/// Absent members and `null` read as nil. `unreadKeys` lists members never asked for, which
/// is how strict readers (the configuration) find unknown keys.
public struct JSONObjectReader {
    public let object: JSONObject
    public let path: String
    private var read: Set<String> = []

    public init(_ object: JSONObject, path: String = "") {
        self.object = object
        self.path = path
    }

    public func fieldPath(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    public var unreadKeys: [String] {
        object.keys.filter { !read.contains($0) }
    }

    /// The member's raw value, nil when absent or null.
    public mutating func value(_ key: String) -> JSONValue? {
        read.insert(key)
        switch object[key] {
        case nil, .null?: return nil
        case let value?: return value
        }
    }

    private func typeError(_ key: String, _ expected: String, _ value: JSONValue) -> ValidationError {
        ValidationError(field: fieldPath(key), reason: "must be \(expected), got \(value.typeName)")
    }

    public mutating func string(_ key: String) throws(ValidationError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw typeError(key, "a string", value) }
        return text
    }

    public mutating func bool(_ key: String) throws(ValidationError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw typeError(key, "true or false", value) }
        return flag
    }

    /// An integer in `range`; `3.0` counts as an integer, `3.5` does not.
    public mutating func integer(_ key: String, in range: ClosedRange<Int64>) throws(ValidationError) -> Int64? {
        guard let value = value(key) else { return nil }
        let number: Int64
        switch value {
        case .int(let integer): number = integer
        case .double(let double) where double.rounded() == double && abs(double) < 9e18: number = Int64(double)
        case .double: throw ValidationError(field: fieldPath(key), reason: "must be an integer")
        default: throw typeError(key, "an integer", value)
        }
        guard range.contains(number) else {
            let upper = range.upperBound == Int64.max ? "" : " and at most \(range.upperBound)"
            throw ValidationError(field: fieldPath(key), reason: "must be at least \(range.lowerBound)\(upper)")
        }
        return number
    }

    public mutating func number(_ key: String) throws(ValidationError) -> Double? {
        guard let value = value(key) else { return nil }
        switch value {
        case .int(let integer): return Double(integer)
        case .double(let double): return double
        default: throw typeError(key, "a number", value)
        }
    }

    public mutating func enumeration<E: RawRepresentable & CaseIterable>(
        _ key: String, _ type: E.Type, allowed: [E]? = nil
    ) throws(ValidationError) -> E? where E.RawValue == String {
        guard let text = try string(key) else { return nil }
        let allowed = allowed ?? Array(E.allCases)
        guard let result = E(rawValue: text), allowed.contains(where: { $0.rawValue == text }) else {
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            throw ValidationError(field: fieldPath(key), reason: "must be one of \(names); got \"\(text)\"")
        }
        return result
    }

    public mutating func object(_ key: String) throws(ValidationError) -> JSONObject? {
        guard let value = value(key) else { return nil }
        guard case .object(let object) = value else { throw typeError(key, "an object", value) }
        return object
    }

    public mutating func array(_ key: String) throws(ValidationError) -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else { throw typeError(key, "an array", value) }
        return elements
    }

    /// Throws for the first member nobody read: strict inputs refuse unknown keys.
    public func rejectUnknownKeys() throws(ValidationError) {
        if let key = unreadKeys.first {
            throw ValidationError(field: fieldPath(key), reason: "is not a known key")
        }
    }
}
