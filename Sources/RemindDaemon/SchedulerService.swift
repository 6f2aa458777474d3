import Foundation
import Logging
import RemindCore
import RemindStore
import ServiceLifecycle
import Systemd

/// The single timer loop: sleeps until the earliest due time, fires what is due, and sleeps
/// again. A report that moves a due time earlier wakes it at once; the sleep is capped so a
/// jump of the wall clock is noticed within `maximumSleep`.
///
/// It also sends `WATCHDOG=1` (when systemd asks for it) from the loop itself, so a stuck
/// scheduler gets the daemon restarted rather than silently stopping reminders.
public struct SchedulerService<C: Clock>: Service where C.Duration == Duration {
    let runtime: DaemonRuntime
    let clock: C
    let maximumSleep: Duration
    let watchdogInterval: Duration?
    /// Users fired per pass, so that a million reminders due at once are written in batches
    /// that share log commits, while reports keep being served in between.
    let batchSize: Int
    /// How often `STATUS=` is refreshed. The counts cost nothing (the store keeps them
    /// current); this bounds the datagrams to systemd, which shows only the latest.
    let statusInterval: Duration = .seconds(10)

    public init(
        runtime: DaemonRuntime, clock: C, maximumSleep: Duration = .seconds(1), watchdogInterval: Duration? = nil,
        batchSize: Int = 2048
    ) {
        self.runtime = runtime
        self.clock = clock
        self.maximumSleep = maximumSleep
        self.watchdogInterval = watchdogInterval
        self.batchSize = batchSize
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withHighPriority { await loop() }
        }
    }

    private func loop() async {
        let store = runtime.store
        var lastWatchdog = clock.now
        var lastStatus = clock.now
        var statusSent = false
        var failures = 0
        while !Task.isCancelled {
            if let watchdogInterval, lastWatchdog.duration(to: clock.now) >= watchdogInterval {
                _ = runtime.notifier.watchdog()
                lastWatchdog = clock.now
            }
            if !statusSent || lastStatus.duration(to: clock.now) >= statusInterval {
                await sendStatus()
                lastStatus = clock.now
                statusSent = true
            }
            let now = runtime.wallClock()
            do {
                // The statuses answered for the fired users' repeats are the old records': they
                // go before the new ones are stored, so no repeat is answered from them after.
                let repeats = runtime.repeats
                let fired = try await store.fireDue(now: now, limit: batchSize) { repeats?.invalidate($0) }
                failures = 0
                if fired.users > 0 {
                    report(fired)
                    continue
                }
            } catch {
                // Full disk, database down: the users stay due; try again with a growing pause,
                // at most 5 s (a database back after a failover is used within seconds) and never
                // longer than the watchdog's interval (a long outage must not look like a hang).
                failures += 1
                runtime.count { $0.lastError = "\(error)" }
                runtime.logger.error("firing due reminders failed (attempt \(failures)): \(error)")
                var pause = Duration.seconds(min(5, failures))
                if let watchdogInterval { pause = min(pause, watchdogInterval) }
                try? await clock.sleep(for: pause)
                continue
            }
            var wait = maximumSleep
            if let next = await store.nextWakeAt() {
                let seconds = max(0, next.timeIntervalSince(runtime.wallClock()))
                wait = min(wait, .milliseconds(Int64((seconds * 1000).rounded(.up))))
            }
            if let watchdogInterval { wait = min(wait, watchdogInterval) }
            guard wait > .zero else { continue }
            let pause = wait
            let clock = self.clock
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await clock.sleep(for: pause) }
                group.addTask { await store.scheduleChanged.wait() }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// `STATUS=` for `systemctl status`: users, pending reminders, the next due time and the
    /// last error, refreshed every `statusInterval`.
    private func sendStatus() async {
        // Until the store is ready (the database answered), its own STATUS= says what it waits for.
        guard runtime.storeReady.isOpen else { return }
        let statistics = await runtime.store.statistics()
        var status = "\(statistics.users) users, \(statistics.pendingReminders) reminders pending"
        if let next = statistics.nextReminderAt { status += ", next due \(RFC3339.format(next))" }
        if let error = runtime.counts.lastError { status += "; last error: \(error)" }
        _ = runtime.notifier.status(status)
    }

    private func report(_ fired: FireSummary) {
        runtime.metrics.recordFired(fired)
        for event in fired.events where event.kind == .reminder {
            runtime.logger.info(
                "reminder \(event.id) due for \(event.userID)",
                metadata: [
                    "REMINDD_USER_ID": .string(event.userID.rawValue), "REMINDD_EVENT_ID": .string(event.id),
                ])
        }
        for userID in fired.suppressed {
            runtime.logger.info(
                "reminder for \(userID) suppressed: notifications are off",
                metadata: [
                    MessageID.metadataKey: MessageID.reminderSuppressed.metadataValue,
                    "REMINDD_USER_ID": .string(userID.rawValue),
                ])
        }
    }
}
