import RemindCore

/// `experiment.allocation`: `"fixed"` (the default), `"adaptive"`, or
/// `{"type":"adaptive","reweightSeconds":43200,"horizonSeconds":1209600,"minEpisodes":200,
/// "minWeight":0.05}`.
///
/// Refused, naming the key path: another type name, a wrong type, an unknown key, seconds
/// below 1, a negative `minEpisodes`, a `minWeight` outside 0…1 or one that the groups cannot
/// all receive (`minWeight` × groups > 1).
extension Allocation {
    init(json value: JSONValue, path: String, groups: Int) throws(ValidationError) {
        switch value {
        case .string("fixed"): self = .fixed
        case .string("adaptive"): self = .adaptive(Adaptive())
        case .string(let other):
            throw ValidationError(field: path, reason: "must be \"fixed\" or \"adaptive\", got \"\(other)\"")
        case .object(let object):
            var reader = try JSONObjectReader.strict(object, path: path)
            switch try reader.string("type") {
            case "fixed"?:
                self = .fixed
            case "adaptive"?:
                var settings = Adaptive()
                if let seconds = try reader.integer("reweightSeconds", atLeast: 1, atMost: Int64(Int32.max)) {
                    settings.reweightSeconds = seconds
                }
                if let seconds = try reader.integer("horizonSeconds", atLeast: 1, atMost: Int64(Int32.max)) {
                    settings.horizonSeconds = seconds
                }
                if let episodes = try reader.integer("minEpisodes", atLeast: 0, atMost: Int64(Int32.max)) {
                    settings.minEpisodes = Int(episodes)
                }
                if let weight = try reader.number("minWeight") {
                    guard weight.isFinite, (0...1).contains(weight) else {
                        throw ValidationError(field: reader.fieldPath("minWeight"), reason: "must be from 0 to 1")
                    }
                    guard weight * Double(groups) <= 1 + 1e-12 else {
                        throw ValidationError(
                            field: reader.fieldPath("minWeight"),
                            reason:
                                "\(groups) groups cannot each receive \(weight): minWeight × groups must be at most 1")
                    }
                    settings.minWeight = weight
                }
                self = .adaptive(settings)
            case let other?:
                throw ValidationError(
                    field: reader.fieldPath("type"), reason: "must be \"fixed\" or \"adaptive\", got \"\(other)\"")
            case nil:
                throw ValidationError(
                    field: reader.fieldPath("type"), reason: "is required (\"fixed\" or \"adaptive\")")
            }
            try reader.rejectUnknownKeys(context: "(type, reweightSeconds, horizonSeconds, minEpisodes, minWeight)")
        default:
            throw ValidationError(field: path, reason: "must be a string or an object, got \(value.typeName)")
        }
    }

    var json: JSONValue {
        switch self {
        case .fixed: .string("fixed")
        case .adaptive(let settings):
            .object([
                "type": .string("adaptive"), "reweightSeconds": .int(settings.reweightSeconds),
                "horizonSeconds": .int(settings.horizonSeconds), "minEpisodes": .int(Int64(settings.minEpisodes)),
                "minWeight": .double(settings.minWeight),
            ])
        }
    }
}
