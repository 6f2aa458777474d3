import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Synchronization
import Testing

/// The `StateStore` contract, written once against the protocol and run against every
/// backend: what the daemon, the scheduler and the dispatchers rely on whichever is configured.
/// (What only a durable backend promises, recovery after a crash, is in `StateStoreTests`.)
struct StateStoreContractTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))

    func report(
        _ store: any StateStore, _ user: String, _ location: LocationAuthorization, at offset: Double
    ) async throws
        -> ReportOutcome
    {
        let at = start.addingTimeInterval(offset)
        return try await store.storeReport(
            PermissionReport(location: location, observedAt: at), for: Fixtures.userID(user), receivedAt: at
        ).outcome
    }

    /// A report is the user's state at once; a repeat changes nothing but the count; a delete
    /// forgets the user, and a second delete finds nobody.
    @Test(arguments: StoreBackend.allCases)
    func reportsReadBackAndDeleteForgets(_ backend: StoreBackend) async throws {
        let store = try backend.open(policy: policy, now: start).store
        #expect(try await report(store, "a", .whileInUse, at: 0).changed)
        #expect(try await !report(store, "a", .whileInUse, at: 1).changed)
        let record = try #require(try await store.record(Fixtures.userID("a")))
        #expect(record.permissions?.location == .whileInUse)
        #expect(record.reportCount == 2)
        #expect(try await store.record(Fixtures.userID("nobody")) == nil)
        #expect(await store.nextWakeAt() == start.addingTimeInterval(60))
        #expect(try await store.delete(Fixtures.userID("a"), at: Fixtures.date("2026-12-01T00:00:00Z")))
        #expect(try await !store.delete(Fixtures.userID("a"), at: Fixtures.date("2026-12-01T00:00:00Z")))
        #expect(try await store.record(Fixtures.userID("a")) == nil)
        #expect(await store.nextWakeAt() == nil)
        #expect(await store.statistics().users == 0)
        await store.close()
    }

    /// The counters-only write: repeats answered elsewhere fold into the record once however
    /// often they are noted, survive a checkpoint, reach the next change's record, and those of
    /// an unknown user are dropped.
    @Test(arguments: StoreBackend.allCases)
    func notedRepeatsFoldInOnce(_ backend: StoreBackend) async throws {
        let opened = try backend.open(policy: policy, now: start)
        let store = opened.store
        let userID = Fixtures.userID("a")
        _ = try await report(store, "a", .whileInUse, at: 0)
        var repeats = PendingRepeats()
        for offset in [10.0, 20] {
            let at = start.addingTimeInterval(offset)
            repeats.add(PermissionReport(location: .whileInUse, observedAt: at), receivedAt: at)
        }
        let logged = LoggedRepeats(userID: userID, reportCount: 3, repeats: repeats)
        let stranger = LoggedRepeats(userID: Fixtures.userID("nobody"), reportCount: 3, repeats: repeats)
        try await store.noteRepeats([logged, stranger])
        try await store.noteRepeats([logged])
        try await store.checkpoint(snapshot: false)
        let record = try #require(try await store.record(userID))
        #expect(record.reportCount == 3 && record.lastReportAt == start.addingTimeInterval(20))
        #expect(record.observedAt == start.addingTimeInterval(20))
        #expect(try await store.record(Fixtures.userID("nobody")) == nil)
        #expect(try await report(store, "a", .always, at: 30).changed)
        #expect(try await store.record(userID)?.reportCount == 4)
        #expect(await store.statistics().users == 1)
        await store.close()
        withExtendedLifetime(opened) {}
    }

    /// The users by their most active hour follow every report and delete, on every backend:
    /// what the population's hour (the send time's fallback) is read from each minute.
    @Test(arguments: StoreBackend.allCases)
    func usersByActiveHourFollowReportsAndDeletes(_ backend: StoreBackend) async throws {
        let active = ReminderPolicy(
            configuration: PolicyConfiguration(
                notification: .init(notificationTriggerDelay: 60, sendTime: .active(.init(minReports: 1)))))
        let opened = try backend.open(policy: active, now: start)
        let store = try #require(opened.store as? any LearningStore)
        func send(_ user: String, atHour hour: Double) async throws {
            // `start` is 10:00 UTC; without a time zone the hour is UTC's.
            let at = start.addingTimeInterval((hour - 10) * 3_600)
            _ = try await opened.store.storeReport(
                PermissionReport(location: .whileInUse, observedAt: at), for: Fixtures.userID(user), receivedAt: at)
        }
        #expect(await store.usersByActiveHour() == [Int](repeating: 0, count: 24))
        try await send("a", atHour: 7)
        try await send("b", atHour: 7)
        try await send("c", atHour: 21)
        var expected = [Int](repeating: 0, count: 24)
        (expected[7], expected[21]) = (2, 1)
        #expect(await store.usersByActiveHour() == expected)
        // Two more reports at 21:00 make it b's most active hour.
        try await send("b", atHour: 21 + 24)
        try await send("b", atHour: 21 + 48)
        (expected[7], expected[21]) = (1, 2)
        #expect(await store.usersByActiveHour() == expected)
        #expect(try await opened.store.delete(Fixtures.userID("a"), at: start))
        expected[7] = 0
        #expect(await store.usersByActiveHour() == expected)
        await opened.store.close()
    }

    /// A change refused for an engagement event naming what the user never got stores nothing,
    /// alone or in a batch (where the user's next change sees the record as it was); a good
    /// event is stored once, and a second report of it changes nothing.
    @Test(arguments: StoreBackend.allCases)
    func aRefusedChangeStoresNothing(_ backend: StoreBackend) async throws {
        let opened = try backend.open(policy: policy, now: start)
        let store = opened.store
        let user = Fixtures.userID("a")
        _ = try await report(store, "a", .whileInUse, at: 0)
        _ = try await store.fireDue(now: start.addingTimeInterval(120))
        let before = try #require(try await store.record(user))
        let reminder = try #require(before.openEpisode?.deliveries.first?.id)
        let bogus = EngagementEvent(kind: .reminderOpened, id: "\(user)/1/9", at: start)
        await #expect(throws: ValidationError.self) { try await store.recordEvents([bogus], for: user) }
        #expect(try await store.record(user) == before)
        await #expect(throws: ValidationError.self) {
            try await store.recordEvents([bogus], for: Fixtures.userID("nobody"))
        }
        #expect(try await store.record(Fixtures.userID("nobody")) == nil)

        var refused = PermissionReport(location: .always, observedAt: start.addingTimeInterval(200))
        refused.events = [bogus]
        var good = PermissionReport(location: .whileInUse, observedAt: start.addingTimeInterval(210))
        good.events = [EngagementEvent(kind: .reminderOpened, id: reminder, at: start.addingTimeInterval(150))]
        let results = try await store.storeReports(
            [(refused, user), (good, user)], receivedAt: start.addingTimeInterval(220))
        guard case .failure(let error as ValidationError) = results[0], case .success(let stored) = results[1] else {
            Issue.record("the first refused, the second stored: \(results)")
            return
        }
        #expect(error.field == "events[0].id" && error.status == 422)
        // The refused report closed nothing; the good one counts the open once.
        #expect(stored.outcome.record.reportCount == before.reportCount + 1)
        #expect(stored.outcome.record.openEpisode?.openedCount == 1)
        #expect(try await store.recordEvents(good.events, for: user) == 0)
        #expect(try await store.record(user)?.reportCount == before.reportCount + 1)
        await opened.store.close()
    }

    /// A delete runs its `forget` exactly once on the user's current record and persists the
    /// episode it closed: the stats count it forgotten, and the returned outcome is the one
    /// stored. An unknown user runs nothing.
    @Test(arguments: StoreBackend.allCases)
    func deleteRunsForgetOnceAndPersistsItsOutcome(_ backend: StoreBackend) async throws {
        let store = try backend.open(policy: policy, now: start).store
        _ = try await report(store, "a", .whileInUse, at: 0)
        let calls = Counter()
        let at = start.addingTimeInterval(30)
        let forgotten = try await store.delete(Fixtures.userID("a")) { record, policy in
            calls.increment()
            #expect(record.permissions?.location == .whileInUse)
            return policy.forget(record, at: at)
        }
        #expect(calls.value == 1)
        #expect(forgotten?.closed?.outcome == .forgotten)
        #expect(forgotten?.closed?.closedAt == at)
        let stats = await store.stats(since: start.addingTimeInterval(-60), until: start.addingTimeInterval(60))
        #expect(stats.groups.reduce(0) { $0 + $1.forgotten } == 1)
        let none = try await store.delete(Fixtures.userID("a")) { record, policy in
            calls.increment()
            return policy.forget(record, at: at)
        }
        #expect(none == nil && calls.value == 1)
        await store.close()
    }

    /// A user's due reminder fires once, lands in the outbox for every sink, and the user's
    /// next wake-up moves on; nothing fires early.
    @Test(arguments: StoreBackend.allCases)
    func dueRemindersFireOnceIntoTheOutbox(_ backend: StoreBackend) async throws {
        let store = try backend.open(policy: policy, sinks: ["file", "hook"], now: start).store
        _ = try await report(store, "a", .whileInUse, at: 0)
        #expect(try await store.fireDue(now: start.addingTimeInterval(59)).events.isEmpty)
        let fired = try await store.fireDue(now: start.addingTimeInterval(60))
        #expect(fired.events.map(\.kind) == [.reminder])
        #expect(try await store.fireDue(now: start.addingTimeInterval(61)).events.isEmpty)
        #expect(await store.pendingEvents(for: "file") == 1)
        #expect(await store.pendingEvents(for: "hook") == 1)
        #expect(await store.pendingReminders(dueBefore: nil, limit: 10).isEmpty)
        await store.complete(fired.events[0].id, sink: "file")
        #expect(await store.pendingEvents(for: "file") == 0)
        #expect(await store.statistics().eventsDelivered == 0)
        await store.complete(fired.events[0].id, sink: "hook")
        #expect(await store.statistics().eventsDelivered == 1)
        await store.close()
    }

    /// A store with sinks `file` and `hook` and the reminder it fired for user `a`.
    func firedReminder(_ backend: StoreBackend) async throws -> (any StateStore, OutboxEvent) {
        let store = try backend.open(policy: policy, sinks: ["file", "hook"], now: start).store
        _ = try await report(store, "a", .whileInUse, at: 0)
        let event = try #require(try await store.fireDue(now: start.addingTimeInterval(60)).events.first)
        return (store, event)
    }

    /// A dead letter is listed until replayed; a replay puts the event back in its sink's
    /// queue only, and an unknown id replays nothing.
    @Test(arguments: StoreBackend.allCases)
    func deadLettersAreListedAndReplayed(_ backend: StoreBackend) async throws {
        let (store, event) = try await firedReminder(backend)
        try await store.deadLetter(
            DeadLetterRecord(event: event, sink: "hook", attempts: 3, lastError: "HTTP 500", deadLetteredAt: start))
        #expect(await store.deadLetters().map(\.event.id) == [event.id])
        #expect(await store.statistics().deadLetters == 1)
        #expect(try await store.replayDeadLetters(ids: ["no-such-id"]) == 0)
        #expect(try await store.replayDeadLetters(ids: [event.id]) == 1)
        #expect(await store.deadLetters().isEmpty)
        #expect(await store.peekEvent(for: "hook")?.id == event.id)
        #expect(await store.pendingEvents(for: "file") == 1)
        await store.close()
    }

    /// Dead-lettering takes the event out of the sink's queue in the same step (the dispatcher
    /// completes nothing after it), so a replay at once, as an operator quick on `remindctl
    /// dead-letters replay` makes, puts it back for good.
    @Test(arguments: StoreBackend.allCases)
    func aReplayBeforeTheCompletionIsKept(_ backend: StoreBackend) async throws {
        let (store, event) = try await firedReminder(backend)
        let claimed = try #require(await store.claimEvents(for: "hook", limit: 1).first)
        #expect(claimed.id == event.id)
        try await store.deadLetter(
            DeadLetterRecord(event: claimed, sink: "hook", attempts: 3, lastError: "HTTP 503", deadLetteredAt: start))
        #expect(await store.pendingEvents(for: "hook") == 0)
        #expect(try await store.replayDeadLetters(ids: nil) == 1)
        #expect(await store.pendingEvents(for: "hook") == 1)
        #expect(await store.claimEvents(for: "hook", limit: 1).first?.id == event.id)
        #expect(await store.pendingEvents(for: "file") == 1)
        await store.close()
    }

    /// A new policy moves every due time and the counts with it.
    @Test(arguments: StoreBackend.allCases)
    func newPolicyMovesDueTimes(_ backend: StoreBackend) async throws {
        let store = try backend.open(policy: policy, now: start).store
        _ = try await report(store, "a", .whileInUse, at: 0)
        #expect(await store.nextWakeAt() == start.addingTimeInterval(60))
        await store.setPolicy(
            ReminderPolicy(configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 600))))
        #expect(await store.nextWakeAt() == start.addingTimeInterval(600))
        #expect(await store.statistics().nextReminderAt == start.addingTimeInterval(600))
        await store.close()
    }
}

/// A count shared with a store's transaction closure.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
