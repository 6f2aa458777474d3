import RemindAPI

/// Why a typed call to the daemon failed. Each kind maps to one of remindctl's exit codes.
public struct DaemonClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A struct over a private enum, so that kinds can be added without breaking callers.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Hashable {
            case unreachable
            case problem
            case protocolError
            case unexpectedAnswer
        }

        private let base: Base

        /// Nothing listens on the socket, or it cannot be opened.
        public static let unreachable = Kind(base: .unreachable)
        /// The daemon answered with an error status; `problem` says why.
        public static let problem = Kind(base: .problem)
        /// The connection broke or timed out, or the reply was not HTTP.
        public static let protocolError = Kind(base: .protocolError)
        /// A success status whose body is not the shape `openapi.yaml` promises.
        public static let unexpectedAnswer = Kind(base: .unexpectedAnswer)

        public var description: String {
            switch base {
            case .unreachable: "unreachable"
            case .problem: "problem"
            case .protocolError: "protocol error"
            case .unexpectedAnswer: "unexpected answer"
            }
        }
    }

    public var kind: Kind
    public var socketPath: String
    public var message: String
    /// The daemon's problem details, for `.problem`.
    public var problem: Problem?

    public init(kind: Kind, socketPath: String, message: String, problem: Problem? = nil) {
        self.kind = kind
        self.socketPath = socketPath
        self.message = message
        self.problem = problem
    }

    public var description: String { message }
}
