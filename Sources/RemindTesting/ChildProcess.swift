import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a short command to completion, for test helpers called from async tests: a
/// `SpawnedProcess` waited for.
///
/// Foundation's `Process.waitUntilExit` on Linux learns of the child's exit through work on
/// Dispatch's global queue, whose threads are the cooperative pool's: two tests blocked in it at
/// once on a 2-core machine leave no thread to deliver either exit, and the whole suite hung
/// (two `openssl` runs of `TestCertificates`, 2026-11-25). `SpawnedProcess` reaps the child on a
/// thread of its own.
public enum ChildProcess {
    /// Runs `executable` (a path) with `arguments`; stdin is the given file or `/dev/null`, stdout
    /// and stderr go to the given files (created or truncated; one file when both name the same
    /// path), or to `/dev/null`. Returns the exit status, or 128 + the signal for a child killed by one; a
    /// command still running after `timeout` is stopped (SIGTERM, then SIGKILL).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardInput: String? = nil, standardOutput: String? = nil, standardError: String? = nil,
        timeout: Duration = .seconds(600)
    ) throws -> Int32 {
        let input = try SpawnedProcess.openStream(standardInput, O_RDONLY)
        defer { close(input) }
        let output = try SpawnedProcess.openStream(standardOutput, O_WRONLY | O_CREAT | O_TRUNC)
        defer { close(output) }
        let error =
            standardError != nil && standardError == standardOutput
            ? output : try SpawnedProcess.openStream(standardError, O_WRONLY | O_CREAT | O_TRUNC)
        defer { if error != output { close(error) } }
        let process = try SpawnedProcess(
            executable: executable, arguments: arguments,
            environment: environment ?? ProcessInfo.processInfo.environment, standardInput: input,
            standardOutput: output, standardError: error)
        return process.wait(timeout: timeout) ?? process.stop()
    }
}
