import Foundation
import RemindCore
import RemindTesting
import Testing

struct PendingRepeatsTests {
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 3600)))
    let userID = Fixtures.userID("repeats")

    /// A record after a random history of reports received in a random order.
    func record(seed: UInt64) -> (UserRecord, Date) {
        var rng = SplitMix64(seed: seed)
        let reports = ReportGenerator.reports(count: rng.int(1...12), using: &rng)
        var record: UserRecord?
        var last = Date(unixMilliseconds: ReportGenerator.epochMilliseconds)
        for scheduled in ReportGenerator.receiveSchedule(reports, using: &rng) {
            record = policy.apply(scheduled.report, to: record, userID: userID, receivedAt: scheduled.receivedAt).record
            last = max(last, scheduled.receivedAt)
        }
        return (record!, last)
    }

    /// A report that restates some of the current state, observed at some moment around the
    /// newest run (before it too), with random device fields.
    func candidate(_ record: UserRecord, using rng: inout SplitMix64) -> PermissionReport {
        let current = record.permissions!
        let start = record.history[0].observedAt
        let observedAt = start.adding(milliseconds: rng.int64(-60_000...600_000))
        return PermissionReport(
            location: rng.chance(0.9) ? current.location : ReportGenerator.location(using: &rng),
            accuracy: current.accuracy, locationServices: current.locationServices,
            notifications: rng.chance(0.5) ? current.notifications : nil, observedAt: observedAt,
            timeZone: rng.chance(0.5) ? current.timeZone : nil, platform: rng.chance(0.3) ? "ios" : nil,
            appVersion: rng.chance(0.3) ? "2.\(rng.int(0...9))" : nil,
            locale: rng.chance(0.2) ? (rng.chance(0.5) ? record.device.locale : "de-CH") : nil,
            motion: rng.chance(0.3) ? current.motion : nil)
    }

    /// Repeats noted against a record's basis and folded in later give exactly the record
    /// that applying each of them in turn gives; `apply` calls each of them unchanged; a
    /// report the basis does not call a repeat is not folded.
    @Test(arguments: propertySeeds(0x5EED_0017, count: 200))
    func foldingRepeatsEqualsApplyingThem(seed: UInt64) throws {
        var (applied, receivedAt) = record(seed: seed)
        let basis = try #require(RepeatCriterion(applied))
        var folded = applied
        var pending = PendingRepeats()
        var rng = SplitMix64(seed: seed ^ 0xABCD)
        for _ in 0..<rng.int(1...40) {
            let report = candidate(applied, using: &rng)
            guard basis.isRepeat(report, receivedAt: report.observedAt) else { continue }
            receivedAt = receivedAt.adding(milliseconds: rng.int64(0...5_000))
            let outcome = policy.apply(report, to: applied, userID: userID, receivedAt: receivedAt)
            #expect(!outcome.changed && outcome.events.isEmpty && outcome.transitions.isEmpty)
            applied = outcome.record
            pending.add(report, receivedAt: receivedAt)
        }
        folded.fold(pending)
        #expect(folded == applied)
        #expect(folded.reportCount - pending.count == record(seed: seed).0.reportCount)
    }

    /// Repeats as the log keeps them (`LoggedRepeats`, through its JSON) fold in once, however
    /// often replay folds them and whatever part of them the user file already holds: the
    /// counters, the newest observation, the `known` registers and the device fields come out as
    /// folding the repeats themselves gives, and a second fold changes nothing.
    @Test(arguments: propertySeeds(0x5EED_2017, count: 200))
    func loggedRepeatsFoldOnceWhateverTheFileHolds(seed: UInt64) throws {
        let (base, start) = record(seed: seed)
        var receivedAt = start
        let basis = try #require(RepeatCriterion(base))
        var rng = SplitMix64(seed: seed ^ 0x7777)
        var all = PendingRepeats()
        var prefix = PendingRepeats()
        let split = rng.int(0...20)
        for index in 0..<rng.int(1...40) {
            let report = candidate(base, using: &rng)
            guard basis.isRepeat(report, receivedAt: report.observedAt) else { continue }
            receivedAt = receivedAt.adding(milliseconds: rng.int64(0...5_000))
            all.add(report, receivedAt: receivedAt)
            if index < split { prefix.add(report, receivedAt: receivedAt) }
        }
        // A seed whose candidates were no repeats leaves nothing to log.
        guard !all.isEmpty else { return }
        let logged = LoggedRepeats(userID: userID, reportCount: base.reportCount + all.count, repeats: all)
        var writer = JSONWriter()
        logged.write(to: &writer)
        guard case .object(let object) = try JSONParser.parse(writer.bytes) else {
            Issue.record("not an object")
            return
        }
        let decoded = try LoggedRepeats(object: object)
        #expect(decoded.userID == userID && decoded.reportCount == logged.reportCount)
        var expected = base
        expected.fold(all)
        var partly = base
        partly.fold(prefix)
        for file in [base, partly, expected] {
            var replayed = file
            replayed.fold(decoded)
            #expect(replayed.reportCount == expected.reportCount)
            #expect(replayed.lastReportAt == expected.lastReportAt)
            #expect(replayed.observedAt == expected.observedAt)
            #expect(replayed.knownNotifications == expected.knownNotifications)
            #expect(replayed.knownTimeZone == expected.knownTimeZone)
            #expect(replayed.knownMotion == expected.knownMotion)
            #expect(replayed.platform == expected.platform && replayed.appVersion == expected.appVersion)
            var twice = replayed
            twice.fold(decoded)
            #expect(twice == replayed)
        }
    }

    /// Whatever a report says, a basis calls it a repeat only when `apply` changes nothing that
    /// must be durable.
    @Test(arguments: propertySeeds(0x5EED_1017, count: 200))
    func aRepeatNeverChangesTheState(seed: UInt64) throws {
        let (record, receivedAt) = record(seed: seed)
        let basis = try #require(RepeatCriterion(record))
        var rng = SplitMix64(seed: seed ^ 0x1234)
        for _ in 0..<20 {
            let report = candidate(record, using: &rng)
            let outcome = policy.apply(report, to: record, userID: userID, receivedAt: receivedAt)
            if basis.isRepeat(report, receivedAt: report.observedAt) {
                #expect(!outcome.changed && outcome.record.history.count == record.history.count)
                #expect(outcome.record.permissions == record.permissions)
                #expect(outcome.record.episodes == record.episodes)
            }
        }
    }

    /// Changed permissions, a report older than the newest run, a new locale or a new push
    /// address are no repeats.
    @Test func changesAreNoRepeats() throws {
        let start = Fixtures.date("2026-11-15T10:00:00Z")
        let first = PermissionReport(location: .whileInUse, notifications: .authorized, observedAt: start)
        let record = policy.apply(first, to: nil, userID: userID, receivedAt: start).record
        let basis = try #require(RepeatCriterion(record))
        var same = first
        same.observedAt = start.addingTimeInterval(60)
        #expect(basis.isRepeat(same, receivedAt: same.observedAt))
        var older = same
        older.observedAt = start.addingTimeInterval(-1)
        #expect(!basis.isRepeat(older, receivedAt: older.observedAt))
        var changed = same
        changed.location = .always
        #expect(!basis.isRepeat(changed, receivedAt: changed.observedAt))
        var locale = same
        locale.locale = "fr-FR"
        #expect(!basis.isRepeat(locale, receivedAt: locale.observedAt))
        var push = same
        push.push = .set(
            try PushAddress(reportObject: [
                "service": .string("apns"), "token": .string(String(repeating: "ab", count: 32)),
            ]))
        #expect(!basis.isRepeat(push, receivedAt: push.observedAt))
    }
}
