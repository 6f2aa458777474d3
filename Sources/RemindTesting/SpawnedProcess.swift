import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with `posix_spawn`, waited for on a thread of its own: the one way tests
/// run a child process (a daemon, a CLI, or with `run` a short command to completion).
///
/// Foundation's `Process` passes on the caller's signal mask, and a test runner's threads may
/// have SIGTERM blocked: a daemon started that way never sees the SIGTERM that should stop it.
/// Here the child starts with an empty mask and default dispositions, and its standard streams
/// are exactly the descriptors given. And `Process.waitUntilExit` learns of the exit through
/// Dispatch's pool threads, which tests blocked in it at once can all hold (see `run`);
/// the reaper here is a thread of its own.
public final class SpawnedProcess: Sendable {
    public struct SpawnError: Error, CustomStringConvertible {
        let executable: String
        let code: Int32
        public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    public let pid: pid_t
    private let status = Mutex<Int32?>(nil)
    private let exited = DispatchSemaphore(value: 0)

    public init(
        executable: String, arguments: [String], environment: [String: String], standardInput: Int32,
        standardOutput: Int32, standardError: Int32
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        Self.closeOthers(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var spawned = pid_t()
        let result = posix_spawn(&spawned, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnError(executable: executable, code: result) }
        let pid = spawned
        self.pid = pid
        Thread { self.reap(pid) }.start()
    }

    private func reap(_ pid: pid_t) {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import: the low 7 bits hold the
        // terminating signal, the next byte the exit code.
        let signal = raw & 0x7f
        status.withLock { $0 = signal == 0 ? (raw >> 8) & 0xff : 128 + signal }
        exited.signal()
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// Nothing else the test process has open (other tests' pipes, terminals) may be held by a
    /// child, or whoever waits for that descriptor's end would wait for this child too. glibc
    /// (2.34+) has the action, but its header hides it from Swift, so it is looked up by name.
    private static func closeOthers(_ actions: inout posix_spawn_file_actions_t) {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// A descriptor for one of a child's standard streams: the file at `path` (created with
    /// `mode` if `flags` say so), or `/dev/null`; close-on-exec, since the child gets its own
    /// copy.
    public static func openStream(_ path: String?, _ flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
        let fd = open(path ?? "/dev/null", flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return fd
    }

    public var isRunning: Bool { status.withLock { $0 } == nil }

    /// The exit code (128 + signal when killed), or nil while it runs.
    public var exitStatus: Int32? { status.withLock { $0 } }

    /// The exit code (128 + signal when killed), or nil if it is still running after `timeout`.
    public func wait(timeout: Duration = .seconds(60)) -> Int32? {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard exited.wait(timeout: .now() + seconds) == .success else { return nil }
        exited.signal()  // later calls return at once
        return status.withLock { $0 }
    }

    /// SIGTERM, then SIGKILL if it has not ended within 10 s; returns the exit code.
    @discardableResult
    public func stop() -> Int32 {
        kill(pid, SIGTERM)
        if let code = wait(timeout: .seconds(10)) { return code }
        kill(pid, SIGKILL)
        return wait() ?? -1
    }
}
