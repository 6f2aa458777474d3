import Foundation
import RemindCore
import RemindTesting
import Testing

/// `FiredChange`, the delta the scheduler records when it fires a user from their schedule
/// alone, checked over the simulations' firings: it is what firing the record does,
/// the schedule follows the record, and applying it again, or after later steps, changes
/// nothing (what lets a replay apply it to a file or snapshot row that may hold it already).
struct FiredChangeTests {
    @Test func firedChangesFollowTheRecordAndApplyOnce() async throws {
        var checked = (deliveries: 0, heldOut: 0, suppressions: 0, heartbeats: 0, later: 0)
        for seed in propertySeeds(0x5EED_F17E, count: 120) {
            // Pure CPU: let the suite's other tests (servers answering with deadlines) run between
            // cases, on a machine whose cooperative pool has two threads.
            await Task.yield()
            var rng = SplitMix64(seed: seed)
            var configuration = PropertyTests.randomConfiguration(using: &rng)
            if rng.chance(0.3) {
                configuration.experiment = Experiment(holdoutPercent: 100)
            }
            let reports = ReportGenerator.reports(count: rng.int(1...20), using: &rng)
            let schedule = ReportGenerator.receiveSchedule(reports, using: &rng)
            let simulation = PolicySimulation.run(configuration, schedule: schedule, tail: 86_400, using: &rng)
            let records = simulation.records
            for (index, step) in simulation.steps.enumerated() {
                guard case .fire(let now, let before, _, let outcome) = step else { continue }
                let fired = simulation.policy.fire(before.schedule, now: now, daemonStartedAt: nil)
                #expect(fired.events == outcome.events, "seed \(seed)")
                var record = before
                record.apply(fired.change)
                #expect(record == outcome.record, "seed \(seed)")
                var row = before.schedule
                row.apply(fired.change)
                #expect(row == outcome.record.schedule, "seed \(seed)")
                // Once more: nothing.
                let changedAgain = record.apply(fired.change)
                #expect(!changedAgain && record == outcome.record, "seed \(seed)")
                row.apply(fired.change)
                #expect(row == outcome.record.schedule, "seed \(seed)")
                // After any later step: nothing either.
                for later in records[(index + 1)...].prefix(4) {
                    var again = later
                    let changed = again.apply(fired.change)
                    #expect(!changed && again == later, "seed \(seed)")
                    var laterRow = later.schedule
                    laterRow.apply(fired.change)
                    #expect(laterRow == later.schedule, "seed \(seed)")
                    checked.later += 1
                }
                // The log's encoding reads back equal.
                var writer = JSONWriter()
                fired.change.write(to: &writer)
                guard case .object(let object) = try JSONParser.parse(writer.bytes[...]) else {
                    Issue.record("not an object")
                    continue
                }
                #expect(try FiredChange(object: object) == fired.change, "seed \(seed)")
                if let delivery = fired.change.delivery {
                    if delivery.heldOut { checked.heldOut += 1 } else { checked.deliveries += 1 }
                }
                if fired.change.suppressedAfter != nil { checked.suppressions += 1 }
                if fired.change.heartbeatAt != nil { checked.heartbeats += 1 }
            }
        }
        #expect(checked.deliveries > 0 && checked.heldOut > 0 && checked.suppressions > 0)
        #expect(checked.heartbeats > 0 && checked.later > 0)
    }

    /// A change whose members contradict each other is refused, naming the member.
    @Test func malformedChangeNamesTheMember() throws {
        for (json, field) in [
            (#"{"userID":"u","suppressedAfter":0}"#, "episodeStartedAt"),
            (#"{"episodeStartedAt":"2026-11-15T10:00:00Z"}"#, "userID"),
            (#"{"userID":"u","heartbeatAt":"yesterday"}"#, "heartbeatAt"),
            (#"{"userID":"u","extra":1}"#, "extra"),
        ] {
            guard case .object(let object) = try JSONParser.parse(Array(json.utf8)[...]) else {
                Issue.record("not an object")
                continue
            }
            #expect(throws: ValidationError.self) { try FiredChange(object: object) }
            do {
                _ = try FiredChange(object: object)
            } catch {
                #expect(error.field == field, "\(json)")
            }
        }
    }
}
