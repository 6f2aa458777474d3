import CRemindSys
import Dispatch
import Foundation
import NIOPosix
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a command for each event: the event's JSON on stdin, `REMINDD_EVENT_TYPE`,
/// `REMINDD_EVENT_ID`, `REMINDD_USER_ID`, `REMINDD_TITLE` and `REMINDD_BODY` in the
/// environment. Exit 0 means delivered; anything else, or running past `timeoutSeconds`, is
/// a failed attempt, and on a timeout the command's whole process group is killed so that a
/// hung `sh -c` cannot leave its children behind.
///
/// The argv is run as given, with no shell. Output (stdout and stderr together) is kept up to
/// `outputLimit` bytes for the failure message.
///
/// Spawning and waiting for the command block, so they run as a job on the injected I/O pool.
/// Feeding stdin, reading the output and the timeout have short-lived threads of their own:
/// they must make progress while that job waits for the command, and as pool jobs they could
/// queue behind that very wait (or behind a checkpoint) until the command hangs on a full pipe. (swift-subprocess was tried instead: its `run` reaps the command only after
/// the output pipe closes, so a command that leaves a background child holding its stdout —
/// `notify-send` starting a D-Bus daemon — would count as timed out instead of delivered the
/// moment it exits; here the group is killed as soon as the command itself exits.)
public struct ExecSink: EventSink {
    public let name: String
    public var type: String { "exec" }
    public let command: [String]
    public let timeoutSeconds: Double
    public let outputLimit = 4096
    let io: NIOThreadPool

    public init(name: String = "exec", command: [String], timeoutSeconds: Double = 10, io: NIOThreadPool = .singleton) {
        self.name = name
        self.command = command
        self.timeoutSeconds = timeoutSeconds
        self.io = io
    }

    public func deliver(_ event: OutboxEvent) async throws(SinkError) -> SinkOutcome {
        let command = self.command
        let environment = Self.environment(for: event)
        let timeout = timeoutSeconds
        let limit = outputLimit
        let io = self.io
        let result: Result<Void, SinkError>
        do {
            result = try await io.runIfActive {
                Self.run(command, stdin: event.bytes, environment: environment, timeout: timeout, limit: limit)
            }
        } catch {
            throw SinkError("the I/O pool has stopped")
        }
        try result.get()
        return .delivered
    }

    static func environment(for event: OutboxEvent) -> [String] {
        var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("REMINDD_") }
        variables["REMINDD_EVENT_TYPE"] = event.kind.rawValue
        variables["REMINDD_EVENT_ID"] = event.id
        variables["REMINDD_USER_ID"] = event.userID.rawValue
        if case .object(let object)? = try? JSONParser.parse(event.bytes) {
            if case .string(let title)? = object["title"] { variables["REMINDD_TITLE"] = title }
            if case .string(let body)? = object["body"] { variables["REMINDD_BODY"] = body }
        }
        return variables.map { "\($0.key)=\($0.value)" }
    }

    /// Spawns the command in a process group of its own, feeds stdin, collects output and
    /// waits, killing the group at the timeout. Blocking: runs off the cooperative pool.
    static func run(
        _ command: [String], stdin input: [UInt8], environment: [String], timeout: Double, limit: Int
    )
        -> Result<Void, SinkError>
    {
        var inputPipe: [Int32] = [0, 0]
        var outputPipe: [Int32] = [0, 0]
        // Close-on-exec: a child spawned at the same moment by another thread (another sink,
        // another request) must not inherit these ends, or the output pipe never reaches EOF
        // while that child lives. dup2 onto 0, 1 and 2 clears the flag for our own child.
        guard remindsys_pipe_cloexec(&inputPipe) == 0, remindsys_pipe_cloexec(&outputPipe) == 0 else {
            return .failure(SinkError("pipe: \(String(cString: strerror(errno)))"))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 2)
        for fd in inputPipe + outputPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own, so a timeout can kill the command and everything it started; and
        // default signal handling, whatever the daemon blocks or ignores.
        var defaults = sigset_t()
        sigfillset(&defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var pid: pid_t = 0
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        let spawned = posix_spawnp(&pid, command[0], &actions, &attributes, argv, envp)
        close(inputPipe[0])
        close(outputPipe[1])
        guard spawned == 0 else {
            close(inputPipe[1])
            close(outputPipe[0])
            return .failure(SinkError("cannot run \(command[0]): \(String(cString: strerror(spawned)))"))
        }
        // Stdin and output are served on their own threads so a command that neither reads
        // nor exits cannot block us past the timeout.
        let stdinFD = inputPipe[1]
        Thread {
            signal(SIGPIPE, SIG_IGN)
            var offset = 0
            while offset < input.count {
                let written = input[offset...].withUnsafeBytes { write(stdinFD, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                offset += written
            }
            close(stdinFD)
        }.start()
        let output = OutputCollector(fd: outputPipe[0], limit: limit)
        let watchdog = GroupKiller(processGroup: pid, after: timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let timedOut = watchdog.cancel()
        // Whatever the command left running in its group goes with it.
        kill(-pid, SIGKILL)
        let text = output.finish()
        let shown = text.isEmpty ? "" : "; output: \(text)"
        if timedOut {
            return .failure(SinkError("\(command[0]) timed out after \(timeout) s\(shown)"))
        }
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        if exited && code == 0 { return .success(()) }
        let how = exited ? "exited with \(code)" : "was killed by signal \(status & 0x7f)"
        return .failure(SinkError("\(command[0]) \(how)\(shown)"))
    }
}

/// Reads a pipe to its end on a thread of its own, keeping the first `limit` bytes.
final class OutputCollector: @unchecked Sendable {
    private var bytes: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    init(fd: Int32, limit: Int) {
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                if self.bytes.count < limit { self.bytes += buffer[0..<min(count, limit - self.bytes.count)] }
            }
            close(fd)
            self.done.signal()
        }.start()
    }

    /// The output once the pipe closed (every writer of the group is gone).
    func finish() -> String {
        done.wait()
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Kills a process group unless cancelled within `after` seconds, on a thread of its own so
/// the timeout holds however busy everything else is. The deadline is on the monotonic
/// clock: a jump of the wall clock neither kills a command early nor lets it run on.
final class GroupKiller: @unchecked Sendable {
    private let cancelled = DispatchSemaphore(value: 0)
    private let state = NSLock()
    private var fired = false
    private var finished = false

    init(processGroup: pid_t, after seconds: Double) {
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds * 1_000_000_000))
        Thread { [self] in
            guard cancelled.wait(timeout: deadline) == .timedOut else { return }
            state.lock()
            defer { state.unlock() }
            if !finished {
                fired = true
                kill(-processGroup, SIGKILL)
            }
        }.start()
    }

    /// Stops the timer; returns true when it had already killed the group.
    func cancel() -> Bool {
        state.lock()
        defer { state.unlock() }
        finished = true
        cancelled.signal()
        return fired
    }
}
