import Foundation
import RemindCore
import RemindTesting
import Testing

/// `remindctl stats`: the outcomes table, `--json` as the API answers, flags checked.
@Suite(.ownThread)
struct StatsCommandTests {
    @Test func statsPrintsTheGroupsAndJSONAsTheAPI() throws {
        let daemon = try DaemonProcess.started(configuration: #"{"sinks":[{"type":"file","path":"/dev/null"}]}"#)
        try daemon.report("u-1", #"{"location":"whileInUse"}"#)
        try daemon.report("u-1", #"{"location":"always"}"#)
        try daemon.report("u-2", #"{"location":"denied"}"#)
        let result = try Remindctl.run(["stats", "--since", "1d"], socket: daemon.socketPath)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Episodes that opened from ") == true)
        let header = try #require(lines.first { $0.hasPrefix("GROUP") })
        #expect(header.contains("RATE") && header.contains("95% CI") && header.contains("UPLIFT"))
        let row = try #require(lines.first { $0.hasPrefix("default") })
        let cells = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // default, 2 episodes, 1 resolved, 1 open, 0 forgotten, 50.0%.
        #expect(Array(cells.prefix(6)) == ["default", "2", "1", "1", "0", "50.0%"])
        #expect(lines.contains { $0.hasPrefix("locationNotAuthorizedAlways") })
        // Nobody was reminded yet (the delay is a week): no channel to compare.
        #expect(!lines.contains { $0.hasPrefix("CHANNEL") })

        let since = "2000-01-01T00:00:00Z"
        let json = try Remindctl.run(["--json", "stats", "--since", since], socket: daemon.socketPath)
        #expect(json.status == 0)
        let api = try daemon.get("/v1/stats?since=\(since)")
        // The same window asked twice a moment apart: equal but for `until`, which is now.
        func withoutUntil(_ text: String) throws -> JSONValue {
            guard case .object(let object) = try JSONParser.parse(Array(text.utf8)) else { return .null }
            return .object(JSONObject(object.members.filter { $0.key != "until" }))
        }
        #expect(try withoutUntil(json.standardOutput) == withoutUntil(api))
    }

    /// With a fallback sink and no push sink, reminded episodes took the fallback: the channel
    /// table shows them, as `byChannel` counts them.
    @Test func statsShowsTheChannels() async throws {
        let daemon = try DaemonProcess.started(
            configuration:
                #"{"notification":{"notificationTriggerDelay":1},"sinks":[{"type":"file","path":"/dev/null"},{"type":"file","name":"mail","role":"fallback","path":"/dev/null"}]}"#
        )
        try daemon.report("u-1", #"{"location":"whileInUse"}"#)
        try await waitUntil("the reminder", within: .seconds(60)) {
            (try? daemon.get("/v1/users/u-1").contains(#""remindersDelivered":1"#)) == true
        }
        try daemon.report("u-1", #"{"location":"always"}"#)
        let result = try Remindctl.run(["stats"], socket: daemon.socketPath)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("CHANNEL   EPISODES  RESOLVED    RATE  95% CI"), "\(result.standardOutput)")
        #expect(lines.contains { $0.hasPrefix("fallback") && $0.contains("1         1  100.0%") })
        #expect(lines.contains { $0.hasPrefix("push") && $0.contains("0         0       —") })
    }

    @Test(arguments: [["stats", "--since", "yesterday"], ["stats", "--until", "12x"]])
    func badTimesAreUsageErrorsNamingTheFlag(arguments: [String]) throws {
        let result = try Remindctl.run(arguments, socket: "/nonexistent.sock")
        #expect(result.status == 2)
        #expect(result.standardError.contains(arguments[1]))
    }
}
