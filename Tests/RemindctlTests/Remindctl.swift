import Foundation
import RemindTesting

/// Runs the real `remindctl` binary with a whole command line and a controlled environment.
enum Remindctl {
    typealias Result = SpawnedProcess.Result

    /// The environment every run starts from: UTC for stable local times, 80 columns for
    /// stable help text, and nothing that could name a socket.
    static let baseEnvironment = ["PATH": "/usr/bin:/bin", "TZ": "UTC", "COLUMNS": "80", "LINES": "24"]

    /// Runs `remindctl arguments…` against `socket` (passed as `--socket` unless nil) with
    /// standard input not a terminal, and captures its output.
    static func run(
        _ arguments: [String], socket: String? = nil, environment extra: [String: String] = [:],
        input: String? = nil, standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil
    ) throws -> Result {
        let socketArguments = socket.map { ["--socket", $0] } ?? []
        // A run that hangs is killed, and fails the test through its status.
        return try SpawnedProcess.run(
            BuildProducts.path(of: "remindctl"), socketArguments + arguments,
            environment: baseEnvironment.merging(extra) { $1 }, input: input, standardInput: standardInput,
            standardOutput: standardOutput, standardError: standardError, timeout: .seconds(60))
    }
}
