import Foundation
import RemindTesting
import Testing

/// Exit codes scripts rely on: 1 when the daemon says no, 3 when nothing answers.
@Suite(.ownThread)
struct ExitCodeTests {
    /// With nothing listening, every daemon command exits 3, naming the socket and the next step.
    @Test func unreachableDaemonExitsThreeNamingSocket() throws {
        let directory = try BuildProducts.temporaryDirectory("remindctl-none")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/missing.sock"
        for arguments in [["status"], ["user", "u-1"], ["dead-letters"], ["forget", "u-1", "--yes"]] {
            let result = try Remindctl.run(arguments, socket: socket)
            #expect(result.status == 3, "\(arguments)")
            #expect(result.standardError.contains(socket))
            #expect(result.standardError.contains("systemctl status remindd"))
            #expect(result.standardOutput == "")
        }
    }

    /// `$REMINDD_SOCKET` names the socket when `--socket` does not, and `--socket` wins over it.
    @Test func socketComesFromEnvironmentUnlessFlagGiven() throws {
        let daemon = try DaemonProcess.started()
        let fromEnvironment = try Remindctl.run(["status"], environment: ["REMINDD_SOCKET": daemon.socketPath])
        #expect(fromEnvironment.status == 0)
        let overridden = try Remindctl.run(
            ["status"], socket: daemon.directory + "/other.sock", environment: ["REMINDD_SOCKET": daemon.socketPath])
        #expect(overridden.status == 3)
        #expect(overridden.standardError.contains(daemon.directory + "/other.sock"))
    }

    /// A stale socket file (the daemon gone) is unreachable too, not a protocol failure.
    @Test func stoppedDaemonExitsThree() throws {
        let daemon = try DaemonProcess.started()
        #expect(daemon.stop() == 0)
        let result = try Remindctl.run(["status"], socket: daemon.socketPath)
        #expect(result.status == 3)
        #expect(result.standardError.contains(daemon.socketPath))
    }

    /// The daemon's 404 for an unknown user is exit 1 with the problem's detail on stderr,
    /// for table and JSON output alike.
    @Test func unknownUserExitsOneWithProblemDetail() throws {
        let daemon = try DaemonProcess.started()
        for arguments in [
            ["user", "nobody"], ["--json", "user", "nobody"], ["explain", "nobody"], ["history", "nobody"],
        ] {
            let result = try Remindctl.run(arguments, socket: daemon.socketPath)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.standardError == "remindctl: no user nobody\n")
            #expect(result.standardOutput == "")
        }
    }

    /// A report the daemon refuses (observed too far in the future) is exit 1 with its detail.
    @Test func refusedReportExitsOneWithProblemDetail() throws {
        let daemon = try DaemonProcess.started()
        let result = try Remindctl.run(
            ["report", "u-f", "--location", "always", "--observed-at", "2999-01-01T00:00:00Z"],
            socket: daemon.socketPath)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("remindctl: observedAt "))
    }
}
