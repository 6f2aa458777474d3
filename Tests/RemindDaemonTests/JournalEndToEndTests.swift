import Foundation
import RemindCore
import RemindTesting
import Systemd
import Testing

/// The journal sink against a real journald, read back with `journalctl -o json`.
@Suite(.ownThread, .serialized)
struct JournalEndToEndTests {
    /// A reminder appears in the journal with its MESSAGE_ID, user, event id and the event's
    /// JSON, and the daemon's own episode log entry carries the user too.
    @Test func reminderAppearsInJournal() async throws {
        try await JournaldFixture.withJournald { journald in
            let user = "journal-\(UUID().uuidString.prefix(8))"
            let daemon = try DaemonProcess(
                configuration: #""notification":{"notificationTriggerDelay":1}"#, extraSinks: #"{"type":"journal"}"#)
            try daemon.start()
            try daemon.post(user, #"{"location":"whileInUse"}"#)
            let events = try await daemon.waitForEvents(1)
            #expect(events.count == 1)
            let entry = try journald.entry(
                matching: ["REMINDD_USER_ID": user, "REMINDD_EVENT_TYPE": "reminder"], timeout: .seconds(60))
            #expect(entry["SYSLOG_IDENTIFIER"] == "remindd")
            #expect(entry["MESSAGE_ID"] == MessageID.reminderDelivered.rawValue)
            #expect(entry["REMINDD_SINK"] == "journal")
            #expect(entry["REMINDD_EVENT"] == events[0])
            #expect(entry["REMINDD_EVENT_ID"]?.hasPrefix("\(user)/") == true)
            #expect(entry["PRIORITY"] == "5")
            let opened = try journald.entry(matching: [
                "REMINDD_USER_ID": user, "MESSAGE_ID": MessageID.episodeOpened.rawValue,
            ])
            #expect(opened["MESSAGE"]?.contains("episode opened") == true)
            daemon.stop()
        }
    }
}
