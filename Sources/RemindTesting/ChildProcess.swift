import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a short command to completion with `posix_spawn` and `waitpid`, for test helpers called
/// from async tests.
///
/// Foundation's `Process.waitUntilExit` on Linux learns of the child's exit through work on
/// Dispatch's global queue, whose threads are the cooperative pool's: two tests blocked in it at
/// once on a 2-core machine leave no thread to deliver either exit, and the whole suite hung
/// (two `openssl` runs of `TestCertificates`, 2026-11-25). `waitpid` needs no other thread.
public enum ChildProcess {
    /// Runs `executable` (a path) with `arguments`; stdin is `/dev/null`, stdout and stderr go to
    /// the given files (created or truncated; one file when both name the same path), or to
    /// `/dev/null`. Returns the exit status, or 128 + the signal for a child killed by one.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardOutput: String? = nil, standardError: String? = nil
    ) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, standardOutput ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let standardError, standardError == standardOutput {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(
                &actions, 2, standardError ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
