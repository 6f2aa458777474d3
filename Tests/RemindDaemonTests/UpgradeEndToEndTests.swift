import Foundation
import RemindCore
import RemindTesting
import Testing

/// Upgrades in place: the binary under test starts on a state directory and on a database that
/// a release wrote (`Tests/Fixtures/upgrade/<release>/`), and every user's status, history and
/// explanation, the pending reminders, the dead letters and the stats answer exactly as that
/// release answered them before it stopped (`expected.json`, recorded with the fixture).
///
/// The fixtures are made by the release itself: `REMINDD_MAKE_UPGRADE_FIXTURE=<release>` runs
/// `makeTheFixtureOfThisRelease`, which reports a set of users through the real binary, lets
/// reminders fire (one sink delivers, a dead webhook dead-letters), closes an episode, stops
/// the daemon cleanly and copies what it left (and, for the files backend, what a `kill -9`
/// left before that stop). They are kept: a later release that changes a
/// format must still start on them.
@Suite(.ownThread, .serialized)
struct UpgradeEndToEndTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/upgrade").path

    /// The configuration both phases and the upgrade run with, but for the delay (1 s while
    /// the fixture's reminders fire, ten years after, so nothing is due when it is read).
    static func configuration(delay: Int) -> String {
        #""notification":{"notificationTriggerDelay":\#(delay)}"#
    }

    static let deadHook =
        #"{"type":"webhook","name":"hook","url":"http://127.0.0.1:9/hook","retry":{"initialBackoffSeconds":0.05,"maxBackoffSeconds":0.05,"maxAttempts":1}}"#

    static let users = ["u-fired", "u-fixed", "u-pending", "u-denied", "u-silent"]
    static let since = "2026-01-01T00:00:00Z"
    static let until = "2036-01-01T00:00:00Z"

    /// What the upgrade must answer alike: path → body.
    static var paths: [String] {
        users.flatMap { ["/v1/users/\($0)", "/v1/users/\($0)/history", "/v1/users/\($0)/explain"] } + [
            "/v1/reminders", "/v1/dead-letters", "/v1/stats?since=\(since)&until=\(until)",
        ]
    }

    static func answers(_ daemon: DaemonProcess) throws -> [String: String] {
        var answers: [String: String] = [:]
        for path in paths { answers[path] = try daemon.get(path) }
        return answers
    }

    static func releases() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures)) ?? []).filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: "\(fixtures)/\($0)", isDirectory: &isDirectory)
                && isDirectory.boolValue
        }.sorted()
    }

    static func expected(_ release: String, _ backend: String) throws -> [String: String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(fixtures)/\(release)/\(backend)-expected.json"))
        return try JSONDecoder().decode([String: String].self, from: data)
    }

    /// Whether `new` answers everything `old` did: every member with the same value, in the
    /// same place; members a later release added are allowed (old clients ignore them).
    static func alike(_ old: String?, _ new: String?) -> Bool {
        guard let old, let new else { return old == new }
        guard let oldValue = try? JSONParser.parse(Array(old.utf8)),
            let newValue = try? JSONParser.parse(Array(new.utf8))
        else { return old == new }
        return contains(newValue, oldValue)
    }

    private static func contains(_ new: JSONValue, _ old: JSONValue) -> Bool {
        switch (new, old) {
        case (.object(let newObject), .object(let oldObject)):
            return oldObject.members.allSatisfy { member in
                newObject[member.key].map { contains($0, member.value) } ?? false
            }
        case (.array(let newElements), .array(let oldElements)):
            return newElements.count == oldElements.count && zip(newElements, oldElements).allSatisfy(contains)
        default:
            return new == old
        }
    }

    static func copy(_ from: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: destination)
        let status = try SpawnedProcess.run("/bin/cp", ["-a", from, destination]).status
        guard status == 0 else { throw POSIXError(.EIO) }
    }

    /// The release's state directories: after a clean stop (`state`), and, from releases whose
    /// fixture has one, after a `kill -9` with the last changes in the log alone (`state-killed`).
    static func stateDirectories() -> [(String, String)] {
        releases().flatMap { release in
            ["state", "state-killed"].filter { FileManager.default.fileExists(atPath: "\(fixtures)/\(release)/\($0)") }
                .map { (release, $0) }
        }
    }

    @Test(.filesBackendOnly, arguments: stateDirectories())
    func theFilesOfARelease(_ release: String, _ state: String) throws {
        let expected = try Self.expected(release, "files")
        let daemon = try DaemonProcess(configuration: Self.configuration(delay: 315_360_000), extraSinks: Self.deadHook)
        try Self.copy("\(Self.fixtures)/\(release)/\(state)", to: daemon.stateDirectory)
        try daemon.start()
        let answers = try Self.answers(daemon)
        for path in Self.paths { #expect(Self.alike(expected[path], answers[path]), "\(path): \(answers[path] ?? "")") }
        #expect(daemon.stop() == 0)
    }

    /// Run once, in the suite's files pass: the database is the fixture's own.
    @Test(
        .filesBackendOnly, .enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"),
        arguments: releases())
    func theDatabaseOfARelease(_ release: String) throws {
        let expected = try Self.expected(release, "postgres")
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        try server.restore(database, from: "\(Self.fixtures)/\(release)/postgres.sql")
        let member = #""storage":{"type":"postgres","url":"\#(server.url(database: database))"}"#
        let daemon = try DaemonProcess(
            configuration: Self.configuration(delay: 315_360_000) + "," + member, extraSinks: Self.deadHook)
        try daemon.start()
        let answers = try Self.answers(daemon)
        for path in Self.paths { #expect(Self.alike(expected[path], answers[path]), "\(path): \(answers[path] ?? "")") }
        #expect(daemon.stop() == 0)
    }

    /// Writes this release's fixture; run with `REMINDD_MAKE_UPGRADE_FIXTURE=<name>`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["REMINDD_MAKE_UPGRADE_FIXTURE"] != nil))
    func makeTheFixtureOfThisRelease() async throws {
        let release = try #require(ProcessInfo.processInfo.environment["REMINDD_MAKE_UPGRADE_FIXTURE"])
        let target = "\(Self.fixtures)/\(release)"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let server = try PostgresServer.shared()
        for backend in ["files", "postgres"] {
            var storage = ""
            var database: String?
            if backend == "postgres" {
                let made = try server.createDatabase()
                database = made
                storage = #","storage":{"type":"postgres","url":"\#(server.url(database: made))"}"#
            }
            let daemon = try DaemonProcess(
                configuration: Self.configuration(delay: 1) + storage, extraSinks: Self.deadHook)
            try daemon.start()
            let location =
                #"{"location":"whileInUse","notifications":"authorized","locale":"de-DE","timeZone":"Europe/Berlin"}"#
            try daemon.report("u-fired", location)
            try daemon.report("u-fixed", location)
            try daemon.report("u-denied", #"{"location":"denied","notifications":"denied"}"#)
            try daemon.report("u-silent", #"{"location":"always","notifications":"authorized"}"#)
            // Two reminders delivered to the file sink; the webhook dead-letters both.
            _ = try await daemon.waitForEvents(2)
            try await waitUntil("two dead letters", within: .seconds(60), every: .milliseconds(100)) {
                (try? daemon.get("/v1/dead-letters").components(separatedBy: #""sink":"hook""#).count) == 3
            }
            try daemon.report("u-fixed", #"{"location":"always","notifications":"authorized"}"#)
            // Its withdraw settles too: the fixture's outbox holds nothing a sink could still
            // take while the upgrade is read.
            _ = try await daemon.waitForEvents(3)
            try await waitUntil("three dead letters", within: .seconds(60), every: .milliseconds(100)) {
                (try? daemon.get("/v1/dead-letters").components(separatedBy: #""sink":"hook""#).count) == 4
            }
            #expect(daemon.stop() == 0)
            // Nothing due when it is read: the reminder of the user who reports now is ten
            // years away.
            try daemon.writeConfiguration(
                Self.configuration(delay: 315_360_000) + storage, extraSinks: Self.deadHook)
            try daemon.start()
            try daemon.report("u-pending", location)
            try daemon.report("u-denied", #"{"location":"whileInUse","notifications":"denied"}"#)
            let answers = try Self.answers(daemon)
            if database == nil {
                // A crash leaves these changes in the log alone, in the release's log format:
                // the upgrade must replay them.
                _ = daemon.stop(signal: SIGKILL)
                try Self.copy(daemon.stateDirectory, to: "\(target)/state-killed")
                try daemon.start()
                #expect(try Self.answers(daemon) == answers)
            }
            #expect(daemon.stop() == 0)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(answers).write(to: URL(fileURLWithPath: "\(target)/\(backend)-expected.json"))
            if let database {
                let dump = try SpawnedProcess.run(
                    "/usr/bin/env",
                    [
                        "-C", "/tmp", try #require(PostgresServer.program("pg_dump")), "-h", server.socketDirectory,
                        "-U",
                        "remindd",
                        "--no-owner", "--no-privileges", "--inserts", database,
                    ], environment: ProcessInfo.processInfo.environment)
                #expect(dump.status == 0)
                try dump.standardOutput.write(toFile: "\(target)/postgres.sql", atomically: true, encoding: .utf8)
            } else {
                try Self.copy(daemon.stateDirectory, to: "\(target)/state")
            }
        }
    }
}
