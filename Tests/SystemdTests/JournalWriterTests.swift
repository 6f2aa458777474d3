import Foundation
import RemindTesting
import Synchronization
import Testing

@testable import Systemd

/// The bounded queue between log calls and journald, and the writer thread that drains it: log calls never wait,
/// entries beyond the queue are dropped and counted, and one entry reports the count once journald reads again.
@Suite(.ownThread)
struct JournalWriterTests {
    /// A full queue turns entries away and counts them; taking everything empties it and resets the count.
    @Test func fullQueueDropsAndCountsWhenAppending() {
        var queue = BoundedLogQueue<Int>(capacity: 2)
        let appended1 = queue.append(1)
        #expect(appended1)
        let appended2 = queue.append(2)
        #expect(appended2)
        let appended3 = queue.append(3)
        #expect(!appended3)
        let appended4 = queue.append(4)
        #expect(!appended4)
        let taken = queue.takeAll()
        #expect(taken.elements == [1, 2])
        #expect(taken.dropped == 2)
        #expect(queue.isEmpty)
        #expect(queue.takeAll().dropped == 0)
        let appended5 = queue.append(5)
        #expect(appended5)
    }

    /// With journald not reading (the send blocks), log calls return at once; entries beyond the queue are
    /// dropped, and once the send returns everything queued is written, followed by exactly one entry saying how
    /// many were dropped.
    @Test func blockedJournaldDropsAndReportsOnceWhenItReadsAgain() throws {
        let journald = FakeJournald()
        let writer = JournalWriter(identifier: "remindd-tests", capacity: 3, send: journald.send)
        writer.enqueue(Self.entry("first"))
        // The writer thread is now inside send, which waits for `resume`: journald is "stopped".
        try journald.waitForSend(deadline: .now() + .seconds(10))
        let started = ContinuousClock.now
        let accepted = (1...10).map { writer.enqueue(Self.entry("queued \($0)")) }
        #expect(ContinuousClock.now - started < .seconds(1), "a log call waited for journald")
        #expect(accepted == [true, true, true] + Array(repeating: false, count: 7))

        journald.resume()
        #expect(writer.flush(until: .now + .seconds(10)))
        let messages = journald.received.map { entry in entry.first { $0.name == "MESSAGE" }?.value ?? "" }
        #expect(
            messages == [
                "first", "queued 1", "queued 2", "queued 3", "7 log messages dropped while journald was not reading",
            ])
        let notice = Dictionary(journald.received.last ?? [], uniquingKeysWith: { first, _ in first })
        #expect(notice["MESSAGE_ID"] == MessageID.logMessagesDropped.rawValue)
        #expect(notice["REMINDD_DROPPED_MESSAGES"] == "7")
        #expect(notice["PRIORITY"] == "4")
        #expect(notice["SYSLOG_IDENTIFIER"] == "remindd-tests")

        // Nothing more is dropped, so nothing more is reported.
        writer.enqueue(Self.entry("after"))
        #expect(writer.flush(until: .now + .seconds(10)))
        #expect(journald.received.count == 6)
    }

    /// An entry journald refuses is written to standard error instead of being lost.
    @Test func refusedEntryGoesToStandardErrorWhenJournaldRefuses() {
        let lines = Mutex<[String]>([])
        let writer = JournalWriter(
            identifier: "remindd-tests", send: { _ in -ECONNREFUSED },
            writeStandardError: { line in lines.withLock { $0.append(line) } })
        writer.enqueue(Self.entry("hello"))
        #expect(writer.flush(until: .now + .seconds(10)))
        #expect(
            lines.withLock { $0 } == ["info remindd-tests: hello (journald refused the entry: Connection refused)\n"])
    }

    static func entry(_ message: String) -> JournalWriter.Entry {
        .init(fields: [("MESSAGE", message), ("PRIORITY", "6")], summary: "info remindd-tests: \(message)")
    }
}

/// A journald whose first send blocks until the test resumes it, as a stopped journald blocks `sd_journal_sendv`;
/// it records every entry it is sent.
private final class FakeJournald: Sendable {
    private let state = Mutex<(received: [[(name: String, value: String)]], blocked: Bool)>(([], true))
    private let entered = DispatchSemaphore(value: 0)
    private let resumed = DispatchSemaphore(value: 0)

    var received: [[(name: String, value: String)]] { state.withLock { $0.received } }

    var send: @Sendable ([(name: String, value: String)]) -> Int32 {
        { fields in
            let block = self.state.withLock { state in
                defer { state.blocked = false }
                return state.blocked
            }
            if block {
                self.entered.signal()
                _ = self.resumed.wait(timeout: .now() + .seconds(30))
            }
            self.state.withLock { $0.received.append(fields) }
            return 0
        }
    }

    func waitForSend(deadline: DispatchTime) throws {
        guard entered.wait(timeout: deadline) == .success else { throw CancellationError() }
    }

    func resume() { resumed.signal() }
}
