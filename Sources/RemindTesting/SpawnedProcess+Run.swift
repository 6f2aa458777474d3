import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension SpawnedProcess {
    /// How a command run to completion ended, and what it printed.
    public struct Result: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    /// The environment of a command unless its caller gives one: a `PATH`, and no colours or
    /// pager for systemd's tools; nothing of the test process's.
    public static let commandEnvironment = ["PATH": "/usr/bin:/bin", "SYSTEMD_COLORS": "0", "SYSTEMD_PAGER": ""]

    /// Runs `executable` (a path) with `arguments` to completion: the exit status (128 + the
    /// signal for a child killed by one) and what it printed. The output goes to temporary
    /// files, which cannot fill up and block the child the way an unread pipe can; with
    /// `errorIntoOutput` standard error goes into the same file as standard output. Standard
    /// input is `input`, else the descriptor `standardInput`, else `/dev/null`; the descriptor
    /// `standardOutput` (a terminal) replaces the captured output, `standardError` likewise. A
    /// command still running after `timeout` is stopped (SIGTERM, then SIGKILL).
    ///
    /// Safe from async tests: not `Process`, whose `waitUntilExit` on Linux learns of the exit
    /// through work on Dispatch's global queue, whose threads are the cooperative pool's: two
    /// tests blocked in it at once on a 2-core machine leave no thread to deliver either exit,
    /// and the whole suite hung (two `openssl` runs of `TestCertificates`, 2026-11-25).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = commandEnvironment,
        input: String? = nil, standardInput: Int32? = nil, standardOutput: Int32? = nil,
        standardError: Int32? = nil, errorIntoOutput: Bool = false, timeout: Duration = .seconds(600)
    ) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remindd-run-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outputPath = directory + "/stdout"
        let errorPath = directory + "/stderr"
        let inputPath = try input.map { input in
            let path = directory + "/stdin"
            try Data(input.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let inputFD = try openStream(inputPath, O_RDONLY)
        defer { close(inputFD) }
        let output = try openStream(outputPath, O_WRONLY | O_CREAT | O_TRUNC)
        defer { close(output) }
        let error = errorIntoOutput ? output : try openStream(errorPath, O_WRONLY | O_CREAT | O_TRUNC)
        defer { if error != output { close(error) } }
        let process = try SpawnedProcess(
            executable: executable, arguments: arguments, environment: environment,
            standardInput: inputPath == nil ? standardInput ?? inputFD : inputFD,
            standardOutput: standardOutput ?? output, standardError: standardError ?? error)
        let status = process.wait(timeout: timeout) ?? process.stop()
        return Result(
            status: status, standardOutput: try String(contentsOfFile: outputPath, encoding: .utf8),
            standardError: errorIntoOutput ? "" : try String(contentsOfFile: errorPath, encoding: .utf8))
    }
}
