/// Why the daemon could not start, with the exit code it should end with.
public struct StartupError: Error, CustomStringConvertible {
    public var message: String
    /// 78 (EX_CONFIG) for configuration problems, 1 otherwise.
    public var exitCode: Int32

    public init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}
