import Foundation
import RemindTesting
import Testing

/// Colour goes to terminals only, and never with `NO_COLOR`.
@Suite(.ownThread)
struct TerminalOutputTests {
    static let escape = "\u{1B}["

    /// On a terminal the status table is coloured: the test that the terminal is seen as one.
    @Test func colourOnTerminal() throws {
        let daemon = try DaemonProcess.started()
        try daemon.report("u-c", #"{"location":"whileInUse"}"#)
        let terminal = try PseudoTerminal()
        let result = try Remindctl.run(
            ["user", "u-c"], socket: daemon.socketPath, environment: ["TERM": "xterm"],
            standardOutput: terminal.secondary)
        #expect(result.status == 0)
        #expect(terminal.output().contains(Self.escape))
    }

    /// With `NO_COLOR` set, the same output on a terminal has no escape sequence at all.
    @Test func noColourWithNoColorOnTerminal() throws {
        let daemon = try DaemonProcess.started()
        try daemon.report("u-c", #"{"location":"whileInUse"}"#)
        for arguments in [["user", "u-c"], ["status"], ["history", "u-c"], ["explain", "u-c"]] {
            let terminal = try PseudoTerminal()
            let result = try Remindctl.run(
                arguments, socket: daemon.socketPath, environment: ["TERM": "xterm", "NO_COLOR": "1"],
                standardOutput: terminal.secondary)
            #expect(result.status == 0)
            let output = terminal.output()
            #expect(output.count > 20, "\(arguments)")
            #expect(!output.contains("\u{1B}"), "\(arguments)")
        }
    }

    /// Output into a file or pipe has no escape sequences either.
    @Test func noColourWhenNotTerminal() throws {
        let daemon = try DaemonProcess.started()
        try daemon.report("u-c", #"{"location":"whileInUse"}"#)
        let result = try Remindctl.run(["user", "u-c"], socket: daemon.socketPath, environment: ["TERM": "xterm"])
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("\u{1B}"))
    }
}
