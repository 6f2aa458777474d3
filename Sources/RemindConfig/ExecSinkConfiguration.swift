import RemindCore

/// An `exec` sink: runs `command` (an argv, no shell) with the event on stdin; exit 0 is
/// delivered, and the process group is killed after `timeoutSeconds`.
public struct ExecSinkConfiguration: Sendable, Equatable {
    public static let defaultTimeoutSeconds: Double = 10

    /// The program and its arguments; `command[0]` is the program.
    public var command: [String]
    public var timeoutSeconds: Double

    public init(command: [String], timeoutSeconds: Double = defaultTimeoutSeconds) {
        self.command = command
        self.timeoutSeconds = timeoutSeconds
    }

    init(reader: inout JSONObjectReader) throws(ValidationError) {
        let elements = try reader.required(reader.array("command"), "command")
        let field = reader.fieldPath("command")
        guard !elements.isEmpty else {
            throw ValidationError(field: field, reason: "must not be empty: it is the program and its arguments")
        }
        var command: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let argument) = element else {
                throw ValidationError(field: "\(field)[\(index)]", reason: "must be a string, got \(element.typeName)")
            }
            // execve takes C strings: an argument with NUL would be cut short without a word.
            if argument.utf8.contains(0) {
                throw ValidationError(field: "\(field)[\(index)]", reason: "must not contain a NUL character")
            }
            command.append(argument)
        }
        if command[0].isEmpty {
            throw ValidationError(field: "\(field)[0]", reason: "must name the program to run")
        }
        let timeout = try reader.positiveSeconds("timeoutSeconds")
        self.init(command: command, timeoutSeconds: timeout ?? Self.defaultTimeoutSeconds)
    }

    var members: [(key: String, value: JSONValue)] {
        [
            (key: "command", value: .array(command.map(JSONValue.string))),
            (key: "timeoutSeconds", value: .double(timeoutSeconds)),
        ]
    }
}
