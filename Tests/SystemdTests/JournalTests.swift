import Foundation
import Logging
import RemindTesting
import Systemd
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Round trips through a real journald: log with `JournalLogHandler`, read back with `journalctl`.
@Suite(.ownThread)
struct JournalTests {
    /// An entry carries priority, identifier, code location, message ID and every metadata key as a field.
    @Test func entryCarriesStructuredFieldsWhenLoggedWithMetadata() async throws {
        try await JournaldFixture.withJournald { journald in
            let testID = UUID().uuidString
            let logger = Logger(label: "remindd.tests") { JournalLogHandler(label: $0, identifier: "remindd-tests") }
            let line = #line + 1
            logger.warning(
                "delivery to file failed \(testID)",
                metadata: [
                    MessageID.metadataKey: MessageID.deliveryFailed.metadataValue,
                    "REMINDD_TEST_ID": "\(testID)",
                    "REMINDD_USER_ID": "u-1",
                    "sink": "file",
                    "priority": "not the real one",
                ]
            )
            let entry = try journald.entry(matching: ["REMINDD_TEST_ID": testID])
            #expect(entry["MESSAGE"] == "delivery to file failed \(testID)")
            #expect(entry["PRIORITY"] == "4")
            #expect(entry["SYSLOG_IDENTIFIER"] == "remindd-tests")
            #expect(entry["CODE_FILE"] == "SystemdTests/JournalTests.swift")
            #expect(entry["CODE_LINE"] == "\(line)")
            #expect(entry["CODE_FUNC"] == "entryCarriesStructuredFieldsWhenLoggedWithMetadata()")
            #expect(entry["LOGGER_LABEL"] == "remindd.tests")
            #expect(entry["MESSAGE_ID"] == MessageID.deliveryFailed.rawValue)
            #expect(entry["REMINDD_USER_ID"] == "u-1")
            #expect(entry["SINK"] == "file")
            #expect(entry.fields["PRIORITY"] == ["4"])
            #expect(entry["METADATA_PRIORITY"] == "not the real one")
            // Trusted fields journald adds itself prove the entry came through the socket from this process.
            #expect(entry["_PID"] == "\(getpid())")
            #expect(entry["_TRANSPORT"] == "journal")
        }
    }

    /// Multi-line messages and values, handler metadata and attached errors arrive intact.
    @Test func multiLineValuesAndErrorsArriveIntactWhenLogged() async throws {
        try await JournaldFixture.withJournald { journald in
            let testID = UUID().uuidString
            logMultiLineAndError(testID: testID)
            let entries = try journald.entries(matching: ["REMINDD_TEST_ID": testID], count: 2)
            #expect(entries[0]["MESSAGE"] == "first line\nsecond line")
            #expect(entries[0]["REMINDD_DETAIL"] == "a=b\nc")
            #expect(entries[0]["PRIORITY"] == "7")
            #expect(entries[1]["PRIORITY"] == "2")
            #expect(entries[1]["ERROR_TYPE"]?.contains("POSIXError") == true)
            #expect(entries[1]["ERROR_MESSAGE"] != nil)
        }
    }

    // Outside the async closure: Swift 6.3's region checker crashes on `error:` inside it.
    private func logMultiLineAndError(testID: String) {
        var handler = JournalLogHandler(label: "remindd.tests", identifier: "remindd-tests")
        handler[metadataKey: "REMINDD_TEST_ID"] = "\(testID)"
        handler.logLevel = .trace
        let logger = Logger(label: "remindd.tests") { _ in handler }
        logger.trace("first line\nsecond line", metadata: ["REMINDD_DETAIL": "a=b\nc"])
        logger.critical("it broke", error: POSIXError(.ENOSPC))
    }

    /// An entry sent without waiting (the journal sink's way) arrives with every field, multi-line values intact,
    /// through journald's native protocol.
    @Test func datagramEntryArrivesIntactWhenSentWithoutWaiting() async throws {
        try await JournaldFixture.withJournald { journald in
            let testID = UUID().uuidString
            let fields = [
                ("MESSAGE", "sent without waiting"), ("PRIORITY", "5"), ("SYSLOG_IDENTIFIER", "remindd-tests"),
                ("REMINDD_TEST_ID", testID), ("REMINDD_EVENT", "{\"a\":1}\nsecond line"),
            ]
            // A full queue (-EAGAIN: the kernel holds 10 datagrams for journald, and the other
            // tests' daemons log to it too) is the retryable refusal the journal sink retries
            // later; this test does the same, every 5 ms until a deadline. Anything else fails.
            var result = -EAGAIN
            try await waitUntil("room in journald's queue", within: .seconds(30), every: .milliseconds(5)) {
                result = JournalDatagram.send(fields)
                return result != -EAGAIN
            }
            #expect(result == 0)
            let entry = try journald.entry(matching: ["REMINDD_TEST_ID": testID])
            #expect(entry["MESSAGE"] == "sent without waiting")
            #expect(entry["PRIORITY"] == "5")
            #expect(entry["REMINDD_EVENT"] == "{\"a\":1}\nsecond line")
            #expect(entry["_PID"] == "\(getpid())")
            #expect(entry["_TRANSPORT"] == "journal")
        }
    }

    /// With journald listening, the handler reports it available.
    @Test func isAvailableWhenJournaldListens() async throws {
        try await JournaldFixture.withJournald { _ in
            #expect(JournalLogHandler.isAvailable)
        }
    }
}
