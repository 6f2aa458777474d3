import Foundation
import RemindTesting
import Testing

/// `dead-letters` and `dead-letters replay` against a daemon whose only sink always fails.
@Suite(.ownThread)
struct DeadLettersCommandTests {
    /// A sink that fails at once, with no retries: the first reminder becomes a dead letter.
    static let failingConfiguration = """
        {"notification":{"notificationTriggerDelay":1},
         "sinks":[{"type":"exec","name":"broken","command":["/bin/false"],"retry":{"maxAttempts":1}}]}
        """

    /// Waits (bounded) until the daemon lists a dead letter. The daemon records it in another
    /// process, after the sink's program exited, and announces it only in the journal; so the
    /// API is asked every 50 ms until the deadline (generous: the dead letter is stored with an
    /// fdatasync, which takes tens of seconds on a disk busy with a parallel suite's syncfs calls).
    static func waitForDeadLetter(_ daemon: DaemonProcess) async throws -> String {
        var body = ""
        do {
            try await waitUntil("a dead letter", within: .seconds(90), every: .milliseconds(50)) {
                body = try daemon.get("/v1/dead-letters")
                return body != #"{"deadLetters":[]}"#
            }
        } catch is DeadlineExceeded {
            Issue.record("no dead letter within 90 s")
            return ""
        }
        return body
    }

    /// An empty list is one sentence; `--json` is the API's body.
    @Test func listSaysSoWhenEmpty() throws {
        let daemon = try DaemonProcess.started()
        let result = try Remindctl.run(["dead-letters"], socket: daemon.socketPath)
        #expect(result.status == 0)
        #expect(result.standardOutput == "No dead letters.\n")
        let json = try Remindctl.run(["--json", "dead-letters", "list"], socket: daemon.socketPath)
        #expect(json.standardOutput == #"{"deadLetters":[]}"#)
    }

    /// A failed reminder is listed with its id, type, sink and error; replaying it by id
    /// re-queues it, and naming an id that is not a dead letter fails.
    @Test func listAndReplayFailedReminder() async throws {
        let daemon = try DaemonProcess.started(configuration: Self.failingConfiguration)
        try daemon.report("u-d", #"{"location":"denied"}"#)
        let api = try await Self.waitForDeadLetter(daemon)

        let result = try Remindctl.run(["dead-letters"], socket: daemon.socketPath)
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("EVENT ") && lines[0].contains("  TYPE      SINK    ATTEMPTS  DEAD SINCE"))
        #expect(lines[1].hasPrefix("u-d/") && lines[1].contains("/1  reminder  broken         1  "))
        #expect(lines[1].hasSuffix("/bin/false exited with 1"))
        let json = try Remindctl.run(["--json", "dead-letters"], socket: daemon.socketPath)
        #expect(json.standardOutput == api)

        let id = String(lines[1].prefix { $0 != " " })
        let replayed = try Remindctl.run(["dead-letters", "replay", id], socket: daemon.socketPath)
        #expect(replayed.status == 0)
        #expect(replayed.standardOutput == "Replayed 1 event; the sinks deliver them again.\n")

        let unknown = try Remindctl.run(["dead-letters", "replay", "u-d/0/9"], socket: daemon.socketPath)
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("none of the named events is a dead letter"))
    }

    /// `replay` without ids re-queues every dead letter; `--json` prints `{"replayed":N}`.
    @Test func replayWithoutIDsReplaysAll() async throws {
        let daemon = try DaemonProcess.started(configuration: Self.failingConfiguration)
        try daemon.report("u-e", #"{"location":"denied"}"#)
        _ = try await Self.waitForDeadLetter(daemon)
        let json = try Remindctl.run(["--json", "dead-letters", "replay"], socket: daemon.socketPath)
        #expect(json.status == 0)
        #expect(json.standardOutput == #"{"replayed":1}"#)
    }
}
