import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `remindd migrate` against the real binary: a state copied into another backend (and back)
/// answers every read exactly as the original, a migration cut off by `kill -9` and resumed
/// gives the same result, and a source in use or a target not empty is refused with nothing
/// changed.
@Suite(.ownThread, .serialized)
struct MigrateEndToEndTests {
    /// The files of a state directory and their sizes, without its lock files (the top's and
    /// each part's): a lock holds its holder's PID, whose number of digits varies as PIDs wrap.
    static func stateFiles(_ directory: String) -> [String: Int] {
        APIHarness.files(under: directory).filter { $0.key != "lock" && !$0.key.hasSuffix("/lock") }
    }

    /// A daemon (not started) whose configuration file names its state directory and storage,
    /// so that `remindd migrate` reads the same file. Reminders come an hour after a report;
    /// besides the file sink, `broken` dead-letters every event at once and `slow` fails once
    /// and waits an hour, so its events stay pending.
    static func daemon(storage: String) throws -> DaemonProcess {
        let daemon = try DaemonProcess()
        let missing = "/tmp/remindd-missing-\(UUID().uuidString)"
        try daemon.writeConfiguration(
            #""stateDirectory":"\#(daemon.stateDirectory)","notification":{"notificationTriggerDelay":3600},"#
                + #""storage":\#(storage)"#,
            extraSinks:
                #"{"type":"file","name":"broken","path":"\#(missing)/b.jsonl","retry":{"initialBackoffSeconds":0.05,"maxBackoffSeconds":0.05,"maxAttempts":2}},"#
                + #"{"type":"file","name":"slow","path":"\#(missing)/s.jsonl","retry":{"initialBackoffSeconds":3600,"maxBackoffSeconds":3600,"maxAttempts":5}}"#
        )
        return daemon
    }

