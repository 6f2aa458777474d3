import Foundation
import Logging
import RemindConfig
import RemindCore
import RemindDaemon
import RemindStore
import RemindTesting
import Testing

/// The scheduler loop driven by a manual clock: no real sleeping, every wake-up exact. The
/// store is the in-memory one: the scheduler sees only the store protocol, so no state
/// directory is needed.
struct SchedulerServiceTests {
    final class Setup: Sendable {
        let clock = ManualClock()
        let store: MemoryStateStore
        let runtime: DaemonRuntime

        init(delay: Int64 = 60, recurring: Bool = false) throws {
            var configuration = DaemonConfiguration(
                defaults: .init(stateDirectory: "/nonexistent/remindd-state", socket: "/nonexistent/remindd.sock"))
            configuration.notification.notificationTriggerDelay = delay
            configuration.notification.showRecurringNotification = recurring
            let clock = self.clock
            store = MemoryStateStore(
                sinks: ["file"], policy: ReminderPolicy(configuration: configuration.policy), now: clock.wallNow)
            let fixed = configuration
            runtime = DaemonRuntime(
                configuration: configuration, store: store, sinks: [], logger: Logger(label: "test"),
                wallClock: { clock.wallNow }, reread: { fixed })
        }

        func report(_ user: String, _ location: LocationAuthorization) async throws {
            _ = try await store.storeReport(
                PermissionReport(location: location, observedAt: clock.wallNow), for: Fixtures.userID(user),
                receivedAt: clock.wallNow)
        }

        /// Pending events for the file sink, oldest first, completing each.
        func drain() async -> [OutboxEvent] {
            var events: [OutboxEvent] = []
            while let event = await store.claimEvent(for: "file") {
                events.append(event)
                await store.complete(event.id, sink: "file")
            }
            return events
        }
    }

    /// The loop sleeps until exactly the earliest due time and fires then.
    @Test func firesAtTheDueTime() async throws {
        let setup = try Setup(delay: 60)
        try await setup.report("u1", .whileInUse)
        let service = SchedulerService(runtime: setup.runtime, clock: setup.clock, maximumSleep: .seconds(3600))
        let task = Task { try await service.run() }
        await setup.clock.waitForSleeper(until: .seconds(60))
        #expect(await setup.drain().isEmpty)
        setup.clock.advance(by: .seconds(60))
        // After firing, the loop has nothing due and sleeps its maximum from the new now.
        await setup.clock.waitForSleeper(until: .seconds(3660))
        let events = await setup.drain()
        #expect(events.map(\.kind) == [.reminder])
        #expect(events.first?.json.contains(#""createdAt":"\#(RFC3339.format(setup.clock.wallNow))""#) == true)
        task.cancel()
        await setup.store.close()
    }

    /// A report that makes something due sooner wakes the sleeping loop at once.
    @Test func reportWithEarlierDueTimeWakesTheLoop() async throws {
        let setup = try Setup(delay: 10)
        let service = SchedulerService(runtime: setup.runtime, clock: setup.clock, maximumSleep: .seconds(3600))
        let task = Task { try await service.run() }
        await setup.clock.waitForSleeper(until: .seconds(3600))
        setup.clock.advance(by: .seconds(5))
        try await setup.report("u2", .denied)
        // Woken by the report: now sleeping until its due time, 5 + 10 s.
        await setup.clock.waitForSleeper(until: .seconds(15))
        setup.clock.advance(by: .seconds(10))
        await setup.clock.waitForSleeper(until: .seconds(3615))
        #expect(await setup.drain().map(\.userID.rawValue) == ["u2"])
        task.cancel()
        await setup.store.close()
    }

    /// The wall clock set an hour forward and then an hour back under a running scheduler
    /// (recurring reminders every 10 minutes): the jump forward is noticed within the 1 s sleep
    /// cap and yields one reminder, not six catch-ups; the jump back repeats none; the next one
    /// comes once the wall clock reaches its due time again.
    @Test func wallClockJumpsNeitherLoseNorDuplicateReminders() async throws {
        let setup = try Setup(delay: 600, recurring: true)
        try await setup.report("jumper", .whileInUse)
        let service = SchedulerService(runtime: setup.runtime, clock: setup.clock, maximumSleep: .seconds(1))
        let task = Task { try await service.run() }
        await setup.clock.waitForSleeper(until: .seconds(1))

        setup.clock.jumpWallClock(by: .seconds(3600))
        setup.clock.advance(by: .seconds(1))
        await setup.clock.waitForSleeper(until: .seconds(2))
        let afterForward = await setup.drain()
        #expect(afterForward.map(\.kind) == [.reminder])
        #expect(afterForward.first?.json.contains(#""sequence":1"#) == true)

        setup.clock.jumpWallClock(by: .seconds(-3600))
        for second in 3...30 {
            setup.clock.advance(by: .seconds(1))
            await setup.clock.waitForSleeper(until: .seconds(Int64(second)))
        }
        #expect(await setup.drain().isEmpty, "a reminder repeated after the clock went back")

        // The next is due 600 s after the first was delivered, whatever the clock did since:
        // one second before that nothing, at it the second reminder.
        let due = try #require(await setup.store.nextWakeAt())
        #expect(due == setup.clock.epoch.addingTimeInterval(3601 + 600))
        let gap = due.timeIntervalSince(setup.clock.wallNow)
        setup.clock.jumpWallClock(by: .milliseconds(Int64(gap * 1000)) - .seconds(2))
        setup.clock.advance(by: .seconds(1))
        await setup.clock.waitForSleeper(until: .seconds(31))
        #expect(await setup.drain().isEmpty, "a reminder came early")
        setup.clock.advance(by: .seconds(1))
        await setup.clock.waitForSleeper(until: .seconds(32))
        let next = await setup.drain()
        #expect(next.map(\.kind) == [.reminder])
        #expect(next.first?.json.contains(#""sequence":2"#) == true)
        task.cancel()
        await setup.store.close()
    }
}
