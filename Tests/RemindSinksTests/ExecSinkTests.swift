import Foundation
import RemindCore
import RemindSinks
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

struct ExecSinkTests {
    static func temporary(_ name: String) -> String {
        NSTemporaryDirectory() + "exec-sink-\(UUID().uuidString)-\(name)"
    }

    /// The command gets the event's JSON on stdin and its id, user, type, title and body in
    /// the environment; exit 0 is delivered.
    @Test func commandGetsEventOnStdinAndEnvironment() async throws {
        let output = Self.temporary("out")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let script =
            #"cat > "$0"; printf '\n%s|%s|%s|%s|%s' "$REMINDD_EVENT_TYPE" "$REMINDD_EVENT_ID" "$REMINDD_USER_ID" "$REMINDD_TITLE" "$REMINDD_BODY" >> "$0""#
        let sink = ExecSink(command: ["/bin/sh", "-c", script, output])
        let event = FileSinkTests.event(1)
        #expect(try await sink.deliver(event) == .delivered)
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == event.json)
        #expect(lines.last == "reminder|\(event.id)|u-42|t|b")
    }

    /// A non-zero exit is a retryable failure carrying the exit status and the output.
    @Test func nonZeroExitFailsWithOutput() async {
        let sink = ExecSink(command: ["/bin/sh", "-c", "echo receiver says no >&2; exit 3"])
        do {
            #expect(try await sink.deliver(FileSinkTests.event(1)) == .delivered)
            Issue.record("a failing command counted as delivered")
        } catch {
            #expect(error.retryable)
            #expect(error.message.contains("exited with 3"))
            #expect(error.message.contains("receiver says no"))
        }
    }

    /// A command that hangs is killed at the timeout with its whole process group: the
    /// background child it started is gone too.
    @Test func hangingCommandIsKilledWithItsGroup() async throws {
        let pidFile = Self.temporary("pid")
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        let sink = ExecSink(
            command: ["/bin/sh", "-c", #"sleep 300 & echo $! > "$0"; wait"#, pidFile], timeoutSeconds: 0.5)
        let started = ContinuousClock.now
        do {
            #expect(try await sink.deliver(FileSinkTests.event(1)) == .delivered)
            Issue.record("a hanging command counted as delivered")
        } catch {
            #expect(error.message.contains("timed out"))
        }
        // The command sleeps 300 s: returning well before that means it was killed. (How much
        // before depends on how busy the cooperative pool is with the rest of the suite.)
        #expect(ContinuousClock.now - started < .seconds(120))
        let child = try #require(
            Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Reaped or not, a killed child is no longer running: signal 0 finds no such process
        // or a zombie whose state is Z.
        let alive =
            kill(child, 0) == 0
            && !((try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8))?.contains(") Z ") ?? true)
        #expect(!alive, "the background child \(child) survived the timeout")
    }

    /// A command that does not exist is a failure naming it.
    @Test func missingCommandFails() async {
        let sink = ExecSink(command: ["/nonexistent/notify"])
        do {
            #expect(try await sink.deliver(FileSinkTests.event(1)) == .delivered)
            Issue.record("delivered through a missing command")
        } catch {
            #expect(error.message.contains("/nonexistent/notify"))
        }
    }
}