    static func filesStorage(parts: Int) -> String { #"{"type":"files","parts":\#(parts)}"# }

    /// A new database's `storage` member, and the database.
    static func postgresStorage() throws -> (storage: String, database: String) {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        return (#"{"type":"postgres","url":"\#(server.url(database: database))"}"#, database)
    }

    /// How many users the marker in the target says are copied (0 without one).
    /// Records every answer that differs, by its path.
    static func expectSame(
        _ expected: [String: String], _ actual: [String: String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for key in Set(expected.keys).union(actual.keys).sorted() where expected[key] != actual[key] {
            Issue.record(
                "\(key): \(expected[key] ?? "absent") became \(actual[key] ?? "absent")", sourceLocation: sourceLocation
            )
        }
    }

    static func usersCopied(_ daemon: DaemonProcess, database: String?) throws -> Int {
        let marker =
            if let database {
                // Before the migration has made the schema, nothing is copied yet.
                (try? PostgresServer.shared().psql(
                    database, "SELECT value FROM remindd_meta WHERE key = 'migration'")) ?? ""
            } else {
                (try? String(contentsOfFile: daemon.stateDirectory + "/migration.json", encoding: .utf8)) ?? ""
            }
        guard let match = marker.firstMatch(of: /"usersCopied":(\d+)/) else { return 0 }
        return Int(match.output.1) ?? 0
    }

    /// Users in every state: reminders fired (pending for `slow`, dead for `broken`), reminders
    /// still to come, an episode closed after its reminder (an outcome and a withdraw), and a
    /// user with Always access from the start.
    static func populate(_ daemon: DaemonProcess, users: Int = 6) async throws {
        let past = RFC3339.format(Date().addingTimeInterval(-7_200))
        for index in 0..<users {
            try daemon.report("due-\(index)", #"{"location":"whileInUse","observedAt":"\#(past)"}"#)
            try daemon.report("later-\(index)", #"{"location":"whileInUse"}"#)
        }
        try daemon.report("Fixed", #"{"location":"whileInUse","observedAt":"\#(past)"}"#)
        try daemon.report("always.1", #"{"location":"always"}"#)
        _ = try await daemon.waitForEvents(users + 1)
        try daemon.report("Fixed", #"{"location":"always"}"#)
        _ = try await daemon.waitForEvents(users + 2)
        try await waitUntil("every event dead-lettered by broken", within: .seconds(90), every: .milliseconds(50)) {
            try Self.status(daemon)["deadLetters"] == .int(Int64(users + 2))
        }
    }

    static func status(_ daemon: DaemonProcess) throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(Array(daemon.client.send("GET", "/v1/status").body))
        else { throw POSIXError(.EINVAL) }
        return object
    }

    /// Every read a migration must keep, by path: each user's status, history and explanation,
    /// the user list, the pending reminders, the dead letters, the stats and the counts.
    static func answers(_ daemon: DaemonProcess) throws -> [String: String] {
        let client = daemon.client
        func canonical(_ path: String) throws -> String {
            let reply = try client.send("GET", path)
            guard reply.status == 200 else { return "\(reply.status) \(reply.text)" }
            return canonicalJSON(try JSONParser.parse(Array(reply.body)))
        }
        let stream = try client.send("GET", "/v1/users", headers: ["Accept": "application/x-ndjson"])
        var answers = ["/v1/users (ndjson)": stream.text]
        let ids = stream.text.split(separator: "\n").compactMap { line -> String? in
            guard case .object(let object)? = try? JSONParser.parse(Array(line.utf8)),
                case .string(let id)? = object["userID"]
            else { return nil }
            return id
        }
        for id in ids {
            for path in ["/v1/users/\(id)", "/v1/users/\(id)/history", "/v1/users/\(id)/explain"] {
                answers[path] = try canonical(path)
            }
        }
        // Stats over a fixed window: the default one ends at the moment of the request.
        let stats = "/v1/stats?since=2020-01-01T00:00:00Z&until=2030-01-01T00:00:00Z"
        for path in ["/v1/users?limit=5", "/v1/reminders", stats] { answers[path] = try canonical(path) }
        // Dead letters in an order of their own: parts list theirs by time, then id.
        if case .object(let letters) = try JSONParser.parse(Array(client.send("GET", "/v1/dead-letters").body)),
            case .array(let list)? = letters["deadLetters"]
        {
            answers["/v1/dead-letters"] = list.map(canonicalJSON).sorted().joined(separator: "\n")
        }
        let status = try Self.status(daemon)
        for key in ["users", "openEpisodes", "pendingReminders", "nextReminderAt", "deadLetters"] {
            answers["/v1/status \(key)"] = status[key].map(canonicalJSON) ?? "absent"
        }
        if case .array(let sinks)? = status["sinks"] {
            for case .object(let sink) in sinks {
                answers["/v1/status sinks \(sink["name"].map(canonicalJSON) ?? "?") pending"] =
                    sink["pending"].map(canonicalJSON) ?? "absent"
            }
        }
        return answers
    }

    static func migrate(
        _ source: DaemonProcess, _ target: DaemonProcess, extra: [String] = []
    ) throws -> SpawnedProcess.Result {
        try SpawnedProcess.run(
            DaemonProcess.binaryPath,
            ["migrate", "--from-config", source.configPath, "--to-config", target.configPath] + extra,
            timeout: .seconds(300))
    }

    /// Migrates `source` (stopped) into `target` and expects the target's daemon to answer as
    /// the source's; leaves both stopped.
    func expectMigrated(_ source: DaemonProcess, into target: DaemonProcess) async throws {
        let sourceFiles = Self.stateFiles(source.stateDirectory)
        let result = try Self.migrate(source, target)
        // The source is only read.
        #expect(Self.stateFiles(source.stateDirectory) == sourceFiles)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("migrated"))
        // Nothing but the summary: standard error is not a terminal here.
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        try source.start()
        try target.start()
        let expected = try Self.answers(source)
        #expect(expected["/v1/status users"] != "0")
        Self.expectSame(expected, try Self.answers(target))
        source.stop()
        target.stop()
    }

    /// Files in two parts → three parts → one store: the users move between parts, and every
    /// answer is the same at each step.
    @Test func partsToOtherPartsAndBack() async throws {
        let two = try Self.daemon(storage: Self.filesStorage(parts: 2))
        try two.start()
        try await Self.populate(two)
        two.stop()
        let three = try Self.daemon(storage: Self.filesStorage(parts: 3))
        try await expectMigrated(two, into: three)
        let one = try Self.daemon(storage: Self.filesStorage(parts: 1))
        try await expectMigrated(three, into: one)
    }

    /// Files → PostgreSQL → files in two parts.
    @Test(.enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
    func filesToPostgresAndBack() async throws {
        let files = try Self.daemon(storage: Self.filesStorage(parts: 1))
        try files.start()
        try await Self.populate(files)
        files.stop()
        let postgres = try Self.daemon(storage: try Self.postgresStorage().storage)
        try await expectMigrated(files, into: postgres)
        let back = try Self.daemon(storage: Self.filesStorage(parts: 2))
        try await expectMigrated(postgres, into: back)
    }

    /// A migration killed midway leaves a marker: the target's daemon will not start, a plain
    /// migrate is refused, and `--resume` finishes it with the result an uninterrupted run gives.
    @Test(arguments: [false, true])
    func interruptedMigrationResumes(_ toPostgres: Bool) async throws {
        guard !toPostgres || PostgresServer.isInstalled else { return }
        let source = try Self.daemon(storage: Self.filesStorage(parts: 1))
        try source.start()
        try await Self.populate(source, users: 300)
        source.stop()
        let database = try toPostgres ? Self.postgresStorage() : nil
        let target = try Self.daemon(storage: database?.storage ?? Self.filesStorage(parts: 3))
        let null = try SpawnedProcess.openStream(nil, O_RDWR)
        defer { close(null) }
        let migration = try SpawnedProcess(
            executable: DaemonProcess.binaryPath,
            arguments: [
                "migrate", "--from-config", source.configPath, "--to-config", target.configPath, "--batch", "2",
            ],
            environment: SpawnedProcess.commandEnvironment, standardInput: null, standardOutput: null,
            standardError: null)
        // Killed once some users are copied and the marker says so.
        try await waitUntil("the migration halfway", within: .seconds(120), every: .milliseconds(5)) {
            try Self.usersCopied(target, database: database?.database) >= 20
        }
        kill(migration.pid, SIGKILL)
        #expect(migration.wait(timeout: .seconds(30)) != 0)
        #expect(try Self.usersCopied(target, database: database?.database) < 602)

        // The target's daemon does not serve the half-copied state.
        if toPostgres {
            try target.start(waitForReady: false)
            try target.waitFor("unfinished migration")
            target.stop()
        } else {
            #expect(throws: DaemonProcess.Failure.self) { try target.start() }
            #expect(target.stop() == 78)
            #expect(target.log.contains("unfinished migration"))
        }
        let plain = try Self.migrate(source, target)
        #expect(plain.status == 78)
        #expect(plain.standardError.contains("--resume"))
        let resumed = try Self.migrate(source, target, extra: ["--resume", "--batch", "50"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardOutput.contains("migrated 602 users"))

        // Compared with an uninterrupted copy of the same source.
        let whole = try Self.daemon(storage: Self.filesStorage(parts: 1))
        let straight = try Self.migrate(source, whole)
        #expect(straight.status == 0, "\(straight.standardError)")
        try whole.start()
        try target.start()
        let expected = try Self.answers(whole)
        #expect(expected["/v1/status users"] == "602")
        Self.expectSame(expected, try Self.answers(target))
        whole.stop()
        target.stop()
    }

    /// A source a daemon runs on, and a target that holds users, are refused, naming them,
    /// with exit 78; the target is left as it was.
    @Test func inUseSourceAndNonEmptyTargetAreRefused() async throws {
        let source = try Self.daemon(storage: Self.filesStorage(parts: 1))
        try source.start()
        try source.report("u-1", #"{"location":"whileInUse"}"#)
        let target = try Self.daemon(storage: Self.filesStorage(parts: 1))
        let inUse = try Self.migrate(source, target)
        #expect(inUse.status == 78)
        #expect(inUse.standardError.contains("in use"))
        #expect(inUse.standardError.contains("pid \(source.pid ?? 0)"))
        #expect(!FileManager.default.fileExists(atPath: target.stateDirectory))
        source.stop()

        try target.start()
        try target.report("u-2", #"{"location":"whileInUse"}"#)
        target.stop()
        // Every file but the lock, whose holder's pid the migration wrote while it held it.
        let files = { Self.stateFiles(target.stateDirectory) }
        let before = files()
        let sourceBefore = Self.stateFiles(source.stateDirectory)
        let full = try Self.migrate(source, target)
        #expect(full.status == 78)
        #expect(full.standardError.contains("not empty"))
        #expect(full.standardError.contains("1 users"))
        #expect(files() == before)
        #expect(Self.stateFiles(source.stateDirectory) == sourceBefore)

        let same = try Self.migrate(source, source)
        #expect(same.status == 78)
        #expect(same.standardError.contains("same state directory"))
    }

    /// Bad command lines and configurations: a usage error names the flag; an invalid
    /// configuration names the flag, the file and the key path, with exit 78.
    @Test func badArgumentsAndConfigurationsAreNamed() throws {
        let missing = try SpawnedProcess.run(DaemonProcess.binaryPath, ["migrate", "--from-config", "/nonexistent"])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("--to-config"))
        let daemon = try DaemonProcess()
        let bad = daemon.directory + "/bad.json"
        try #"{"storage":{"type":"files","parts":0}}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let invalid = try SpawnedProcess.run(
            DaemonProcess.binaryPath, ["migrate", "--from-config", bad, "--to-config", daemon.configPath])
        #expect(invalid.status == 78)
        #expect(invalid.standardError.contains("--from-config"))
        #expect(invalid.standardError.contains("storage.parts"))
    }
}
