import RemindCore

/// Why a configuration could not be loaded: the file could not be read, or what it (or a flag
/// or environment variable) says is invalid. Either way the daemon exits 78 (`EX_CONFIG`) at
/// start and keeps its old configuration on reload.
///
/// `description` is the one line the daemon prints:
/// `remindd: /etc/remindd/remindd.json: schedule.jitterSeconds: must be at least 0`.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A struct over a private enum, so that kinds can be added without breaking callers.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Hashable {
            case unreadable
            case invalid
        }

        private let base: Base

        /// The file exists (or was named explicitly) but could not be read.
        public static let unreadable = Kind(base: .unreadable)
        /// The file, a flag or an environment variable holds an invalid value.
        public static let invalid = Kind(base: .invalid)

        public var description: String {
            switch base {
            case .unreadable: "unreadable"
            case .invalid: "invalid"
            }
        }
    }

    public var kind: Kind
    /// The configuration file, or nil when the value came from a flag or the environment.
    public var path: String?
    /// The key path (or flag, or variable name) and the reason; the field is empty for
    /// malformed JSON and unreadable files.
    public var validationError: ValidationError

    public init(kind: Kind, path: String?, validationError: ValidationError) {
        self.kind = kind
        self.path = path
        self.validationError = validationError
    }

    public var field: String { validationError.field }
    public var reason: String { validationError.reason }

    public var description: String {
        var parts = ["remindd"]
        if let path { parts.append(path) }
        parts.append(validationError.description)
        return parts.joined(separator: ": ")
    }
}
