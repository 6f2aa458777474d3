import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real PostgreSQL server for tests: Debian's binaries, a cluster made by `initdb` in a
/// temporary directory, serving on a Unix socket in that directory only (no TCP), started as
/// a child process and stopped by its PID. Run as `nobody` when the tests run as root, since
/// the server refuses root.
///
/// `shared` is one server per test process (stopped at exit); a test that stops or restarts
/// its server makes its own.
public final class PostgresServer: @unchecked Sendable {
    public let directory: String
    public var socketDirectory: String { directory }
    public var pid: pid_t? { lock.withLock { process?.pid } }
    private var process: SpawnedProcess?
    private let lock = NSLock()
    private static let binDirectory: String? = {
        let base = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        return versions.compactMap(Int.init).sorted().last.map { "\(base)/\($0)/bin" }
    }()

    public static var isInstalled: Bool { binDirectory != nil }

    /// A program of the installed server's version (`pg_dump`, say).
    public static func program(_ name: String) -> String? { binDirectory.map { "\($0)/\(name)" } }

    /// Makes the cluster (with `fsync` on, as production has it) and starts the server.
    public init() throws {
        guard let bin = Self.binDirectory else {
            throw ServerError("PostgreSQL is not installed (scripts/ensure-deps.sh installs Debian's postgresql)")
        }
        var template = Array("/tmp/rpg.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ServerError("mkdtemp failed") }
        directory = String(cString: made)
        if getuid() == 0 { chown(directory, 65534, 65534) }
        try Self.run(
            bin + "/initdb",
            [
                "-D", directory + "/data", "-U", "remindd", "--auth=trust", "-E", "UTF8", "--no-sync",
                "--no-instructions",
            ])
        try start()
    }

    deinit {
        guard owned else { return }
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Whether this process made the server (and so stops it and removes its directory).
    private var owned: Bool { ownedFlag }
    private var ownedFlag = true

    /// A server started before the tests (scripts/pg-test-server.sh, by scripts/run-tests.sh)
    /// in `directory`: used, never stopped by this process.
    private init(running directory: String) {
        self.directory = directory
        self.ownedFlag = false
    }

    /// One server for the whole test process: the one `REMINDD_TEST_PG_DIR` names (started by
    /// scripts/run-tests.sh before the suite, so that no test blocks a thread on initdb), or
    /// else one started now and stopped by PID when the process exits.
    public static func shared() throws -> PostgresServer {
        try sharedLock.withLock {
            if let server = sharedServer { return server }
            if let running = ProcessInfo.processInfo.environment["REMINDD_TEST_PG_DIR"], !running.isEmpty {
                let server = PostgresServer(running: running)
                sharedServer = server
                return server
            }
            let server = try PostgresServer()
            sharedServer = server
            atexit {
                PostgresServer.sharedServer?.stop()
                if let directory = PostgresServer.sharedServer?.directory {
                    try? FileManager.default.removeItem(atPath: directory)
                }
            }
            return server
        }
    }

    nonisolated(unsafe) private static var sharedServer: PostgresServer?
    private static let sharedLock = NSLock()

    /// Starts the server on the existing cluster and waits (at most 30 s) until it accepts
    /// connections.
    public func start() throws {
        guard let bin = Self.binDirectory else { throw ServerError("PostgreSQL is not installed") }
        let arguments = [
            bin + "/postgres", "-D", directory + "/data", "-k", directory, "-c", "listen_addresses=",
            "-c", "max_connections=200", "-c", "shared_buffers=32MB", "-c", "log_min_messages=fatal",
        ]
        // In /tmp (`env -C`): the server's user may not enter the test's working directory.
        var command = ["/usr/bin/env", "-C", "/tmp"]
        if getuid() == 0 { command += ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] }
        command += arguments
        let null = try SpawnedProcess.openStream(nil, O_RDWR)
        defer { close(null) }
        let process = try SpawnedProcess(
            executable: command[0], arguments: Array(command.dropFirst()),
            environment: ProcessInfo.processInfo.environment, standardInput: null, standardOutput: null,
            standardError: null)
        lock.withLock { self.process = process }
        do {
            try waitUntil("postgres to accept connections", within: .seconds(30), pausingThread: .milliseconds(20)) {
                if let status = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
                    status.split(separator: "\n").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "ready" }
                    )
                {
                    return true
                }
                guard process.isRunning else { throw ServerError("postgres exited with \(process.exitStatus ?? -1)") }
                return false
            }
        } catch is DeadlineExceeded {
            throw ServerError("postgres did not become ready within 30 s")
        }
    }

    /// Stops the server by its PID (fast shutdown: connections are closed, nothing is lost)
    /// and waits for it to exit.
    public func stop() {
        signal(SIGINT)
    }

    /// Kills the server by its PID without a shutdown: what a crash of the database host does.
    public func kill9() {
        signal(SIGKILL)
    }

    private func signal(_ number: Int32) {
        guard
            let process = lock.withLock({ () -> SpawnedProcess? in
                defer { self.process = nil }
                return self.process
            })
        else { return }
        kill(process.pid, number)
        _ = process.wait(timeout: .seconds(600))
    }

    /// A new, empty database; its name.
    public func createDatabase(
        _ name: String = "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    )
        throws -> String
    {
        try psql("postgres", "CREATE DATABASE \(name)")
        return name
    }

    /// The server's socket file, for clients that take a path.
    public var socketPath: String { directory + "/.s.PGSQL.5432" }

    /// A new database and the configuration's `storage` member (without braces) that puts a
    /// daemon on it: what `REMINDD_TEST_STORAGE=postgres` gives each test daemon.
    public func storageMember() throws -> (database: String, member: String) {
        let name = try createDatabase()
        return (name, #""storage":{"type":"postgres","url":"\#(url(database: name))"}"#)
    }

    public func url(database: String) -> String {
        "postgresql://remindd@/\(database)?host=\(directory)"
    }

    /// Runs SQL with psql over the socket; returns what it printed (unaligned, tuples only).
    @discardableResult
    public func psql(_ database: String, _ sql: String) throws -> String {
        try Self.run(
            "/usr/bin/psql",
            ["-h", directory, "-U", "remindd", "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql],
            asServerUser: false)
    }

    /// Runs a file of SQL (a `pg_dump`, with its psql commands) with psql, stopping at the
    /// first error.
    public func restore(_ database: String, from path: String) throws {
        try Self.run(
            "/usr/bin/psql",
            ["-h", directory, "-U", "remindd", "-d", database, "-v", "ON_ERROR_STOP=1", "-q", "-f", path],
            asServerUser: false)
    }

    /// Runs a short command and returns its output (stdout and stderr).
    @discardableResult
    private static func run(_ executable: String, _ arguments: [String], asServerUser: Bool = true) throws -> String {
        // In /tmp (`env -C`): the server's user may not enter the test's working directory.
        var command = ["-C", "/tmp", executable] + arguments
        if asServerUser, getuid() == 0 {
            command =
                ["-C", "/tmp", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
                + [executable] + arguments
        }
        let result = try SpawnedProcess.run(
            "/usr/bin/env", command, environment: ProcessInfo.processInfo.environment, errorIntoOutput: true)
        guard result.status == 0 else {
            throw ServerError("\(executable) exited with \(result.status): \(result.standardOutput)")
        }
        return result.standardOutput
    }

    public struct ServerError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
