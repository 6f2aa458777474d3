import Foundation
import RemindCore
import RemindTesting
import Testing

/// A report's `canPrompt`: validated naming the element, kept as last reported (absent keeps,
/// `[]` clears), durable in the user file, and a change of it is never a repeat.
struct CanPromptTests {
    let start = Fixtures.date("2026-11-22T10:00:00Z")
    let policy = ReminderPolicy(configuration: PolicyConfiguration())
    let userID = Fixtures.userID("prompting")

    func report(_ body: String, at offset: TimeInterval = 0) throws -> PermissionReport {
        try PermissionReport(json: Array(body.utf8), receivedAt: start.addingTimeInterval(offset))
    }

    @Test func namesAreASetInTheirOrder() throws {
        let read = try report(#"{"location":"whileInUse","canPrompt":["motion","location","motion"]}"#)
        #expect(read.canPrompt == [.location, .motion])
        #expect(try report(#"{"location":"whileInUse","canPrompt":[]}"#).canPrompt == [])
        #expect(try report(#"{"location":"whileInUse","canPrompt":null}"#).canPrompt == nil)
        #expect(try report(#"{"location":"whileInUse"}"#).canPrompt == nil)
    }

    @Test(arguments: [
        (#"["location","camera"]"#, "canPrompt[1]"),
        (#"[3]"#, "canPrompt[0]"),
        (#""location""#, "canPrompt"),
    ])
    func aBadListIsRefusedNamingTheField(list: String, field: String) throws {
        #expect {
            try report(#"{"location":"whileInUse","canPrompt":\#(list)}"#)
        } throws: { error in
            (error as? ValidationError)?.field == field
        }
    }

    /// Absent keeps the list, `[]` clears it; each change is durable (not a counters-only
    /// outcome) and ends the repeat criterion's match; the user file keeps it.
    @Test func keptAsLastReportedAndNeverARepeatWhenItChanges() throws {
        var record = policy.apply(
            try report(#"{"location":"whileInUse","canPrompt":["location","notifications"]}"#), to: nil,
            userID: userID, receivedAt: start
        ).record
        #expect(record.device.canPrompt == [.location, .notifications])
        let criterion = try #require(RepeatCriterion(record))
        let same = try report(#"{"location":"whileInUse","canPrompt":["notifications","location"]}"#, at: 10)
        let silent = try report(#"{"location":"whileInUse"}"#, at: 10)
        let fewer = try report(#"{"location":"whileInUse","canPrompt":["notifications"]}"#, at: 10)
        #expect(criterion.isRepeat(same, receivedAt: same.observedAt) && criterion.isRepeat(silent, receivedAt: silent.observedAt) && !criterion.isRepeat(fewer, receivedAt: fewer.observedAt))
        let kept = policy.apply(silent, to: record, userID: userID, receivedAt: start.addingTimeInterval(10))
        #expect(!kept.changed && kept.record.device.canPrompt == [.location, .notifications])
        let changed = policy.apply(fewer, to: record, userID: userID, receivedAt: start.addingTimeInterval(10))
        #expect(changed.changed && changed.record.device.canPrompt == [.notifications])
        record =
            policy.apply(
                try report(#"{"location":"whileInUse","canPrompt":[]}"#, at: 20), to: changed.record, userID: userID,
                receivedAt: start.addingTimeInterval(20)
            ).record
        #expect(record.device.canPrompt.isEmpty)
        let written = try UserRecord(json: changed.record.jsonBytes)
        #expect(written == changed.record)
        #expect(!String(decoding: record.jsonBytes, as: UTF8.self).contains("canPrompt"))
    }
}
