/// Input that breaks a rule, naming the field (a report member, a user ID, a configuration
/// key path such as `schedule.quietHours.start`) so the edge can say exactly what to fix.
public struct ValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field, as the caller wrote it: a JSON member name or a dotted key path.
    public var field: String
    /// What is wrong with it, as a sentence fragment: "must be one of …".
    public var reason: String
    /// The HTTP status that refuses it: 400 for input that is malformed by itself, 422 for
    /// input well formed but not acceptable for this user (an engagement event naming a
    /// reminder they never got).
    public var status: Int

    public init(field: String, reason: String, status: Int = 400) {
        self.field = field
        self.reason = reason
        self.status = status
    }

    public var description: String { field.isEmpty ? reason : "\(field): \(reason)" }
}
