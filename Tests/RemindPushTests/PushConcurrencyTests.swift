import Foundation
import RemindCore
import RemindPush
import RemindSinks
import RemindStore
import RemindTesting
import Synchronization
import Testing

/// Many due users at once: one HTTP/2 connection, `maxConcurrency` streams in flight.
@Suite(.ownThread)
struct PushConcurrencyTests {
    /// 200 users due at once go out over one connection with exactly `maxConcurrency` (64)
    /// requests in flight at the peak, each user once, each with its own apns-id.
    @Test func twoHundredDueUsersShareOneConnectionWithMaxConcurrencyStreams() async throws {
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))
        let harness = try PushHarness(policy: policy)
        for n in 0..<200 {
            try await harness.report("u-\(n)", push: .set(PushAddress(service: .apns, token: PushHarness.apnsToken(n))))
        }
        let fired = try await harness.store.fireDue(now: PushHarness.start + .seconds(60), limit: 1000)
        #expect(fired.events.count == 200)

        struct Flight {
            var now = 0
            var most = 0
        }
        let flight = Mutex(Flight())
        let peak = Gate()
        harness.server.respond { _ in
            let most = flight.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
                return $0.most
            }
            // Hold every request until 64 were in flight at once: proof the sink multiplexes
            // that many, and room to see a 65th if it did not stop there.
            if most >= 64 { peak.open() }
            await peak.wait()
            flight.withLock { $0.now -= 1 }
            return .init(200)
        }
        try await harness.server.serving {
            try await withClient(harness) { client in
                let sink = try harness.apnsSink(client: client)
                let dispatcher = SinkDispatcher(
                    sink: sink, retry: .default, source: harness.store, clock: ContinuousClock(),
                    logger: .init(label: "test"), maxConcurrency: 64, deadLetter: { _, _, _ in })
                let task = Task { await dispatcher.run() }
                defer { task.cancel() }
                try await waitUntil("200 pushes", within: .seconds(60)) {
                    sink.metrics.snapshot[.delivered, default: 0] == 200
                }
                task.cancel()
                await task.value
            }
        }
        let requests = harness.server.requests(to: "/3/device/")
        #expect(requests.count == 200)
        #expect(Set(requests.map(\.connection)).count == 1)
        #expect(Set(requests.map(\.path)).count == 200)
        #expect(Set(requests.compactMap { $0.headers["apns-id"] }).count == 200)
        #expect(flight.withLock { $0.most } == 64)
        #expect(await harness.store.pendingEvents(for: "apns") == 0)
    }
}
