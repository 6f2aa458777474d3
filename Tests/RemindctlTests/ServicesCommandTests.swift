import Foundation
import RemindTesting
import Testing

/// `remindctl user`, `explain`, `status` and `report` with motion, a locale and services
/// configured: what is broken, and what would fix it.
@Suite(.ownThread)
struct ServicesCommandTests {
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    static func daemon() throws -> DaemonProcess {
        try DaemonProcess.started(
            configuration: """
                {"sinks":[{"type":"file","path":"/dev/null"}],
                 "services":{"driving":{"requires":["location","always"],"optional":["precise","motion"]},
                             "walking":{"requires":["motion"]}}}
                """)
    }

    /// `report --motion --locale` sends them; `user` shows motion, the locale, each service's
    /// state and, for what is broken, the fix.
    @Test func userNamesBrokenServicesAndTheirFixes() throws {
        let daemon = try Self.daemon()
        let report = try Remindctl.run(
            [
                "report", "u-1", "--location", "whileInUse", "--accuracy", "reduced", "--motion", "denied", "--locale",
                "de-CH",
            ],
            socket: daemon.socketPath)
        #expect(report.status == 0, "\(report.standardError)")
        let result = try Remindctl.run(["user", "u-1"], socket: daemon.socketPath)
        #expect(result.status == 0)
        let lines = Self.lines(result.standardOutput)
        #expect(lines.contains("motion             denied"))
        #expect(lines.contains("locale             de-CH"))
        #expect(lines.contains("SERVICE  STATE              MISSING"))
        #expect(lines.contains("driving  permissionMissing  always, precise, motion"))
        #expect(lines.contains("walking  permissionMissing  motion"))
        #expect(lines.contains("To fix:"))
        #expect(lines.contains { $0.hasPrefix("  always (driving): set the app's location access to Always") })
        #expect(lines.contains { $0.hasPrefix("  motion (driving, walking): allow Motion & Fitness") })
        let bad = try Remindctl.run(
            ["report", "u-1", "--location", "always", "--locale", "de_CH"], socket: daemon.socketPath)
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("--locale"))
    }

    /// `explain` ends with the broken services; `status` counts users per service and state.
    @Test func explainAndStatusNameTheServices() throws {
        let daemon = try Self.daemon()
        try daemon.report("u-1", #"{"location":"always","motion":"authorized"}"#)
        try daemon.report("u-2", #"{"location":"whileInUse","motion":"authorized"}"#)
        let explain = try Remindctl.run(["explain", "u-2"], socket: daemon.socketPath)
        #expect(explain.status == 0)
        #expect(explain.standardOutput.contains("service driving is permissionMissing — to fix, always: set the app's"))
        let status = try Remindctl.run(["status"], socket: daemon.socketPath)
        let lines = Self.lines(status.standardOutput)
        #expect(lines.contains("SERVICE  ACTIVE  DEGRADED  PERMISSION MISSING"))
        #expect(lines.contains("driving       1         0                   1"))
        #expect(lines.contains("walking       2         0                   0"))
    }
}
