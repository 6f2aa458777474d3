import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A real journald for tests to log to, and a way to read entries back with `journalctl`.
///
/// ```swift
/// try await JournaldFixture.withJournald { journald in
///     logger.info("hello", metadata: ["REMINDD_TEST_ID": "\(id)"])
///     let entry = try journald.entry(matching: ["REMINDD_TEST_ID": "\(id)"])
///     #expect(entry["PRIORITY"] == "6")
/// }
/// ```
///
/// If a journald already listens on `/run/systemd/journal/socket` (the path libsystemd always logs to), it is used
/// and left alone. Otherwise `/lib/systemd/systemd-journald` is started as a child process, standalone (no
/// systemd needed; it must run as root to create `/run/systemd/journal` and `/run/log/journal`), and the fixture
/// waits for its `READY=1` on a private `NOTIFY_SOCKET`. It is stopped by its PID (SIGTERM) when the last test
/// using it is done; parallel tests share it. The journald writes to `/run/log/journal/<machine-id>/`, which plain
/// `journalctl` reads. The test is cancelled (reported as skipped) only when journald cannot run at all here.
///
/// Reading back follows the journal (`journalctl --follow`) until the entries arrive or a deadline passes, so no
/// test sleeps waiting for journald to write.
public struct JournaldFixture: Sendable {
    static let socketPath = "/run/systemd/journal/socket"
    static let journaldPath = "/lib/systemd/systemd-journald"
    static let journalctlPath = "/usr/bin/journalctl"

    /// The journald's process id when this fixture started it; nil when it uses one that was already running.
    public let pid: Int32?

    /// Runs `body` with a journald listening, starting one if needed.
    public static func withJournald<Result>(_ body: (JournaldFixture) async throws -> Result) async throws -> Result {
        try await self.with(exclusive: false, body)
    }

    /// Runs `body` with a journald that no other test uses meanwhile, so that it may ``pause()`` it.
    ///
    /// Tests that share journald wait until `body` is done (and `body` until they are), since a stopped journald
    /// would stall their reads. A journald the fixture did not start (the machine's own) is never stopped: the test
    /// fails instead.
    public static func withPausableJournald<Result>(
        _ body: (JournaldFixture) async throws -> Result
    ) async throws -> Result {
        try await self.with(exclusive: true) { journald in
            guard journald.pid != nil else {
                throw JournaldFixtureError.cannotRun("journald was not started by the fixture; it is not ours to stop")
            }
            return try await body(journald)
        }
    }

    /// Stops journald (SIGSTOP), as a journald that does not read (rate-limiting, a slow disk) looks to a client:
    /// its socket stays, and datagrams queue up until the queue is full.
    public func pause() {
        if let pid { kill(pid, SIGSTOP) }
    }

    /// Lets a paused journald run again (SIGCONT); it then reads what queued up meanwhile.
    public func resume() {
        if let pid { kill(pid, SIGCONT) }
    }

    private static func with<Result>(
        exclusive: Bool, _ body: (JournaldFixture) async throws -> Result
    ) async throws -> Result {
        // Where journald cannot run the test fails: `make test` installs systemd, so that is
        // a broken machine, not a reason to skip.
        let pid = try await Supervisor.shared.acquire(exclusive: exclusive)
        let fixture = JournaldFixture(pid: pid)
        do {
            let result = try await body(fixture)
            // A test that failed while journald was paused must not leave it stopped for the next one.
            if exclusive { fixture.resume() }
            await Supervisor.shared.release(exclusive: exclusive)
            return result
        } catch {
            if exclusive { fixture.resume() }
            await Supervisor.shared.release(exclusive: exclusive)
            throw error
        }
    }

    /// The first entry whose fields equal all of `matches`, waiting up to `timeout` for journald to store it.
    /// `predicate` picks among the matches (journalctl can only match whole field values).
    public func entry(
        matching matches: [String: String], timeout: Duration = .seconds(10),
        where predicate: (JournalEntry) -> Bool = { _ in true }
    ) throws -> JournalEntry {
        try self.entries(matching: matches, count: 1, timeout: timeout, where: predicate)[0]
    }

    /// The first `count` entries whose fields equal all of `matches`, oldest first, waiting up to `timeout`.
    public func entries(
        matching matches: [String: String],
        count: Int,
        timeout: Duration = .seconds(10),
        where predicate: (JournalEntry) -> Bool = { _ in true }
    ) throws -> [JournalEntry] {
        let arguments =
            ["--follow", "--lines=all", "--output=json", "--all", "--no-pager"]
            + matches.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var ends: [Int32] = [-1, -1]
        // pipe2(O_CLOEXEC) is hidden from Swift; `SpawnedProcess` closes every other descriptor in its children.
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        let null = try SpawnedProcess.openStream(nil, O_RDWR)
        defer { close(null) }
        let process: SpawnedProcess
        do {
            defer { close(ends[1]) }  // the child holds its own copy
            process = try SpawnedProcess(
                executable: Self.journalctlPath, arguments: arguments,
                environment: ["PATH": "/usr/bin:/bin", "SYSTEMD_COLORS": "0"], standardInput: null,
                standardOutput: ends[1], standardError: null)
        }
        defer {
            kill(process.pid, SIGKILL)
            _ = process.wait()
        }
        let deadline = ContinuousClock.now + timeout
        var reader = LineReader(fd: ends[0])
        var found: [JournalEntry] = []
        while found.count < count {
            guard let line = try reader.nextLine(until: deadline) else {
                throw JournaldFixtureError.timedOut(matches: matches, wanted: count, found: found)
            }
            let entry = try JournalEntry(json: line)
            if predicate(entry) { found.append(entry) }
        }
        return found
    }

