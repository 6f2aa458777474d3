import RemindCore

// The `services` object of the configuration (docs/configuration.md):
//
//     "services":{"driving":{"requires":["location","always"],"optional":["precise","motion"]},
//                 "walking":{"requires":["motion"]}}
extension ServiceDefinition {
    /// Reads the `services` object strictly: a name that is not `[a-z0-9_-]{1,64}`, an empty or
    /// missing `requires`, an unknown condition, a condition named twice and an unknown key are
    /// errors naming their key path. Services come back sorted by name.
    static func list(_ object: JSONObject, path: String = "services") throws(ValidationError) -> [ServiceDefinition] {
        try object.rejectDuplicateKeys(path: path)
        var services: [ServiceDefinition] = []
        for (name, value) in object.members {
            let servicePath = "\(path).\(name)"
            guard isValidName(name) else {
                throw ValidationError(
                    field: servicePath,
                    reason: "is not a valid service name: 1–64 characters of a-z, 0-9, '_' and '-'")
            }
            guard case .object(let serviceObject) = value else {
                throw ValidationError(field: servicePath, reason: "must be an object, got \(value.typeName)")
            }
            var reader = try JSONObjectReader.strict(serviceObject, path: servicePath)
            let requires = try conditions(&reader, "requires")
            guard !requires.isEmpty else {
                throw ValidationError(
                    field: reader.fieldPath("requires"),
                    reason: "must list at least one condition (\(conditionNames))")
            }
            let optional = try conditions(&reader, "optional")
            if let both = optional.first(where: requires.contains) {
                throw ValidationError(
                    field: reader.fieldPath("optional"), reason: "\(both.rawValue) is already in requires")
            }
            try reader.rejectUnknownKeys(context: "(requires, optional)")
            services.append(ServiceDefinition(name: name, requires: requires, optional: optional))
        }
        return services.sorted { $0.name < $1.name }
    }

    private static let conditionNames = ServiceCondition.allCases.map(\.rawValue).joined(separator: ", ")

    private static func conditions(
        _ reader: inout JSONObjectReader, _ key: String
    ) throws(ValidationError) -> [ServiceCondition] {
        var conditions: [ServiceCondition] = []
        for (index, value) in (try reader.array(key) ?? []).enumerated() {
            let field = "\(reader.fieldPath(key))[\(index)]"
            guard case .string(let name) = value else {
                throw ValidationError(field: field, reason: "must be a string, got \(value.typeName)")
            }
            guard let condition = ServiceCondition(rawValue: name) else {
                throw ValidationError(field: field, reason: "must be one of \(conditionNames); got \"\(name)\"")
            }
            guard !conditions.contains(condition) else {
                throw ValidationError(field: field, reason: "\(name) is listed twice")
            }
            conditions.append(condition)
        }
        return conditions
    }

    /// The `services` object as the effective configuration shows it.
    static func json(_ services: [ServiceDefinition]) -> JSONValue {
        .object(
            JSONObject(
                services.map { service in
                    (
                        service.name,
                        .object([
                            "requires": .array(service.requires.map { .string($0.rawValue) }),
                            "optional": .array(service.optional.map { .string($0.rawValue) }),
                        ])
                    )
                }))
    }
}
