import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kill -9` at any moment loses nothing acknowledged and tears no file.
@Suite(.ownThread, .serialized)
struct DurabilityTests {
    /// 500 reports from 16 concurrent clients, all acknowledged, then kill -9 and a restart;
    /// returns the daemon, running again, and the last acknowledged location of each user.
    static func acknowledgeThenKill9() async throws -> (daemon: DaemonProcess, acknowledged: [String: String]) {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = daemon.client
        let locations = ["whileInUse", "always", "denied", "allowOnce"]
        // Each client owns its users, so the last acknowledged report per user is known.
        let acknowledged = await withTaskGroup(of: [String: String].self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var last: [String: String] = [:]
                    for index in 0..<32 where worker * 32 + index < 500 {
                        let user = "w\(worker)-u\(index % 8)"
                        let location = locations[(worker + index) % locations.count]
                        let body = #"{"location":"\#(location)"}"#
                        if let reply = try? await client.request(
                            "POST", "/v1/users/\(user)/reports", body: Array(body.utf8)),
                            reply.status == 200
                        {
                            last[user] = location
                        }
                    }
                    return last
                }
            }
            var merged: [String: String] = [:]
            for await part in group { merged.merge(part) { $1 } }
            return merged
        }
        #expect(acknowledged.count == 128)
        #expect(daemon.stop(signal: SIGKILL) == SIGKILL)
        try daemon.start()
        return (daemon, acknowledged)
    }

    /// 500 reports from 16 concurrent clients, all acknowledged, then kill -9: after a restart
    /// every acknowledged change is there.
    @Test func acknowledgedReportsSurviveKill9() async throws {
        let (daemon, acknowledged) = try await Self.acknowledgeThenKill9()
        for (user, location) in acknowledged {
            let reply = try daemon.client.send("GET", "/v1/users/\(user)")
            #expect(reply.status == 200, "user \(user)")
            #expect(reply.text.contains(#""location":"\#(location)""#), "user \(user): \(reply.text)")
        }
        daemon.stop()
    }

    /// The same, then a clean stop: every user file is written, and each decodes.
    @Test(.stateDirectoryBackendsOnly) func userFilesDecodeAfterKill9AndCleanStop() async throws {
        let (daemon, _) = try await Self.acknowledgeThenKill9()
        daemon.stop()
        let files = DaemonProcess.stateFiles(daemon.stateDirectory)
        for path in files.users {
            _ = try UserRecord(json: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        #expect(files.users.count == 128)
    }

    /// A reminder that came due while the daemon was dead is delivered after the restart.
    @Test func reminderDueWhileDownIsDeliveredAfterRestart() async throws {
        let daemon = try DaemonProcess(configuration: #""notification":{"notificationTriggerDelay":2}"#)
        try daemon.start()
        try daemon.post("late", #"{"location":"whileInUse"}"#)
        #expect(daemon.stop(signal: SIGKILL) == SIGKILL)
        #expect(daemon.events.isEmpty)
        // Dead past the due time: the reminder must come at start-up.
        try await Task.sleep(for: .seconds(3))
        try daemon.start()
        let events = try await daemon.waitForEvents(1)
        #expect(events.count == 1)
        #expect(events.first?.contains(#""userID":"late""#) == true)
        daemon.stop()
    }

    /// A corrupt user file is quarantined; every other user keeps working.
    @Test(.filesBackendOnly) func corruptUserFileIsQuarantined() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.post("good", #"{"location":"always"}"#)
        try daemon.post("bad", #"{"location":"always"}"#)
        daemon.stop()
        // Corrupt one file, and drop the snapshot so start-up reads every file.
        let enumerator = FileManager.default.enumerator(atPath: daemon.stateDirectory + "/users")
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix("bad.json") else { continue }
            try Data("{\"schemaVersion\":1,\"user".utf8).write(
                to: URL(fileURLWithPath: daemon.stateDirectory + "/users/" + path))
        }
        try FileManager.default.removeItem(atPath: daemon.stateDirectory + "/snapshot.tsv")
        try daemon.start()
        #expect(try daemon.client.send("GET", "/v1/users/good").status == 200)
        #expect(try daemon.client.send("GET", "/v1/users/bad").status == 404)
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory + "/quarantine")
        #expect(quarantined.count == 1)
        #expect(quarantined.first?.hasPrefix("bad.json") == true)
        #expect(try daemon.client.send("GET", "/v1/status").text.contains(#""quarantined":1"#))
        daemon.stop()
    }

    /// Hostile user IDs are refused with 400 and nothing appears outside the state directory.
    @Test func hostileUserIDsAreRefused() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: daemon.directory))
        for id in ["%2E%2E", "a%2Fb", String(repeating: "x", count: 129), "%2E", "a%00b"] {
            let reply = try daemon.post(id, #"{"location":"whileInUse"}"#)
            #expect(reply.status == 400, "user ID \(id)")
            #expect(reply.headers["content-type"] == "application/problem+json")
        }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: daemon.directory)) == before)
        #expect(try daemon.client.send("GET", "/v1/status").text.contains(#""users":0"#))
        daemon.stop()
    }
}

/// Dead letters against the real binary.
@Suite(.ownThread, .serialized)
struct DeadLetterEndToEndTests {
    /// A sink that keeps failing dead-letters the event with its last error; once the cause is
    /// fixed, replaying it delivers it.
    @Test func failingSinkDeadLettersThenReplayDelivers() async throws {
        let daemon = try DaemonProcess(
            configuration: #""notification":{"notificationTriggerDelay":1}"#,
            extraSinks:
                #"{"type":"file","name":"broken","path":"/tmp/remindd-missing-\#(UUID().uuidString)/e.jsonl","retry":{"initialBackoffSeconds":0.05,"maxBackoffSeconds":0.05,"maxAttempts":2}}"#
        )
        try daemon.start()
        try daemon.post("dl", #"{"location":"whileInUse"}"#)
        _ = try await daemon.waitForEvents(1)
        var letters = ""
        try await waitUntil("the broken sink's dead letter", within: .seconds(90), every: .milliseconds(50)) {
            letters = try daemon.client.send("GET", "/v1/dead-letters").text
            return letters.contains(#""sink":"broken""#)
        }
        #expect(letters.contains(#""attempts":2"#))
        #expect(letters.contains("No such file or directory"))
        #expect(try daemon.client.send("GET", "/v1/status").text.contains(#""deadLetters":1"#))
        let config = try daemon.client.send("GET", "/v1/config").text
        let path = try #require(config.firstMatch(of: /"path":"(\/tmp\/remindd-missing-[^"]+)\/e\.jsonl"/)).output.1
        try FileManager.default.createDirectory(atPath: String(path), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: String(path)) }
        let replay = try daemon.client.send("POST", "/v1/dead-letters/replay", body: Array("{}".utf8))
        #expect(replay.status == 200)
        #expect(replay.text == #"{"replayed":1}"#)
        var delivered = false
        try await waitUntil("the replayed event delivered", within: .seconds(90), every: .milliseconds(50)) {
            delivered = FileManager.default.fileExists(atPath: String(path) + "/e.jsonl")
            return delivered
        }
        #expect(delivered)
        #expect(try daemon.client.send("GET", "/v1/dead-letters").text == #"{"deadLetters":[]}"#)
        daemon.stop()
    }
}
