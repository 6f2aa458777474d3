import Foundation
import RemindClient

#if canImport(Glibc)
    import Glibc
#endif

/// The real `remindd` binary, started by a test in a temp directory of its own and stopped by
/// PID. Readiness is the daemon's own `READY=1` on a real `NOTIFY_SOCKET`, never a sleep. The
/// end-to-end tests and remindctl's tests share it.
public final class DaemonProcess: @unchecked Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case binaryMissing(String)
        case notReady(String)
        case exitedEarly(Int32, String)

        public var description: String {
            switch self {
            case .binaryMissing(let path): "remindd binary not found at \(path); run swift build first"
            case .notReady(let log): "remindd did not send READY=1; its output:\n\(log)"
            case .exitedEarly(let status, let log): "remindd exited with \(status); its output:\n\(log)"
            }
        }
    }

    public let directory: String
    public var stateDirectory: String { directory + "/state" }
    public var socketPath: String { directory + "/r.sock" }
    public var configPath: String { directory + "/remindd.json" }
    public var eventsPath: String { directory + "/events.jsonl" }
    public var logPath: String { directory + "/remindd.log" }
    public private(set) var process: SpawnedProcess?
    private var notify: DatagramListener?
    public var client: DaemonHTTPClient { DaemonHTTPClient(socketPath: socketPath) }
    public var pid: Int32? { process?.pid }

    /// A temp directory with a configuration: a file sink into `events.jsonl` plus whatever
    /// `configuration` sets at the top level (JSON members without the braces).
    public init(configuration: String = "", extraSinks: String = "") throws {
        directory = try Self.makeDirectory()
        try writeConfiguration(configuration, extraSinks: extraSinks)
    }

    /// A temp directory with `configurationFile` (a whole JSON object) as the configuration,
    /// the suite's `storage` member added unless it names one.
    public init(configurationFile json: String) throws {
        directory = try Self.makeDirectory()
        var json = json
        if !json.contains(#""storage""#), case let storage = try storageMember(), !storage.isEmpty {
            let rest = json.drop { $0 != "{" }.dropFirst()
            let separator = rest.trimmingCharacters(in: .whitespacesAndNewlines) == "}" ? "" : ","
            json = "{" + storage + separator + rest
        }
        try json.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    private static func makeDirectory() throws -> String {
        var template = Array("/tmp/remindd-e2e-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        return String(cString: made)
    }

    /// The backend the end-to-end suite runs against (`TestStorage`): the state directory's
    /// files, in one store or two parts, or with `REMINDD_TEST_STORAGE=postgres` a database of
    /// its own on the test process's PostgreSQL server (one switch, the same tests). Tests of
    /// the single store's files themselves are marked `filesBackendOnly`.
    public static let usesPostgres = TestStorage.current == .postgres

    /// This daemon's `storage` member and database, made at its first configuration and kept
    /// across restarts.
    private var storage: String?
    public private(set) var databaseName: String?

    /// The `storage` member for the suite's backend; empty for files.
    public func storageMember() throws -> String {
        if storage == nil, let (database, member) = try TestStorage.current.member() {
            (databaseName, storage) = (database, member)
        }
        return storage ?? ""
    }

    /// Replaces the configuration file (for sinks that need files in `directory` first).
    public func writeConfiguration(_ configuration: String, extraSinks: String) throws {
        var configuration = configuration
        if !configuration.contains("\"storage\""), case let storage = try storageMember(), !storage.isEmpty {
            configuration = configuration.isEmpty ? storage : configuration + "," + storage
        }
        let extra = configuration.isEmpty ? "" : configuration + ","
        let sinks = extraSinks.isEmpty ? "" : "," + extraSinks
        let json = "{\(extra)\"sinks\":[{\"type\":\"file\",\"path\":\"\(eventsPath)\"}\(sinks)]}"
        try json.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// The paths of every user file, quarantined file and outcomes log file in a state
    /// directory: under `users/`, `quarantine/` and `outcomes/` at its top, or in each part of
    /// a divided one.
    public static func stateFiles(
        _ stateDirectory: String
    ) -> (users: [String], quarantined: [String], outcomes: [String]) {
        var found: (users: [String], quarantined: [String], outcomes: [String]) = ([], [], [])
        let files = FileManager.default.enumerator(atPath: stateDirectory)
        while let path = files?.nextObject() as? String {
            let directories = path.split(separator: "/").dropLast()
            if directories.last == "quarantine" {
                found.quarantined.append(stateDirectory + "/" + path)
            } else if directories.last == "outcomes", path.hasSuffix(".jsonl") {
                found.outcomes.append(stateDirectory + "/" + path)
            } else if directories.contains("users"), path.hasSuffix(".json") {
                found.users.append(stateDirectory + "/" + path)
            }
        }
        return found
    }

    deinit {
        if let process, process.isRunning { kill(process.pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    public static var binaryPath: String {
        // Figures for the release build: REMINDD_TEST_BINARY=.build/release/remindd swift test …
        if let chosen = ProcessInfo.processInfo.environment["REMINDD_TEST_BINARY"], !chosen.isEmpty { return chosen }
        // The test bundle sits next to the package's executables in the build directory.
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidate = bundle.appendingPathComponent("remindd").path
        if !FileManager.default.isExecutableFile(atPath: candidate) {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            candidate = root.appendingPathComponent(".build/debug/remindd").path
        }
        return candidate
    }

    /// Starts the daemon and returns once it sent READY=1.
    public func start(
        arguments: [String]? = nil, environment extra: [String: String] = [:], waitForReady: Bool = true,
        launcher: [String] = [], binary: String = DaemonProcess.binaryPath
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw Failure.binaryMissing(binary) }
        let listener = try DatagramListener()
        notify = listener
        // A launcher (systemd-socket-activate …) runs the daemon as its last argument.
        let daemonArguments =
            arguments ?? [
                "--config", configPath, "--state-directory", stateDirectory, "--socket", socketPath,
            ]
        let command = launcher.isEmpty ? [binary] + daemonArguments : launcher + [binary] + daemonArguments
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = listener.path
        for key in ["REMINDD_CONFIG", "REMINDD_STATE_DIRECTORY", "REMINDD_SOCKET", "INVOCATION_ID", "WATCHDOG_USEC"] {
            environment[key] = nil
        }
        environment.merge(extra) { $1 }
        let log = try SpawnedProcess.openStream(logPath, O_WRONLY | O_CREAT | O_APPEND)
        defer { close(log) }
        let null = try SpawnedProcess.openStream(nil, O_RDONLY)
        defer { close(null) }
        process = try SpawnedProcess(
            executable: command[0], arguments: Array(command.dropFirst()), environment: environment,
            standardInput: null, standardOutput: log, standardError: log)
        guard waitForReady else { return }
        try waitFor("READY=1")
    }

    /// Waits for a notify datagram containing `text` (bounded: 60 s) and returns it.
    @discardableResult
    public func waitFor(_ text: String, timeout: Duration = .seconds(60)) throws -> String {
        var found: String?
        do {
            // No pause between checks: each one waits up to 500 ms for a datagram.
            try waitUntil("a notify datagram with \(text)", within: timeout, pausingThread: .zero) {
                guard let process else { throw Failure.notReady(self.log) }
                // Datagrams already sent are read before looking at whether the process ended:
                // a daemon that fails at start says why and then exits.
                let exited = !process.isRunning
                if let message = try notify?.receive(timeout: .milliseconds(exited ? 0 : 500)) {
                    if message.contains(text) { found = message }
                    return found != nil
                }
                if exited { throw Failure.exitedEarly(Self.code(process.exitStatus ?? -1), self.log) }
                return false
            }
        } catch is DeadlineExceeded {}
        guard let found else { throw Failure.notReady(log) }
        return found
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Sends a signal and waits for the process to end; returns its exit status (or the
    /// terminating signal).
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        guard let process else { return -1 }
        kill(process.pid, signal)
        self.process = nil
        return Self.code(process.wait(timeout: .seconds(120)) ?? process.stop())
    }

    /// The exit code, or the signal that ended the process (as Foundation's `Process` gave it:
    /// remindd itself exits 0, 1 or 78, never 128 or more).
    public static func code(_ status: Int32) -> Int32 { status > 128 ? status - 128 : status }

    /// Waits for a process that exits by itself (a start-up failure).
    public func waitForExit() -> Int32 {
        guard let process else { return -1 }
        self.process = nil
        return Self.code(process.wait(timeout: .seconds(120)) ?? process.stop())
    }

    /// The events in the file sink, one JSON object per line.
    public var events: [String] {
        ((try? String(contentsOfFile: eventsPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits until the file sink holds at least `count` events (bounded): the daemon writes and
    /// fsyncs the file from another process, so there is no in-process signal to wait on and
    /// the file is looked at every 50 ms until the deadline.
    public func waitForEvents(_ count: Int, timeout: Duration = .seconds(90)) async throws -> [String] {
        // At the deadline the events so far: the caller's expectation names what is missing.
        do {
            try await waitUntil("\(count) events", within: timeout, every: .milliseconds(50)) { events.count >= count }
        } catch is DeadlineExceeded {}
        return events
    }

    @discardableResult
    public func post(_ userID: String, _ body: String) throws -> HTTPReply {
        try client.send("POST", "/v1/users/\(userID)/reports", body: Array(body.utf8))
    }

    /// Posts as an app backend does: a `503` (nothing was changed: the database did not answer
    /// in time) is sent again after its `Retry-After`, until `limit`. For the tests that post
    /// hundreds of reports while the rest of the suite loads the one PostgreSQL server; the
    /// tests of the `503` itself use ``post(_:_:)``.
    public func postRetrying(
        _ userID: String, _ body: String, within limit: Duration = .seconds(120)
    ) throws -> HTTPReply {
        let deadline = ContinuousClock.now + limit
        while true {
            let reply = try post(userID, body)
            guard reply.status == 503, ContinuousClock.now < deadline else { return reply }
            let seconds = reply.headers["retry-after"].flatMap(Double.init) ?? 1
            usleep(UInt32(min(max(seconds, 0.1), 5) * 1_000_000))
        }
    }

    /// Stores a report through the API, as an app backend would; anything but `200` throws.
    public func report(_ userID: String, _ body: String) throws {
        guard try post(userID, body).status == 200 else { throw POSIXError(.EPROTO) }
    }

    /// The body of a GET.
    public func get(_ path: String) throws -> String {
        try client.send("GET", path).text
    }
}
