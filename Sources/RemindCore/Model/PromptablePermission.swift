/// A permission whose system dialog an app may still be able to show (a report's
/// `canPrompt`): only the app knows, since iOS asks for Always once and Android stops asking
/// after two denials.
public enum PromptablePermission: String, Sendable, CaseIterable, Comparable {
    case location
    case notifications
    case motion
    case accuracy

    /// Ordered as declared, so that a list reads the same however it was reported.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// A list of names as a set in declaration order; an unknown name is an error naming
    /// `field[i]`.
    public static func list(_ values: [JSONValue], field: String) throws(ValidationError) -> [Self] {
        var found = Set<Self>()
        for (index, value) in values.enumerated() {
            guard case .string(let name) = value, let permission = Self(rawValue: name) else {
                throw ValidationError(
                    field: "\(field)[\(index)]",
                    reason: "must be one of \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            found.insert(permission)
        }
        return found.sorted()
    }
}
