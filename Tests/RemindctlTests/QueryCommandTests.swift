import Foundation
import RemindCore
import RemindTesting
import Testing

/// The read-only commands against a real daemon: tables for people, the API's bytes with --json.
@Suite(.ownThread)
struct QueryCommandTests {
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// `status` shows the counts and the sink table; `--json status` is GET /v1/status's body.
    @Test func statusPrintsCountsAndSinksWhenDaemonRuns() throws {
        let daemon = try DaemonProcess.started()
        try daemon.report("u-1", #"{"location":"whileInUse"}"#)
        let result = try Remindctl.run(["status"], socket: daemon.socketPath)
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let lines = Self.lines(result.standardOutput)
        #expect(lines[0].hasPrefix("remindd ") && lines[0].contains(", running since "))
        #expect(lines.contains("users              1"))
        #expect(lines.contains("open episodes      1"))
        #expect(lines.contains("pending reminders  1"))
        #expect(lines.contains { $0.hasPrefix("next reminder      ") && $0.hasSuffix("(in 6 days)") })
        #expect(
            lines.contains(
                #"reminders          once, 7 days after Always access is lost: "App is unable to record trips""#))
        #expect(lines.contains("SINK  TYPE  DELIVERED  FAILED  PENDING"))
        #expect(lines.contains("file  file          0       0        0"))

        let json = try Remindctl.run(["--json", "status"], socket: daemon.socketPath)
        #expect(json.status == 0)
        #expect(json.standardOutput == (try daemon.get("/v1/status")))
    }

    /// `user ID` shows permissions, episode and next reminder; `--json` is the API's body, and
    /// the flag may follow the subcommand too.
    @Test func userPrintsStatusTable() throws {
        let daemon = try DaemonProcess.started()
        try daemon.report(
            "u@x.com", #"{"location":"allowOnce","notifications":"denied","timeZone":"Europe/Berlin"}"#)
        let result = try Remindctl.run(["user", "u@x.com"], socket: daemon.socketPath)
        #expect(result.status == 0)
        let lines = Self.lines(result.standardOutput)
        #expect(lines.contains("user               u@x.com"))
        #expect(lines.contains("always access      no"))
        #expect(lines.contains("location           allowOnce"))
        #expect(lines.contains("notifications      denied"))
        #expect(lines.contains("time zone          Europe/Berlin"))
        #expect(lines.contains("errors             locationNotAuthorizedAlways, notificationsTurnedOff"))
        #expect(lines.contains("reminders          0 delivered, 0 suppressed"))
        #expect(lines.contains { $0.hasPrefix("episode since      ") })
        #expect(lines.contains { $0.hasPrefix("next reminder      ") && $0.hasSuffix("(in 6 days)") })
        #expect(lines.contains("last reminder      never"))

        let json = try Remindctl.run(["user", "u@x.com", "--json"], socket: daemon.socketPath)
        #expect(json.status == 0)
        #expect(json.standardOutput == (try daemon.get("/v1/users/u%40x.com")))
    }

    /// With asks on, `user` shows the episode's asks and engagement and the ask the next report
    /// would get; `stats --funnel` prints the funnel by group, reason and platform and the
    /// resolution after an accepted ask.
    @Test func userAndStatsShowTheAppsSide() throws {
        let daemon = try DaemonProcess.started(
            configuration: #"{"inApp":{"enabled":true,"minIntervalSeconds":3600}}"#)
        let answer = try daemon.post(
            "app-1", #"{"location":"whileInUse","platform":"iOS 18.1","canPrompt":["location"]}"#)
        guard case .object(let body) = try JSONParser.parse(answer.body), case .object(let ask)? = body["ask"],
            case .string(let askID)? = ask["id"]
        else { throw POSIXError(.EPROTO) }
        let events = #"{"events":[{"type":"askShown","id":"\#(askID)"},{"type":"askAccepted","id":"\#(askID)"}]}"#
        #expect(try daemon.client.send("POST", "/v1/users/app-1/events", body: Array(events.utf8)).status == 200)

        let user = try Remindctl.run(["user", "app-1"], socket: daemon.socketPath)
        #expect(user.status == 0)
        let lines = Self.lines(user.standardOutput)
        #expect(lines.contains { $0.hasPrefix("episode since ") && $0.hasSuffix("(first)") })
        #expect(lines.contains("in the app         0 reminder(s) opened; 1 ask(s) given, 1 shown, 1 accepted"))
        #expect(
            lines.contains {
                $0.hasPrefix(
                    "next ask           the next report gets no ask: the last ask was less than inApp.minIntervalSeconds ago; one is due from "
                )
            })

        let stats = try Remindctl.run(["stats", "--funnel"], socket: daemon.socketPath)
        #expect(stats.status == 0)
        let table = Self.lines(stats.standardOutput)
        // Never reminded (the delay is a week): the ordered funnel stops at the first step.
        #expect(table.contains("GROUP    EPISODES  REMINDED  OPENED  ASKED  SHOWN  ACCEPTED  RESOLVED"))
        #expect(table.contains("default         1  0 (0.0%)   0 (—)  0 (—)  0 (—)     0 (—)     0 (—)"))
        #expect(table.contains("ios              1  0 (0.0%)   0 (—)  0 (—)  0 (—)     0 (—)     0 (—)"))
        #expect(table.contains("default         1         0  0.0%  0.0%–79.3%             0         0     —  —"))
        // The outcomes view splits the episodes by how they opened.
        let outcomes = Self.lines(try Remindctl.run(["stats"], socket: daemon.socketPath).standardOutput)
        #expect(outcomes.contains("OPENING  EPISODES  RESOLVED  RATE  95% CI"))
        #expect(outcomes.contains("first           1         0  0.0%  0.0%–79.3%"))
    }

    /// `explain ID` prints the policy's reasons, numbered, in the API's order.
    @Test func explainPrintsReasonsInOrder() throws {
        let daemon = try DaemonProcess.started()
        try daemon.report("u-2", #"{"location":"whileInUse","accuracy":"reduced","notifications":"denied"}"#)
        let api = try daemon.get("/v1/users/u-2/explain")
        guard case .object(let object) = try JSONParser.parse(api), case .array(let reasons)? = object["reasons"]
        else { throw POSIXError(.EPROTO) }
        let texts = reasons.compactMap { reason -> String? in
            guard case .object(let reason) = reason, case .string(let text)? = reason["text"] else { return nil }
            return text
        }
        #expect(texts.count == 4)
        #expect(texts[0].hasPrefix("Always access missing since "))
        #expect(texts[3].hasPrefix("no push address reported"))

        let result = try Remindctl.run(["explain", "u-2"], socket: daemon.socketPath)
        #expect(result.status == 0)
        let lines = Self.lines(result.standardOutput)
        #expect(lines[0].hasPrefix("u-2: next reminder ") && lines[0].hasSuffix("(in 6 days)"))
        #expect(Array(lines.dropFirst()) == texts.enumerated().map { "  \($0.offset + 1). \($0.element)" } + [""])

        let json = try Remindctl.run(["--json", "explain", "u-2"], socket: daemon.socketPath)
        #expect(json.standardOutput == api)
    }

    /// `history ID --limit 1` shows only the newest change, under a header.
    @Test func historyListsNewestChangeFirstWithLimit() throws {
        let daemon = try DaemonProcess.started()
        let now = Date()
        let older = RFC3339.format(now.addingTimeInterval(-2 * 86_400))
        let newer = RFC3339.format(now.addingTimeInterval(-86_400))
        try daemon.report("u-3", #"{"location":"denied","observedAt":"\#(older)"}"#)
        try daemon.report("u-3", #"{"location":"always","observedAt":"\#(newer)"}"#)
        let all = try Remindctl.run(["history", "u-3"], socket: daemon.socketPath)
        #expect(all.status == 0)
        let lines = Self.lines(all.standardOutput)
        #expect(lines[0].hasPrefix("OBSERVED "))
        #expect(lines[0].hasSuffix("  LOCATION  ACCURACY  SERVICES  NOTIFICATIONS  TIME ZONE  ERRORS"))
        #expect(lines[1].hasSuffix("(24 hours ago)  always    full      on        unknown        -          -"))
        #expect(
            lines[2].hasSuffix(
                "(2 days ago)    denied    full      on        unknown        -          locationNotAuthorizedAlways"))
        #expect(lines.count == 4)

        let limited = try Remindctl.run(["history", "u-3", "--limit", "1"], socket: daemon.socketPath)
        #expect(Self.lines(limited.standardOutput).count == 3)
        let json = try Remindctl.run(["--json", "history", "u-3", "--limit", "1"], socket: daemon.socketPath)
        #expect(json.standardOutput == (try daemon.get("/v1/users/u-3/history?limit=1")))
    }

    /// `pending` lists reminders soonest first; `--before` leaves out later ones.
    @Test func pendingListsRemindersSoonestFirst() throws {
        let daemon = try DaemonProcess.started()
        let now = Date()
        let earlier = RFC3339.format(now.addingTimeInterval(-2 * 86_400))
        try daemon.report("u-late", #"{"location":"denied"}"#)
        try daemon.report("u-early", #"{"location":"whileInUse","observedAt":"\#(earlier)"}"#)
        let result = try Remindctl.run(["pending"], socket: daemon.socketPath)
        #expect(result.status == 0)
        let lines = Self.lines(result.standardOutput)
        #expect(lines[0].hasPrefix("DUE ") && lines[0].hasSuffix("USER     SEQUENCE  REASON"))
        #expect(lines[1].contains("(in 4 days)  u-early         1  locationNotAuthorizedAlways"))
        #expect(lines[2].contains("(in 6 days)  u-late          1  locationNotAuthorizedAlways"))

        let before = try Remindctl.run(["pending", "--before", "6d"], socket: daemon.socketPath)
        #expect(Self.lines(before.standardOutput).count == 3)
        #expect(before.standardOutput.contains("u-early") && !before.standardOutput.contains("u-late"))
        let none = try Remindctl.run(["pending", "--before", "2020-01-01T00:00:00Z"], socket: daemon.socketPath)
        #expect(none.standardOutput.hasPrefix("No reminders due before 2020-01-01 00:00:00"))

        let json = try Remindctl.run(["--json", "pending", "--limit", "1"], socket: daemon.socketPath)
        #expect(json.standardOutput == (try daemon.get("/v1/reminders?limit=1")))
    }
}
