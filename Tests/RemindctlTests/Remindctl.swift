import Foundation
import RemindTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the real `remindctl` binary with a whole command line and a controlled environment.
enum Remindctl {
    struct Result {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// The environment every run starts from: UTC for stable local times, 80 columns for
    /// stable help text, and nothing that could name a socket.
    static let baseEnvironment = ["PATH": "/usr/bin:/bin", "TZ": "UTC", "COLUMNS": "80", "LINES": "24"]

    /// Runs `remindctl arguments…` against `socket` (passed as `--socket` unless nil) with
    /// standard input not a terminal, and captures its output.
    static func run(
        _ arguments: [String], socket: String? = nil, environment extra: [String: String] = [:],
        standardInput: Int32? = nil, standardOutput: Int32? = nil
    ) throws -> Result {
        let directory = try BuildProducts.temporaryDirectory("remindctl-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outputPath = directory + "/stdout"
        let errorPath = directory + "/stderr"
        let output = try SpawnedProcess.openStream(outputPath, O_WRONLY | O_CREAT | O_TRUNC)
        defer { close(output) }
        let error = try SpawnedProcess.openStream(errorPath, O_WRONLY | O_CREAT | O_TRUNC)
        defer { close(error) }
        let null = try SpawnedProcess.openStream(nil, O_RDONLY)
        defer { close(null) }
        let socketArguments = socket.map { ["--socket", $0] } ?? []
        let process = try SpawnedProcess(
            executable: BuildProducts.path(of: "remindctl"), arguments: socketArguments + arguments,
            environment: baseEnvironment.merging(extra) { $1 }, standardInput: standardInput ?? null,
            standardOutput: standardOutput ?? output, standardError: error)
        // A run that hangs is killed, and fails the test through its status.
        let status = process.wait() ?? process.stop()
        return Result(
            status: status,
            standardOutput: try String(contentsOfFile: outputPath, encoding: .utf8),
            standardError: try String(contentsOfFile: errorPath, encoding: .utf8))
    }
}
