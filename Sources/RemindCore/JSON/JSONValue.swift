/// A JSON document as a value, with objects that keep their key order.
///
/// remindd's wire formats are specified byte for byte (the sink events must be the same
/// bytes for every sink, and key order is part of that), and its inputs must be checked
/// strictly with errors that name the offending field. Foundation's coders give neither a
/// stable key order nor a way to tell "absent" from "wrong type" cheaply, so the core reads
/// and writes JSON through this small value type instead.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// Integers are kept apart from other numbers so that `604800` and `604800.5` can be
    /// told apart when validating integer settings.
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The name of the JSON type, for error messages ("expected a string, got a number").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON object: ordered members, looked up by key.
///
/// Objects here are small (a report has at most a dozen members), so a linear search beats
/// building a dictionary for every parsed object.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.members = elements.map { (key: $0.0, value: $0.1) }
    }

    public subscript(key: String) -> JSONValue? {
        get {
            // The last occurrence wins, as in most JSON parsers.
            members.last(where: { $0.key == key })?.value
        }
        set {
            if let index = members.lastIndex(where: { $0.key == key }) {
                if let newValue {
                    members[index].value = newValue
                } else {
                    members.remove(at: index)
                }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    public var keys: [String] { members.map(\.key) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
