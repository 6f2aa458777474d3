import Foundation
import RemindTesting
import Testing

/// The commands that change the daemon's state: report, forget, reload.
@Suite(.ownThread)
struct ChangeCommandTests {
    /// `report` stores what the flags say and prints the resulting status; `--json` prints the
    /// API's answer, which is what GET then returns.
    @Test func reportStoresFlagsAndPrintsStatus() throws {
        let daemon = try DaemonProcess.started()
        let result = try Remindctl.run(
            [
                "report", "u-5", "--location", "whileInUse", "--accuracy", "reduced", "--services", "off",
                "--notifications", "authorized", "--time-zone", "Europe/Berlin",
            ], socket: daemon.socketPath)
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("Stored the report for u-5.\n\nuser               u-5\n"))
        #expect(result.standardOutput.contains("\nlocation services  off\n"))
        #expect(result.standardOutput.contains("\naccuracy           reduced\n"))
        let errors = "locationServicesTurnedOff, locationNotAuthorizedAlways, preciseLocationNotEnabled"
        #expect(result.standardOutput.contains("\nerrors             \(errors)\n"))
        let stored = try daemon.get("/v1/users/u-5")
        #expect(stored.contains(#""timeZone":"Europe/Berlin""#))
        #expect(stored.contains(#""notifications":"authorized""#))

        let json = try Remindctl.run(
            ["--json", "report", "u-5", "--location", "always", "--observed-at", "2026-01-01T00:00:00Z"],
            socket: daemon.socketPath)
        #expect(json.status == 0)
        // The report's answer: the status a GET shows, with the ask last (none: `inApp` is off).
        #expect(json.standardOutput == String(try daemon.get("/v1/users/u-5").dropLast()) + #","ask":null}"#)
    }

    /// A value `--location` does not know is a usage error naming the flag; nothing is sent.
    @Test func reportRefusesUnknownLocationNamingFlag() throws {
        let daemon = try DaemonProcess.started()
        let result = try Remindctl.run(["report", "u-6", "--location", "sideways"], socket: daemon.socketPath)
        #expect(result.status == 2)
        #expect(result.standardError.contains("'sideways' is invalid for '--location <location>'"))
        #expect(result.standardOutput == "")
        #expect(try daemon.client.send("GET", "/v1/users/u-6").status == 404)
    }

    /// Bad values of other flags are usage errors too, each naming what is wrong.
    @Test func badFlagValuesExitWithUsageCode() throws {
        let cases: [([String], String)] = [
            (["report", "u-6", "--location", "always", "--services", "maybe"], "--services"),
            (["report", "u-6", "--location", "always", "--time-zone", "Mars/Olympus"], "--time-zone"),
            (["report", "u-6", "--location", "always", "--observed-at", "yesterday"], "--observed-at"),
            (["report", "u-6"], "--location"),
            (["pending", "--before", "soon"], "--before"),
            (["history", "u-6", "--limit", "0"], "--limit"),
            (["user", "a/b"], "user ID"),
            (["frobnicate"], "frobnicate"),
        ]
        for (arguments, named) in cases {
            let result = try Remindctl.run(arguments, socket: "/nonexistent/r.sock")
            #expect(result.status == 2, "\(arguments)")
            #expect(result.standardError.contains(named), "\(arguments): \(result.standardError)")
        }
    }

    /// Without a terminal `forget` refuses to run unless given `--yes`, and says so.
    @Test func forgetNeedsYesWithoutTerminal() throws {
        let daemon = try DaemonProcess.started()
        try daemon.report("u-7", #"{"location":"denied"}"#)
        let refused = try Remindctl.run(["forget", "u-7"], socket: daemon.socketPath)
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("--yes"))
        #expect(try daemon.client.send("GET", "/v1/users/u-7").status == 200)

        let forgotten = try Remindctl.run(["forget", "u-7", "--yes"], socket: daemon.socketPath)
        #expect(forgotten.status == 0)
        #expect(forgotten.standardOutput == "Forgot u-7.\n")
        #expect(try daemon.client.send("GET", "/v1/users/u-7").status == 404)

        let again = try Remindctl.run(["forget", "u-7", "--yes"], socket: daemon.socketPath)
        #expect(again.status == 1)
        #expect(again.standardError == "remindctl: no user u-7\n")
    }

    /// On a terminal `forget` asks: "n" keeps the user (exit 1), "y" forgets them.
    @Test func forgetAsksOnTerminal() throws {
        let daemon = try DaemonProcess.started()
        try daemon.report("u-8", #"{"location":"denied"}"#)
        let declining = try PseudoTerminal()
        declining.type("n\n")
        let kept = try Remindctl.run(["forget", "u-8"], socket: daemon.socketPath, standardInput: declining.secondary)
        #expect(kept.status == 1)
        #expect(kept.standardError.contains("Forget u-8 and their whole history? [y/N] "))
        #expect(try daemon.client.send("GET", "/v1/users/u-8").status == 200)

        let confirming = try PseudoTerminal()
        confirming.type("y\n")
        let forgotten = try Remindctl.run(
            ["forget", "u-8"], socket: daemon.socketPath, standardInput: confirming.secondary)
        #expect(forgotten.status == 0)
        #expect(forgotten.standardOutput == "Forgot u-8.\n")
        #expect(try daemon.client.send("GET", "/v1/users/u-8").status == 404)
    }

    /// `reload` applies a changed file; an invalid one fails with the key path and is not applied.
    @Test func reloadAppliesValidFileAndRefusesInvalidOne() throws {
        let daemon = try DaemonProcess.started()
        let sinks = #""sinks":[{"type":"file","path":"\#(daemon.directory)/events.jsonl"}]"#
        try #"{"notification":{"notificationTriggerDelay":3600},\#(sinks)}"#.write(
            toFile: daemon.configPath, atomically: true, encoding: .utf8)
        let reloaded = try Remindctl.run(["reload"], socket: daemon.socketPath)
        #expect(reloaded.status == 0)
        #expect(reloaded.standardOutput == "Reloaded the configuration.\n")
        let status = try Remindctl.run(["status"], socket: daemon.socketPath)
        #expect(status.standardOutput.contains("once, 1 hour after Always access is lost"))

        try #"{"schedule":{"jitterSeconds":-1},\#(sinks)}"#.write(
            toFile: daemon.configPath, atomically: true, encoding: .utf8)
        let refused = try Remindctl.run(["reload"], socket: daemon.socketPath)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("schedule.jitterSeconds: must be at least 0"))
        #expect(refused.standardOutput == "")

        try #"{\#(sinks)}"#.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        let json = try Remindctl.run(["--json", "reload"], socket: daemon.socketPath)
        #expect(json.status == 0)
        #expect(json.standardOutput == (try daemon.get("/v1/config")))
    }
}
