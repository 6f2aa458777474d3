import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The app's side of the loop against the real binary, on the suite's backend (files, parts or
/// PostgreSQL): answers carry asks within the caps, worded by the platform's copy; the app's
/// events count once each, a bad one refuses its request whole; and after `kill -9` nothing
/// acknowledged is lost and nothing counts twice.
@Suite(.ownThread, .serialized)
struct InAppEndToEndTests {
    static let configuration =
        #""inApp":{"enabled":true,"maxPerEpisode":2,"minIntervalSeconds":0},"#
        + #""notification":{"inAppTitle":"Trips need Always","platforms":{"ios":{"inAppButton":"Allow Always"}}}"#

    static func object(_ reply: HTTPReply) throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(reply.body) else { throw POSIXError(.EPROTO) }
        return object
    }

    static func ask(_ reply: HTTPReply) throws -> JSONObject? {
        switch try object(reply)["ask"] {
        case .object(let ask)?: return ask
        case .null?: return nil
        default: throw POSIXError(.EPROTO)
        }
    }

    static func events(_ daemon: DaemonProcess, _ user: String, _ json: String) throws -> HTTPReply {
        try daemon.client.send("POST", "/v1/users/\(user)/events", body: Array(#"{"events":\#(json)}"#.utf8))
    }

    /// The open episode's counters as `GET /v1/users/{id}` shows them.
    static func episode(_ daemon: DaemonProcess, _ user: String) throws -> [String: JSONValue] {
        let status = try daemon.client.send("GET", "/v1/users/\(user)")
        guard case .object(let episode)? = try object(status)["episode"] else { return [:] }
        return Dictionary(uniqueKeysWithValues: episode.members.map { ($0.key, $0.value) })
    }

    @Test func asksAndEventsAreDurableAndCountedOnce() async throws {
        let daemon = try DaemonProcess(configuration: Self.configuration)
        try daemon.start()
        let user = "app-user"

        // The first answer asks for the system's dialog (the app can still ask), the second,
        // once the app cannot, for the app's Settings page; the cap then stops them.
        let first = try daemon.post(
            user, #"{"location":"whileInUse","platform":"iOS 18.1","canPrompt":["location"]}"#)
        let a1 = try #require(try Self.ask(first))
        #expect(a1["action"] == .string("prompt") && a1["page"] == .null)
        #expect(a1["reason"] == .string("locationNotAuthorizedAlways") && a1["group"] == .string("default"))
        #expect(a1["title"] == .string("Trips need Always") && a1["button"] == .string("Allow Always"))
        #expect(a1["body"] == .string(LocationNotificationConfiguration.defaultDescription))
        guard case .string(let a1ID)? = a1["id"] else { throw POSIXError(.EPROTO) }
        #expect(a1ID.hasPrefix("\(user)/") && a1ID.hasSuffix("/a1"))
        let a2 = try #require(try Self.ask(try daemon.post(user, #"{"location":"whileInUse","canPrompt":[]}"#)))
        #expect(a2["action"] == .string("settings") && a2["page"] == .string("app"))
        guard case .string(let a2ID)? = a2["id"] else { throw POSIXError(.EPROTO) }
        #expect(a2ID.hasSuffix("/a2"))
        let capped = try daemon.post(user, #"{"location":"whileInUse"}"#)
        #expect(capped.status == 200)
        #expect(try Self.ask(capped) == nil)
        #expect(try Self.episode(daemon, user)["asks"] == .int(2))

        // Events: new ones counted, repeats not; a bad one refuses the request whole.
        let shown = #"[{"type":"askShown","id":"\#(a1ID)"},{"type":"askAccepted","id":"\#(a1ID)"}]"#
        #expect(try Self.events(daemon, user, shown).text == #"{"accepted":2}"#)
        #expect(try Self.events(daemon, user, shown).text == #"{"accepted":0}"#)
        let bad = try Self.events(
            daemon, user, #"[{"type":"askShown","id":"\#(a2ID)"},{"type":"askShown","id":"other/1/a1"}]"#)
        #expect(bad.status == 422 && bad.text.contains(#""field":"events[1].id""#))
        #expect(
            try Self.events(daemon, user, #"[{"type":"askClicked","id":"\#(a2ID)"}]"#).text.contains("events[0].type"))
        #expect(try Self.events(daemon, "nobody", shown).status == 404)
        // A report refused for its events stores nothing of itself either.
        let refused = try daemon.post(
            user, #"{"location":"always","events":[{"type":"reminderOpened","id":"\#(user)/1/1"}]}"#)
        #expect(refused.status == 422 && refused.text.contains("events[0].id"))
        let counters = try Self.episode(daemon, user)
        #expect(counters["asksShown"] == .int(1) && counters["asksAccepted"] == .int(1))
        // Events inside a report apply with it.
        let dismissed = try daemon.post(
            user, #"{"location":"whileInUse","events":[{"type":"askDismissed","id":"\#(a2ID)"}]}"#)
        #expect(dismissed.status == 200)
        #expect(try Self.ask(dismissed) == nil)

        // kill -9: every acknowledged ask and event is there, and sending them again adds nothing.
        #expect(daemon.stop(signal: SIGKILL) == SIGKILL)
        try daemon.start()
        let after = try Self.episode(daemon, user)
        #expect(after["asks"] == .int(2) && after["asksShown"] == .int(1) && after["asksAccepted"] == .int(1))
        #expect(try Self.events(daemon, user, shown).text == #"{"accepted":0}"#)
        let history = try daemon.get("/v1/users/\(user)/history")
        for type in ["asked", "askShown", "askAccepted", "askDismissed"] {
            #expect(history.contains(#""type":"\#(type)""#), "\(type)")
        }
        let explain = try daemon.get("/v1/users/\(user)/explain")
        #expect(explain.contains("2 asks were given in this episode (inApp.maxPerEpisode)"))
        #expect(explain.contains("2 ask(s) given, 1 shown, 1 accepted"))

        // Always access closes the episode: no ask.
        let fixed = try daemon.post(user, #"{"location":"always"}"#)
        #expect(fixed.status == 200)
        #expect(try Self.ask(fixed) == nil)
        #expect(daemon.stop() == 0)
    }

    /// One user through every step: reminded, the reminder opened, asked, shown, accepted and
    /// fixed; `/v1/stats` counts them in the funnel (by group and platform, with
    /// `resolvedAfterAsk`), `/metrics` in `remindd_funnel_total`, and the outcome line carries
    /// what the app reported.
    @Test func theFunnelFollowsWhatTheAppReported() async throws {
        let daemon = try DaemonProcess(
            configuration: #""notification":{"notificationTriggerDelay":1},"inApp":{"enabled":true}"#)
        try daemon.start()
        let user = "funnel-user"
        let asked = try daemon.post(user, #"{"location":"whileInUse","platform":"Android 14"}"#)
        let ask = try #require(try Self.ask(asked))
        guard case .string(let askID)? = ask["id"] else { throw POSIXError(.EPROTO) }
        let events = try await daemon.waitForEvents(1)
        try #require(events.count == 1)
        guard case .object(let reminder) = try JSONParser.parse(Array(events[0].utf8)),
            case .string(let reminderID)? = reminder["id"]
        else { throw POSIXError(.EPROTO) }
        let reported =
            #"[{"type":"reminderOpened","id":"\#(reminderID)"},{"type":"askShown","id":"\#(askID)"},"#
            + #"{"type":"askAccepted","id":"\#(askID)"}]"#
        #expect(try Self.events(daemon, user, reported).text == #"{"accepted":3}"#)
        #expect(try daemon.post(user, #"{"location":"always"}"#).status == 200)

        let stats = try Self.object(try daemon.client.send("GET", "/v1/stats"))
        guard case .object(let funnel)? = stats["funnel"], case .object(let group)? = funnel["default"],
            case .object(let byPlatform)? = funnel["byPlatform"], case .object(let after)? = stats["resolvedAfterAsk"]
        else { throw POSIXError(.EPROTO) }
        for step in FunnelAggregate.steps {
            guard case .object(let counts)? = group[step] else { throw POSIXError(.EPROTO) }
            #expect(counts["count"] == .int(1), "\(step)")
        }
        #expect(byPlatform.keys == ["android"])
        guard case .object(let accepted)? = after["default"], case .object(let split)? = accepted["accepted"] else {
            throw POSIXError(.EPROTO)
        }
        #expect(split["episodes"] == .int(1) && split["resolved"] == .int(1))
        let metrics = try daemon.get("/metrics")
        #expect(metrics.contains(#"remindd_funnel_total{group="default",step="resolved"} 1"#))
        #expect(metrics.contains(#"remindd_funnel_total{group="default",step="accepted"} 1"#))
        #expect(daemon.stop() == 0)
        // The outcome line (files: the outcomes log) carries what the app reported.
        if !DaemonProcess.usesPostgres {
            let lines = try DaemonProcess.stateFiles(daemon.stateDirectory).outcomes.map {
                try String(contentsOfFile: $0, encoding: .utf8)
            }.joined()
            #expect(
                lines.contains(
                    #""opening":"first","opened":1,"asks":1,"asksShown":1,"asksAccepted":1,"channels":["push"]}"#))
        }
    }

    /// Users who gained Always long ago: `alwaysKept` counts who still had it 7 and 30 days
    /// later (none 90 days on yet), overall and by platform; `byOpening` tells a downgrade from
    /// a first episode.
    @Test func alwaysKeptAndOpenings() async throws {
        let daemon = try DaemonProcess(configuration: "")
        try daemon.start()
        func ago(_ days: Double) -> String { RFC3339.format(Date().addingTimeInterval(-days * 86_400)) }
        try daemon.report("kept", #"{"location":"always","platform":"iOS 18","observedAt":"\#(ago(40))"}"#)
        try daemon.report("lost", #"{"location":"always","platform":"iOS 18","observedAt":"\#(ago(40))"}"#)
        try daemon.report("lost", #"{"location":"whileInUse","observedAt":"\#(ago(38))"}"#)
        try daemon.report("new", #"{"location":"whileInUse","platform":"Android 14"}"#)
        let posted = Date()
        let since = RFC3339.format(Date().addingTimeInterval(-60 * 86_400))
        let path = "/v1/stats?since=\(since)"
        // The histories are read in the background: until a reading after the reports.
        var stats: JSONObject = [:]
        try await waitUntil(
            "a reading of the histories after the reports", within: .seconds(60), every: .milliseconds(200)
        ) {
            guard let answer = try? Self.object(try daemon.client.send("GET", path)),
                case .object(let kept)? = answer["alwaysKept"], case .string(let at)? = kept["computedAt"],
                let computedAt = RFC3339.parse(at), computedAt > posted
            else { return false }
            stats = answer
            return true
        }
        guard case .object(let kept)? = stats["alwaysKept"], case .object(let week)? = kept["7"],
            case .object(let month)? = kept["30"], case .object(let quarter)? = kept["90"],
            case .object(let byPlatform)? = kept["byPlatform"], case .object(let openings)? = stats["byOpening"]
        else { throw POSIXError(.EPROTO) }
        #expect(week["users"] == .int(2) && week["kept"] == .int(1))
        #expect(month["users"] == .int(2) && month["kept"] == .int(1))
        #expect(quarter["users"] == .int(0) && quarter["rate"] == .null)
        #expect(byPlatform.keys == ["ios"])
        guard case .object(let downgrade)? = openings["downgrade"], case .object(let first)? = openings["first"] else {
            throw POSIXError(.EPROTO)
        }
        #expect(downgrade["episodes"] == .int(1) && first["episodes"] == .int(1))
        #expect(daemon.stop() == 0)
    }

    /// A bulk line is answered as a single report is: with its ask, each user's own; a line
    /// whose events name what its user never got is refused alone (422) and stores nothing.
    @Test func bulkLinesCarryTheirAsks() throws {
        let daemon = try DaemonProcess(configuration: Self.configuration)
        try daemon.start()
        let body =
            #"{"userID":"bulk-1","location":"whileInUse","platform":"Android 14"}"# + "\n"
            + #"{"userID":"bulk-2","location":"always"}"# + "\n"
            + #"{"userID":"bulk-3","location":"whileInUse","events":[{"type":"askShown","id":"bulk-3/1/a1"}]}"# + "\n"
        let reply = try daemon.client.send(
            "POST", "/v1/reports", body: Array(body.utf8), headers: ["Content-Type": "application/x-ndjson"])
        #expect(reply.status == 200)
        let lines = reply.text.split(separator: "\n").map { String($0) }
        try #require(lines.count == 3)
        #expect(lines[0].contains(#""ask":{"id":"bulk-1/"#) && lines[0].contains(#""button":"Open Settings"}"#))
        #expect(lines[1].hasSuffix(#","ask":null}"#))
        #expect(lines[2].contains(#""status":422"#) && lines[2].contains(#""field":"events[0].id""#))
        #expect(try daemon.client.send("GET", "/v1/users/bulk-3").status == 404)
        #expect(daemon.stop() == 0)
    }
}
