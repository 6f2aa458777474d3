import RemindCore

extension SinkConfiguration {
    /// Reads the `sinks` array: at least one sink, each named, names unique.
    ///
    /// An unnamed sink is called after its type (`journal`) when it is the only one of its
    /// type, else `type-N` for the Nth of that type (`file-1`, `file-2`), counting named ones
    /// too, so a name does not change when another sink of the type gains or loses a name.
    static func list(_ elements: [JSONValue], path: String = "sinks") throws(ValidationError) -> [SinkConfiguration] {
        guard !elements.isEmpty else {
            throw ValidationError(field: path, reason: "must not be empty: events need somewhere to go")
        }
        var counts: [SinkType: Int] = [:]
        for element in elements {
            if case .object(let object) = element, case .string(let text)? = object["type"],
                let type = SinkType(rawValue: text)
            {
                counts[type, default: 0] += 1
            }
        }
        var sinks: [SinkConfiguration] = []
        var ordinals: [SinkType: Int] = [:]
        var owners: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            let elementPath = "\(path)[\(index)]"
            guard case .object(let object) = element else {
                throw ValidationError(field: elementPath, reason: "must be an object, got \(element.typeName)")
            }
            if case .string(let text)? = object["type"], let type = SinkType(rawValue: text) {
                ordinals[type, default: 0] += 1
            }
            let sink = try SinkConfiguration(object: object, path: elementPath) { type in
                counts[type, default: 0] > 1 ? "\(type.rawValue)-\(ordinals[type, default: 0])" : type.rawValue
            }
            if let owner = owners[sink.name] {
                throw ValidationError(
                    field: "\(elementPath).name",
                    reason: "\"\(sink.name)\" is already the name of \(path)[\(owner)]; sink names must be unique")
            }
            owners[sink.name] = index
            sinks.append(sink)
        }
        return sinks
    }
}
