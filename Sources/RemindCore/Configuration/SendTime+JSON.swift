/// `notification.sendTime`: `"due"` (the default), `"active"`, or
/// `{"type":"active","maxDelaySeconds":86400,"minReports":5,"holdoutPercent":0}`.
///
/// Refused, naming the key path: another type name, a wrong type, an unknown key, seconds
/// below 1, `minReports` outside 0…64 (the counts are halved past 64, so more could never
/// be reached), a percentage outside 0…100.
extension SendTime {
    public init(json value: JSONValue, path: String) throws(ValidationError) {
        switch value {
        case .string("due"): self = .due
        case .string("active"): self = .active(Active())
        case .string(let other):
            throw ValidationError(field: path, reason: "must be \"due\" or \"active\", got \"\(other)\"")
        case .object(let object):
            var reader = JSONObjectReader(object, path: path)
            switch try reader.string("type") {
            case "due"?:
                self = .due
            case "active"?:
                var active = Active()
                if let seconds = try reader.integer("maxDelaySeconds", in: Int64.min...Int64.max) {
                    guard seconds >= 1 else {
                        throw ValidationError(field: reader.fieldPath("maxDelaySeconds"), reason: "must be at least 1")
                    }
                    guard seconds <= 7 * 86_400 else {
                        throw ValidationError(
                            field: reader.fieldPath("maxDelaySeconds"), reason: "must be at most 604800 (7 days)")
                    }
                    active.maxDelaySeconds = seconds
                }
                if let reports = try reader.integer("minReports", in: Int64.min...Int64.max) {
                    guard (0...Int64(ActivityHistogram.halvingThreshold)).contains(reports) else {
                        throw ValidationError(
                            field: reader.fieldPath("minReports"),
                            reason: "must be from 0 to \(ActivityHistogram.halvingThreshold)")
                    }
                    active.minReports = Int(reports)
                }
                if let percent = try reader.number("holdoutPercent") {
                    guard (0...100).contains(percent) else {
                        throw ValidationError(
                            field: reader.fieldPath("holdoutPercent"), reason: "must be from 0 to 100")
                    }
                    active.holdoutPercent = percent
                }
                self = .active(active)
            case let other?:
                throw ValidationError(
                    field: reader.fieldPath("type"), reason: "must be \"due\" or \"active\", got \"\(other)\"")
            case nil:
                throw ValidationError(field: reader.fieldPath("type"), reason: "is required (\"due\" or \"active\")")
            }
            try reader.rejectUnknownKeys()
        default:
            throw ValidationError(field: path, reason: "must be a string or an object, got \(value.typeName)")
        }
    }

    public var json: JSONValue {
        switch self {
        case .due: .string("due")
        case .active(let active):
            .object([
                "type": .string("active"), "maxDelaySeconds": .int(active.maxDelaySeconds),
                "minReports": .int(Int64(active.minReports)), "holdoutPercent": .double(active.holdoutPercent),
            ])
        }
    }
}
