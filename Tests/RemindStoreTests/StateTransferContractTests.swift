import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

/// `StateTransfer`, the reading and writing of a whole state that `remindd migrate` does, on
/// every backend: a state copied out of one and into another reads back the same, and copying
/// it again changes nothing.
struct StateTransferContractTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))
    let sinks = ["file", "hook"]

    /// Users with histories, an open episode, a closed one (an outcome), a reminder pending for
    /// both sinks and one for one sink only, and a dead letter.
    func fill(_ store: any StateStore) async throws {
        func report(_ user: String, _ location: LocationAuthorization, at offset: Double) async throws {
            let at = start.addingTimeInterval(offset)
            try await store.storeReport(
                PermissionReport(location: location, observedAt: at), for: Fixtures.userID(user), receivedAt: at)
        }
        for user in ["a", "b", "c", "d"] { try await report(user, .whileInUse, at: 0) }
        try await report("e", .always, at: 0)
        let fired = try await store.fireDue(now: start.addingTimeInterval(60))
        #expect(fired.events.count == 4)
        let byUser = Dictionary(uniqueKeysWithValues: fired.events.map { ($0.userID.rawValue, $0) })
        // a: delivered to both sinks; b: to file only; c: given up on by hook.
        for sink in sinks { await store.complete(try #require(byUser["a"]).id, sink: sink) }
        await store.complete(try #require(byUser["b"]).id, sink: "file")
        let letter = try #require(byUser["c"])
        try await store.deadLetter(
            DeadLetterRecord(event: letter, sink: "hook", attempts: 5, lastError: "HTTP 500", deadLetteredAt: start))
        await store.complete(letter.id, sink: "hook")
        // a fixes it: the episode closes with an outcome and a withdraw event.
        try await report("a", .always, at: 120)
        try await report("b", .denied, at: 130)
    }

    /// What a daemon on the store would answer, reduced to values.
    struct Seen: Equatable {
        var records: [UserRecord]
        var events: [String: [String]]
        var letters: [DeadLetterRecord]
        var outcomes: Set<EpisodeOutcome>
        var reminders: [ScheduledReminder]
        var users: Int
        var openEpisodes: Int
        var pendingReminders: Int
        var stats: StatsReport
    }

    func seen(_ store: any StateTransfer) async throws -> Seen {
        var events: [String: [String]] = [:]
        var cursor: String?
        repeat {
            let page = try await store.exportEvents(after: cursor, limit: 2)
            for pending in page.items { events[pending.event.id, default: []] += pending.sinks }
            cursor = page.next
        } while cursor != nil
        var outcomes: [EpisodeOutcome] = []
        cursor = nil
        repeat {
            let page = try await store.exportOutcomes(after: cursor, limit: 1)
            outcomes += page.items
            cursor = page.next
        } while cursor != nil
        let statistics = await store.statistics()
        return Seen(
            records: try await store.users(after: nil, limit: 100), events: events.mapValues { $0.sorted() },
            letters: await store.deadLetters(), outcomes: Set(outcomes),
            reminders: await store.pendingReminders(dueBefore: nil, limit: 100), users: statistics.users,
            openEpisodes: statistics.openEpisodes, pendingReminders: statistics.pendingReminders,
            stats: await store.stats(since: start.addingTimeInterval(-86_400), until: start.addingTimeInterval(86_400)))
    }

    /// Copies everything the way `remindd migrate` does, in small pages.
    func copy(_ source: any StateTransfer, into target: any StateTransfer) async throws {
        var after: UserID?
        while true {
            let page = try await source.users(after: after, limit: 2)
            try await target.importUsers(page)
            guard page.count == 2, let last = page.last else { break }
            after = last.userID
        }
        var cursor: String?
        repeat {
            let page = try await source.exportEvents(after: cursor, limit: 1)
            try await target.importEvents(page.items)
            cursor = page.next
        } while cursor != nil
        for letter in await source.deadLetters() { try await target.deadLetter(letter) }
        cursor = nil
        repeat {
            let page = try await source.exportOutcomes(after: cursor, limit: 1)
            try await target.importOutcomes(page.items)
            cursor = page.next
        } while cursor != nil
        try await target.checkpoint(snapshot: true)
    }

    func open(_ backend: StoreBackend) throws -> (any StateTransfer, StoreBackend.Opened) {
        let opened = try backend.open(policy: policy, sinks: sinks, now: start)
        return (try #require(opened.store as? any StateTransfer), opened)
    }

    /// Out of each backend into memory, and from memory into each backend: the copy answers as
    /// the original, and a second copy over it (a resumed migration) changes nothing.
    @Test(arguments: StoreBackend.allCases)
    func aCopyAnswersAsTheOriginal(_ backend: StoreBackend) async throws {
        let (original, kept) = try open(backend)
        try await fill(original)
        let expected = try await seen(original)
        #expect(expected.outcomes.count == 1)
        #expect(expected.letters.count == 1)
        #expect(expected.events.count >= 3)

        let (middle, _) = try open(.memory)
        try await copy(original, into: middle)
        #expect(try await seen(middle) == expected)

        let (copied, reopen) = try open(backend)
        try await copy(middle, into: copied)
        try await copy(middle, into: copied)
        #expect(try await seen(copied) == expected)
        // And so it stays across a restart.
        await copied.close()
        if let again = try reopen.reopen(policy: policy, sinks: sinks, now: start) as? any StateTransfer {
            #expect(try await seen(again) == expected)
            await again.close()
        }
        await original.close()
        _ = kept
    }

    /// The marker is nil until set, durable once set, and gone once cleared.
    @Test(arguments: StoreBackend.allCases)
    func theMarkerIsKeptUntilCleared(_ backend: StoreBackend) async throws {
        let (store, opened) = try open(backend)
        #expect(try await store.migrationMarker() == nil)
        try await store.setMigrationMarker(#"{"source":"x"}"#)
        #expect(try await store.migrationMarker() == #"{"source":"x"}"#)
        await store.close()
        let again = try opened.reopen(policy: policy, sinks: sinks, now: start) as? any StateTransfer
        if let again {
            #expect(try await again.migrationMarker() == #"{"source":"x"}"#)
            try await again.setMigrationMarker(nil)
            #expect(try await again.migrationMarker() == nil)
            await again.close()
        }
    }
}
