import Foundation
import RemindCore
import RemindTesting
import Testing

@testable import RemindStore

/// The files backend in parts (`storage.parts`): every user in exactly one part, for good; the
/// whole answers as one store would; a crash is recovered part by part; a directory opened
/// with another division is refused, naming the key.
struct PartitionedStateStoreTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(
            notification: .init(showRecurringNotification: true, notificationTriggerDelay: 60)))

    /// Each user's file is in the part the stable hash names, and every part holds some: the
    /// division is by user, spread, and the same in every process.
    @Test func usersLiveInThePartTheirHashNames() async throws {
        let fixture = try StoreFixture()
        let store = try #require(try fixture.open(parts: 3, policy: policy, now: start) as? PartitionedStateStore)
        let users = (0..<60).map { Fixtures.userID("user-\($0)") }
        for user in users {
            _ = try await store.storeReport(
                PermissionReport(location: .whileInUse, observedAt: start), for: user, receivedAt: start)
        }
        await store.close()
        var perPart = [0, 0, 0]
        for user in users {
            let index = PartLayout.index(of: user, parts: 3)
            perPart[index] += 1
            let path = store.userFilePath(user)
            #expect(path.hasPrefix(fixture.directory + "/part-\(index)-of-3/users/"))
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(perPart.allSatisfy { $0 >= 10 }, "\(perPart)")
        // A constant of the on-disk format: a change of the hash would lose users' state.
        #expect(PartLayout.index(of: Fixtures.userID("user-0"), parts: 3) == Self.partOfUser0)
    }

    static let partOfUser0 = Int(StableHash.mixed("user-0") % 3)

    /// The same operations on one store and on three parts give the same answers: records,
    /// counts, pending reminders, fires, the outbox, dead letters and `/v1/stats`; and so does
    /// the three-part store recovered from a crash copy.
    @Test func partsAnswerAsOneStoreDoes() async throws {
        let single = try StoreFixture()
        let divided = try StoreFixture()
        let one = try single.open(policy: policy, sinks: ["file", "hook"], now: start)
        let three = try divided.open(parts: 3, policy: policy, sinks: ["file", "hook"], now: start)
        let users = (0..<40).map { Fixtures.userID("u\($0)") }
        var now = start
        for _ in 0..<4 {
            now = try await runRandomly(one, three, users: users, seed: 17, steps: 150, from: now)
            try await expectSameAnswers(one, three, users: users, now: now)
        }
        try await three.checkpoint(snapshot: true)
        _ = try await report(three, users[0], at: now)
        _ = try await report(one, users[0], at: now)
        let crashed = try divided.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        await three.close()
        let recovered = try divided.open(crashed, parts: 3, policy: policy, sinks: ["file", "hook"], now: start)
        try await expectSameAnswers(one, recovered, users: users, now: now, restarted: true)
        await recovered.close()
        await one.close()
    }

    /// The router is any store's: three memory stores behind a `PartitionedStore` answer as one
    /// memory store does, under the same random reports, fires, deliveries and deletes, and
    /// their users page in one byte order.
    @Test func anyStoreCanBeDivided() async throws {
        let sinks = ["file", "hook"]
        let one = MemoryStateStore(sinks: sinks, policy: policy, now: start)
        let signals = StoreSignals(sinks: sinks)
        let three = PartitionedStore(
            parts: (0..<3).map { _ in MemoryStateStore(sinks: sinks, policy: policy, now: start, signals: signals) },
            daemonStartedAt: start, signals: signals)
        let users = (0..<30).map { Fixtures.userID("m\($0)") }
        let now = try await runRandomly(one, three, users: users, seed: 23, steps: 400, from: start)
        try await expectSameAnswers(one, three, users: users, now: now)
        #expect(
            try await one.users(after: nil, limit: 7).map(\.userID) == three.users(after: nil, limit: 7).map(\.userID))
        #expect(
            try await one.users(after: users[3], limit: 100).map(\.userID)
                == three.users(after: users[3], limit: 100).map(\.userID))
        await three.close()
    }

    /// `limit` holds for the whole: divided among the parts, every due user fires over the
    /// passes the scheduler makes, none twice.
    @Test func fireLimitHoldsForAllPartsTogether() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(parts: 3, policy: policy, now: start)
        let users = (0..<10).map { Fixtures.userID("due-\($0)") }
        for user in users { _ = try await report(store, user, at: start) }
        var fired: [UserID] = []
        // As the scheduler does: another pass while anything is due; a limit of 1 too (below
        // the part count) reaches every part.
        for limit in [2, 1, 1, 1, 1, 1, 1, 4, 2, 5, 1, 1, 1, 1, 1, 1, 10, 10] {
            let summary = try await store.fireDue(now: start + .seconds(60), limit: limit)
            #expect(summary.users <= limit)
            fired += summary.events.map { $0.userID }
        }
        #expect(fired.sorted() == users.sorted())
        #expect(try await store.fireDue(now: start + .seconds(60), limit: 10).users == 0)
        await store.close()
    }

    /// The same random reports, fires, deliveries and forgets on both stores, `steps` of them
    /// from `from` on, each answered alike; returns the time reached.
    private func runRandomly(
        _ one: any StateStore, _ divided: any StateStore, users: [UserID], seed: UInt64, steps: Int, from: Date
    ) async throws -> Date {
        var random = SplitMix64(seed: seed &+ UInt64(from.timeIntervalSince1970))
        var now = from
        for _ in 0..<steps {
            // Whole seconds: what the files keep of a time (a dead letter's, after recovery).
            now = now.addingTimeInterval(Double(Int.random(in: 0...3, using: &random)))
            let user = users.randomElement(using: &random)!
            switch Int.random(in: 0..<20, using: &random) {
            case 0:
                #expect(try await one.forget(user, at: now) == divided.forget(user, at: now))
            case 1, 2:
                let a = try await one.fireDue(now: now, limit: 1000)
                let b = try await divided.fireDue(now: now, limit: 1000)
                #expect(a.users == b.users && Set(a.suppressed) == Set(b.suppressed))
                #expect(a.events.map { $0.userID }.sorted() == b.events.map { $0.userID }.sorted())
            case 3:
                try await deliverAll(one, deadLetterAt: now)
                try await deliverAll(divided, deadLetterAt: now)
            default:
                let report = PermissionReport(
                    location: [.always, .whileInUse, .denied].randomElement(using: &random)!,
                    notifications: [.authorized, .denied, nil].randomElement(using: &random)!, observedAt: now)
                let a = try await one.storeReport(report, for: user, receivedAt: now)
                let b = try await divided.storeReport(report, for: user, receivedAt: now)
                #expect(a.outcome == b.outcome)
            }
        }
        return now
    }

    private func report(_ store: any StateStore, _ user: UserID, at now: Date) async throws -> ReportOutcome {
        try await store.storeReport(PermissionReport(location: .denied, observedAt: now), for: user, receivedAt: now)
            .outcome
    }

    /// Delivers what each sink may take now (all of them: which of a divided store's events come
    /// first differs): "file" completes them, "hook" dead-letters them.
    private func deliverAll(_ store: any StateStore, deadLetterAt now: Date) async throws {
        for event in await store.claimEvents(for: "file", limit: 1000) { await store.complete(event.id, sink: "file") }
        for event in await store.claimEvents(for: "hook", limit: 1000) {
            try await store.deadLetter(
                DeadLetterRecord(event: event, sink: "hook", attempts: 1, lastError: "HTTP 400", deadLetteredAt: now))
            await store.complete(event.id, sink: "hook")
        }
    }

    private func expectSameAnswers(
        _ one: any StateStore, _ parts: any StateStore, users: [UserID], now: Date, restarted: Bool = false
    ) async throws {
        for user in users {
            #expect(try await one.record(user) == parts.record(user), "\(user)")
        }
        var a = await one.statistics()
        var b = await parts.statistics()
        // Bytes of the log and records not yet written differ with the division, not the state.
        (a.logBytes, b.logBytes, a.dirtyRecords, b.dirtyRecords) = (0, 0, 0, 0)
        // Counted since start.
        if restarted { (a.suppressed, a.eventsDelivered) = (b.suppressed, b.eventsDelivered) }
        #expect(a == b)
        #expect(await one.nextWakeAt() == parts.nextWakeAt())
        #expect(
            await one.pendingReminders(dueBefore: nil, limit: 5) == parts.pendingReminders(dueBefore: nil, limit: 5))
        #expect(await one.stats(since: start, until: now + 1) == parts.stats(since: start, until: now + 1))
        // Oldest first; letters of one moment in another order across parts.
        #expect(
            await one.deadLetters().map(\.event.userID).sorted() == parts.deadLetters().map(\.event.userID).sorted())
        #expect(await parts.deadLetters().map(\.deadLetteredAt) == one.deadLetters().map(\.deadLetteredAt))
        for sink in ["file", "hook"] {
            #expect(await one.pendingEvents(for: sink) == parts.pendingEvents(for: sink))
        }
    }

    /// A directory is opened only with the division it holds: one store's directory with
    /// parts, parts with one store or another count; the error names `storage.parts` and the
    /// count to set, and the directory is left as it was.
    @Test func anotherDivisionIsRefusedNamingTheKey() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(parts: 2, policy: policy, now: start)
        _ = try await report(store, Fixtures.userID("a"), at: start)
        await store.close()
        let before = try FileManager.default.contentsOfDirectory(atPath: fixture.directory).sorted()
        for parts in [1, 3] {
            let error = #expect(throws: StoreError.self) { try fixture.open(parts: parts, policy: policy, now: start) }
            #expect(error?.isLayoutMismatch == true)
            #expect(error?.description.contains("holds 2 parts") == true, "\(String(describing: error))")
            #expect(error?.description.contains("Set storage.parts to 2") == true)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.directory).sorted() == before)
        let reopened = try fixture.open(parts: 2, policy: policy, now: start)
        #expect(try await reopened.record(Fixtures.userID("a"))?.permissions?.location == .denied)
        await reopened.close()

        let single = try StoreFixture()
        await (try single.open(policy: policy, now: start)).close()
        let error = #expect(throws: StoreError.self) { try single.open(parts: 2, policy: policy, now: start) }
        #expect(error?.description.contains("holds a single store") == true)
        #expect(error?.description.contains("Set storage.parts to 1") == true)

        // Parts of two divisions side by side (a directory put together by hand): no count is
        // right, so none is suggested, whatever is configured.
        let mixed = try StoreFixture()
        for name in ["part-0-of-2", "part-0-of-3"] {
            try FileManager.default.createDirectory(
                atPath: mixed.directory + "/" + name, withIntermediateDirectories: true)
        }
        for parts in [1, 2, 3] {
            let error = #expect(throws: StoreError.self) { try mixed.open(parts: parts, policy: policy, now: start) }
            #expect(error?.isLayoutMismatch == true)
            #expect(error?.description.contains("move the stray ones away") == true, "\(String(describing: error))")
            #expect(error?.description.contains("Set storage.parts") == false)
        }
    }

    /// A part that cannot open (here: its directory held by another store) fails the whole
    /// open with that part's error, and the parts that did open give their directories up:
    /// once the holder is gone the store opens.
    @Test func aPartThatCannotOpenFailsTheOpenAndFreesTheOthers() async throws {
        let fixture = try StoreFixture()
        let holder = try fixture.open(fixture.directory + "/part-1-of-3", policy: policy, now: start)
        let error = #expect(throws: StoreError.self) { try fixture.open(parts: 3, policy: policy, now: start) }
        #expect(error?.isLocked == true)
        #expect(error?.description.contains("part-1-of-3/lock") == true, "\(String(describing: error))")
        await holder.close()
        let store = try fixture.open(parts: 3, policy: policy, now: start)
        _ = try await report(store, Fixtures.userID("a"), at: start)
        await store.close()
    }

    /// A second daemon on the same directory is refused by the top's lock, whatever its
    /// division: the parts' own locks are not the only guard.
    @Test func oneDaemonPerDirectoryWhateverTheDivision() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(parts: 2, policy: policy, now: start)
        for parts in [1, 2] {
            let error = #expect(throws: StoreError.self) { try fixture.open(parts: parts, policy: policy, now: start) }
            #expect(error?.isLocked == true)
        }
        await store.close()
    }
}
