import Foundation
import RemindCore

/// Reads the members of an API answer that `openapi.yaml` marks required.
///
/// `JSONObjectReader` reads absent members as nil, which suits optional inputs; an answer's
/// members are promised, so a missing one is an error naming it rather than a silent default.
/// Unknown members are ignored so that a newer daemon's additions do not break an older client.
struct AnswerReader {
    private var reader: JSONObjectReader

    init(_ value: JSONValue, path: String = "") throws(ValidationError) {
        guard case .object(let object) = value else {
            throw ValidationError(field: path, reason: "must be an object, got \(value.typeName)")
        }
        reader = JSONObjectReader(object, path: path)
    }

    private func missing(_ key: String) -> ValidationError {
        ValidationError(field: reader.fieldPath(key), reason: "is missing")
    }

    func fieldPath(_ key: String) -> String { reader.fieldPath(key) }

    mutating func string(_ key: String) throws(ValidationError) -> String {
        guard let value = try reader.string(key) else { throw missing(key) }
        return value
    }

    mutating func optionalString(_ key: String) throws(ValidationError) -> String? {
        try reader.string(key)
    }

    mutating func int(_ key: String) throws(ValidationError) -> Int {
        guard let value = try reader.integer(key, in: Int64(Int.min)...Int64(Int.max)) else { throw missing(key) }
        return Int(value)
    }

    mutating func bool(_ key: String) throws(ValidationError) -> Bool {
        guard let value = try reader.bool(key) else { throw missing(key) }
        return value
    }

    mutating func date(_ key: String) throws(ValidationError) -> Date {
        guard let date = try optionalDate(key) else { throw missing(key) }
        return date
    }

    mutating func optionalDate(_ key: String) throws(ValidationError) -> Date? {
        guard let text = try reader.string(key) else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw ValidationError(field: reader.fieldPath(key), reason: "must be an RFC 3339 timestamp")
        }
        return date
    }

    mutating func enumeration<E: RawRepresentable & CaseIterable>(
        _ key: String, _ type: E.Type
    ) throws(ValidationError) -> E where E.RawValue == String {
        guard let value = try reader.enumeration(key, type) else { throw missing(key) }
        return value
    }

    mutating func optionalEnumeration<E: RawRepresentable & CaseIterable>(
        _ key: String, _ type: E.Type
    ) throws(ValidationError) -> E? where E.RawValue == String {
        try reader.enumeration(key, type)
    }

    mutating func value(_ key: String) throws(ValidationError) -> JSONValue {
        guard let value = reader.value(key) else { throw missing(key) }
        return value
    }

    mutating func optionalValue(_ key: String) -> JSONValue? {
        reader.value(key)
    }

    mutating func object(_ key: String) throws(ValidationError) -> AnswerReader {
        try AnswerReader(value(key), path: fieldPath(key))
    }

    mutating func optionalObject(_ key: String) throws(ValidationError) -> AnswerReader? {
        guard let value = reader.value(key) else { return nil }
        return try AnswerReader(value, path: fieldPath(key))
    }

    /// Each element of the array `key`, read by `element` with its index in the path.
    mutating func array<Element>(
        _ key: String, _ element: (JSONValue, String) throws(ValidationError) -> Element
    ) throws(ValidationError) -> [Element] {
        guard let elements = try reader.array(key) else { throw missing(key) }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, value) in elements.enumerated() {
            result.append(try element(value, "\(fieldPath(key))[\(index)]"))
        }
        return result
    }

    /// A `Permissions` object as the API writes it (user status and history entries).
    mutating func permissions(_ key: String) throws(ValidationError) -> Permissions {
        var object = try object(key)
        return Permissions(
            location: try object.enumeration("location", LocationAuthorization.self),
            accuracy: try object.enumeration("accuracy", LocationAccuracy.self),
            locationServices: try object.bool("locationServices"),
            notifications: try object.enumeration("notifications", NotificationAuthorization.self),
            timeZone: try object.optionalString("timeZone"),
            // Absent from a daemon older than motion: "never reported".
            motion: try object.optionalEnumeration("motion", MotionAuthorization.self) ?? .unknown)
    }

    /// The members of this object, by key, each a service's users per state.
    mutating func serviceCounts() throws(ValidationError) -> [String: [ServiceState: Int]] {
        var services: [String: [ServiceState: Int]] = [:]
        for key in reader.object.keys {
            var counts = try object(key)
            var byState: [ServiceState: Int] = [:]
            for state in ServiceState.allCases { byState[state] = try counts.int(state.rawValue) }
            services[key] = byState
        }
        return services
    }

    /// The members of this object, by key, each a service's `{"state","missing"}`.
    mutating func services() throws(ValidationError) -> [String: ServiceStatus] {
        var services: [String: ServiceStatus] = [:]
        for key in reader.object.keys {
            var service = try object(key)
            let missing = try service.array("missing") { value, path throws(ValidationError) in
                guard case .string(let text) = value, let condition = ServiceCondition(rawValue: text) else {
                    throw ValidationError(field: path, reason: "must be a service condition")
                }
                return condition
            }
            services[key] = ServiceStatus(state: try service.enumeration("state", ServiceState.self), missing: missing)
        }
        return services
    }

    mutating func errors(_ key: String) throws(ValidationError) -> [PermissionErrorType] {
        try array(key) { value, path throws(ValidationError) in
            guard case .string(let text) = value, let error = PermissionErrorType(rawValue: text) else {
                throw ValidationError(field: path, reason: "must be a permission error type")
            }
            return error
        }
    }
}
