import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real binary measuring whether reminders work (docs/outcomes.md): a 50 % holdout over 400
/// users, held-out reminders recorded and never sent, the outcomes log exact across `kill -9`,
/// `/v1/stats` the same after a restart, and promtool on the rules and on a live `/metrics`.
@Suite(.ownThread, .serialized)
struct OutcomesEndToEndTests {
    static let users = (0..<400).map { "o-\($0)" }

    static func json(_ reply: HTTPReply) throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(reply.body) else { throw POSIXError(.EPROTO) }
        return object
    }

    static func promtool(_ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        let result = try SpawnedProcess.run(
            "/usr/bin/env", ["promtool"] + arguments, environment: ProcessInfo.processInfo.environment, input: input)
        return (result.status, result.standardOutput + result.standardError)
    }

    /// The shipped alerting rules pass `promtool check rules`.
    @Test func alertingRulesPassPromtool() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let result = try Self.promtool([
            "check", "rules", root.appendingPathComponent("etc/prometheus/remindd.rules.yml").path,
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("SUCCESS"))
    }

    @Test func holdoutSplitsOutcomesAreExactAndSurviveKill9() async throws {
        let daemon = try DaemonProcess(
            configuration: #""notification":{"notificationTriggerDelay":1},"experiment":{"holdoutPercent":50}"#)
        try daemon.start()
        var groups: [String: String] = [:]
        for user in Self.users {
            let reply = try daemon.postRetrying(user, #"{"location":"whileInUse","platform":"android"}"#)
            #expect(reply.status == 200)
            if case .string(let group)? = try Self.json(reply)["group"] { groups[user] = group }
        }
        let held = groups.values.count { $0 == "holdout" }
        // Binomial(400, 0.5): 200 ± 4 standard deviations (10 each).
        #expect((160...240).contains(held), "\(held) of 400 held out")
        #expect(groups.count == 400 && groups.values.allSatisfy { $0 == "holdout" || $0 == "default" })

        // Every reminder comes due: the default group's reach the file sink, the holdout's do not.
        let events = try await daemon.waitForEvents(400 - held)
        try await WebhookOutageEndToEndTests.eventually {
            try daemon.client.send("GET", "/v1/reminders").text == #"{"reminders":[]}"#
        }
        #expect(events.count == 400 - held)
        let reminded = Set(
            events.compactMap { line -> String? in
                guard case .object(let event)? = try? JSONParser.parse(line), case .string(let user)? = event["userID"]
                else { return nil }
                return user
            })
        #expect(reminded == Set(groups.filter { $0.value == "default" }.keys))
        let heldUser = try #require(groups.first { $0.value == "holdout" }?.key)
        let heldStatus = try Self.json(try daemon.client.send("GET", "/v1/users/\(heldUser)"))
        guard case .object(let episode)? = heldStatus["episode"] else {
            Issue.record("no episode for \(heldUser)")
            return
        }
        #expect(episode["remindersHeldOut"] == .int(1))
        #expect(episode["remindersDelivered"] == .int(0))

        // Everyone fixes the setting; the last report is followed at once by kill -9.
        for user in Self.users {
            let reply = try daemon.postRetrying(user, #"{"location":"always"}"#)
            #expect(reply.status == 200, "\(user): \(reply.text)")
        }
        #expect(daemon.stop(signal: SIGKILL) == SIGKILL)
        // Only the reminded got a withdraw: held-out reminders were never shown.
        try daemon.start()
        let window = "/v1/stats?since=2000-01-01T00:00:00Z&until=2100-01-01T00:00:00Z"
        let stats = try daemon.client.send("GET", window).text
        let report = try StatsReport(json: try JSONParser.parse(Array(stats.utf8)))
        let holdout = try #require(report.groups.first { $0.group == "holdout" })
        let reminded400 = try #require(report.groups.first { $0.group == "default" })
        #expect(holdout.episodes == held && holdout.resolved == held && holdout.open == 0)
        #expect(reminded400.episodes == 400 - held && reminded400.resolved == 400 - held)
        #expect(holdout.resolvedAfterReminders == [0, held, 0, 0])
        #expect(reminded400.resolvedAfterReminders == [0, 400 - held, 0, 0])
        #expect(report.upliftVsHoldout.map(\.group) == ["default"])

        // Each closed episode is in the outcomes log exactly once, after the crash and a clean stop.
        #expect(daemon.stop() == 0)
        let outcomes = try Self.outcomeLines(daemon)
        #expect(outcomes.count == 400)
        #expect(Set(outcomes).count == 400)
        try daemon.start()
        #expect(try daemon.client.send("GET", window).text == stats)
        // Withdraws the kill -9 left in the outbox go out after a start: count once it is empty.
        try await WebhookOutageEndToEndTests.eventually {
            try WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_outbox_depth", #"sink="file""#) == 0
        }
        // At least once, with one id each: a withdraw delivered just before the kill whose
        // completion was not yet recorded goes again after the start (the outbox's contract).
        let withdraws = Set(
            daemon.events.filter { $0.contains(#""type":"withdraw""#) }.compactMap { line -> String? in
                guard case .object(let event)? = try? JSONParser.parse(line), case .string(let id)? = event["id"]
                else { return nil }
                return id
            })
        #expect(withdraws.count == 400 - held)

        // A new episode of a user lands in the same group again (stable hashes).
        #expect(try daemon.post(heldUser, #"{"location":"whileInUse"}"#).status == 200)
        #expect(try Self.json(try daemon.client.send("GET", "/v1/users/\(heldUser)"))["group"] == .string("holdout"))

        // promtool accepts the live exposition with the outcome metrics in it.
        let metrics = try daemon.client.send("GET", "/metrics").text
        #expect(metrics.contains("remindd_episodes_opened_total{group=\"holdout\"}"))
        let checked = try Self.promtool(["check", "metrics"], input: metrics)
        #expect(checked.status == 0, "\(checked.output)")
        #expect(daemon.stop() == 0)
    }

    /// The outcomes log: the state directory's monthly files (each part's, when divided), or
    /// the `remindd_outcomes` table.
    static func outcomeLines(_ daemon: DaemonProcess) throws -> [String] {
        if let database = daemon.databaseName {
            let text = try PostgresServer.shared().psql(database, "SELECT line FROM remindd_outcomes")
            return text.split(separator: "\n").map(String.init)
        }
        return try DaemonProcess.stateFiles(daemon.stateDirectory).outcomes.sorted().flatMap { path in
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        }
    }
}