    /// Runs `journalctl` with `arguments` to completion.
    public static func journalctl(_ arguments: [String]) throws -> SpawnedProcess.Result {
        try SpawnedProcess.run(Self.journalctlPath, arguments)
    }

    /// Counts the tests using journald, and owns the journald the fixture started, if any.
    private actor Supervisor {
        static let shared = Supervisor()

        private var users = 0
        private var exclusive = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        private var started: SpawnedProcess?

        /// Registers a user and returns the pid of the journald the fixture started, if it did.
        func acquire(exclusive: Bool) async throws -> Int32? {
            while self.exclusive || (exclusive && self.users > 0) {
                await withCheckedContinuation { self.waiting.append($0) }
            }
            if self.users == 0, self.started == nil, !DatagramListener.isListening(at: JournaldFixture.socketPath) {
                self.started = try Self.startJournald()
            }
            self.users += 1
            self.exclusive = exclusive
            return self.started?.pid
        }

        func release(exclusive: Bool) {
            self.users -= 1
            if exclusive { self.exclusive = false }
            let waiting = self.waiting
            self.waiting = []
            for continuation in waiting { continuation.resume() }
            guard self.users == 0, waiting.isEmpty, let process = self.started else { return }
            self.started = nil
            // SIGTERM makes journald flush and exit cleanly (SIGKILL after 10 s).
            process.stop()
        }

        private static func startJournald() throws -> SpawnedProcess {
            guard FileManager.default.isExecutableFile(atPath: JournaldFixture.journaldPath) else {
                throw JournaldFixtureError.cannotRun("\(JournaldFixture.journaldPath) does not exist")
            }
            guard geteuid() == 0 else {
                throw JournaldFixtureError.cannotRun("no journald is listening and only root can start one")
            }
            let notify = try DatagramListener()
            let log = notify.directory + "/journald.log"
            // Removed on return so that the listener can remove its folder; journald keeps its open file.
            defer { unlink(log) }
            let logFD = try SpawnedProcess.openStream(log, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
            defer { close(logFD) }
            let null = try SpawnedProcess.openStream(nil, O_RDWR)
            defer { close(null) }
            let process = try SpawnedProcess(
                executable: JournaldFixture.journaldPath, arguments: [],
                environment: ["PATH": "/usr/bin:/bin", "NOTIFY_SOCKET": notify.path], standardInput: null,
                standardOutput: null, standardError: logFD)
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                // Short receive timeouts so that an early exit of journald is noticed before the deadline.
                if let message = try notify.receive(timeout: .milliseconds(100)),
                    message.split(separator: "\n").contains("READY=1")
                {
                    return process
                }
                if !process.isRunning { break }
            }
            kill(process.pid, SIGKILL)
            let status = process.wait() ?? -1
            let errors = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw JournaldFixtureError.startFailed(status: status, output: errors)
        }
    }
}

public enum JournaldFixtureError: Error, CustomStringConvertible {
    case cannotRun(String)
    case startFailed(status: Int32, output: String)
    case timedOut(matches: [String: String], wanted: Int, found: [JournalEntry])
    case unreadable(String)

    public var description: String {
        switch self {
        case .cannotRun(let reason):
            return "journald cannot run: \(reason)"
        case .startFailed(let status, let output):
            return "systemd-journald exited (status \(status)) before READY=1: \(output)"
        case .timedOut(let matches, let wanted, let found):
            return "journalctl found \(found.count) of \(wanted) entries matching \(matches) before the deadline"
        case .unreadable(let line):
            return "journalctl printed a line that is not a JSON object: \(line)"
        }
    }
}

/// Reads lines from a pipe, waiting at most until a deadline for each.
private struct LineReader {
    let fd: Int32
    private var pending: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
    }

    /// The next line without its newline, or nil at the deadline or end of input.
    mutating func nextLine(until deadline: ContinuousClock.Instant) throws -> String? {
        while true {
            if let newline = self.pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: self.pending[..<newline], as: UTF8.self)
                self.pending.removeSubrange(...newline)
                return line
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var descriptor = pollfd(fd: self.fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000) + 1
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno != EINTR { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            guard ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = read(self.fd, &buffer, buffer.count)
            if count < 0, errno != EINTR { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            if count == 0 { return nil }
            if count > 0 { self.pending.append(contentsOf: buffer[..<count]) }
        }
    }
}
