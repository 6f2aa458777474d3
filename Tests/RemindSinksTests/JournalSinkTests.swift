import Foundation
import RemindCore
import RemindSinks
import RemindTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The journal sink's entry and how it reads journald's answers (the real journald is in
/// `JournalEndToEndTests` and `JournaldStallEndToEndTests`).
struct JournalSinkTests {
    static let event = OutboxEvent(
        .withdraw(
            .init(
                userID: Fixtures.userID(), reminderIDs: ["r-1"],
                episodeStartedAt: Fixtures.date("2026-11-15T10:00:00Z"),
                createdAt: Fixtures.date("2026-11-23T08:00:00Z"))))

    /// Sent: one entry with the event's kind, ids, sink name and JSON, and its MESSAGE_ID.
    @Test func entryCarriesTheEventsFieldsWhenSent() async throws {
        let sent = Mutex<[(name: String, value: String)]>([])
        let sink = JournalSink(
            name: "journal-a", messageIDs: [.withdraw: "5346a52d8a824707ac357f3f86579c6d"],
            send: { fields in
                sent.withLock { $0 = fields }
                return 0
            })
        #expect(try await sink.deliver(Self.event) == .delivered)
        let fields = Dictionary(sent.withLock { $0 }, uniquingKeysWith: { first, _ in first })
        #expect(fields["MESSAGE_ID"] == "5346a52d8a824707ac357f3f86579c6d")
        #expect(fields["REMINDD_SINK"] == "journal-a")
        #expect(fields["REMINDD_EVENT_ID"] == Self.event.id)
        #expect(fields["REMINDD_USER_ID"] == Self.event.userID.rawValue)
        #expect(fields["REMINDD_EVENT_TYPE"] == "withdraw")
        #expect(fields["REMINDD_EVENT"] == Self.event.json)
        #expect(fields["PRIORITY"] == "5")
        #expect(fields["SYSLOG_IDENTIFIER"] == "remindd")
    }

    /// A full journald queue is a retryable failure, an entry too big for a datagram a
    /// permanent one, and any other refusal is retried.
    @Test(arguments: [(EAGAIN, true), (EMSGSIZE, false), (ENOBUFS, true)])
    func refusalIsAFailureWhenJournaldDoesNotTakeTheEntry(error: Int32, retryable: Bool) async {
        let sink = JournalSink(messageIDs: [:], send: { _ in -error })
        await #expect {
            _ = try await sink.deliver(Self.event)
        } throws: { failure in
            (failure as? SinkError)?.retryable == retryable
        }
    }

    /// With no journald at all the event goes to standard error and counts as delivered.
    @Test(arguments: [ENOENT, ECONNREFUSED])
    func eventGoesToStandardErrorWhenNoJournaldListens(error: Int32) async throws {
        let lines = Mutex<[String]>([])
        let sink = JournalSink(
            messageIDs: [:], send: { _ in -error }, writeStandardError: { line in lines.withLock { $0.append(line) } })
        #expect(try await sink.deliver(Self.event) == .delivered)
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        #expect(written.first?.contains(Self.event.json) == true)
    }
}
