import Logging
import Systemd
import Testing

/// The parts of the journald handler that need no journald.
struct JournalLogHandlerTests {
    /// Metadata keys become field names journald accepts; valid names pass through unchanged.
    @Test(arguments: [
        ("REMINDD_USER_ID", "REMINDD_USER_ID"),
        ("MESSAGE_ID", "MESSAGE_ID"),
        ("sink", "SINK"),
        ("userID", "USERID"),
        ("error.message", "ERROR_MESSAGE"),
        ("http-status code", "HTTP_STATUS_CODE"),
        ("_SYSTEMD_UNIT", "SYSTEMD_UNIT"),
        ("2fa", "FA"),
        ("_9lives", "LIVES"),
        ("grüße", "GR_SSE"),
        (String(repeating: "a", count: 70), String(repeating: "A", count: 64)),
    ])
    func fieldNameIsUpperCaseJournaldNameWhenMapped(key: String, expected: String) {
        #expect(JournalLogHandler.fieldName(forMetadataKey: key) == expected)
    }

    /// A key with nothing usable left (no letters after stripping) is dropped rather than sent invalid.
    @Test(arguments: ["", "___", "123", "_1_"])
    func fieldNameIsNilWhenNothingUsableRemains(key: String) {
        #expect(JournalLogHandler.fieldName(forMetadataKey: key) == nil)
    }

    /// swift-log levels map to syslog priorities; trace and debug share debug.
    @Test func priorityFollowsSyslogWhenMappingLevels() {
        let priorities = Logger.Level.allCases.map { JournalLogHandler.priority(for: $0) }
        #expect(priorities == [7, 7, 6, 5, 4, 3, 2])
    }

    /// The factory picks journald when asked to, and standard error otherwise.
    @Test func factoryReturnsStreamHandlerWhenJournalUnavailable() {
        #expect(JournalLogHandler.factory(identifier: "remindd", useJournal: true)("a") is JournalLogHandler)
        #expect(JournalLogHandler.factory(identifier: "remindd", useJournal: false)("a") is StreamLogHandler)
    }

    /// Every message ID is a 128-bit id in journald's form: 32 lowercase hex digits, none repeated.
    @Test func messageIDsAreDistinct128BitIDsWhenListed() {
        let ids = MessageID.allCases.map(\.rawValue)
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.count == 32 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(id)")
        }
    }
}
