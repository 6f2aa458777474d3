import Foundation
import RemindCore
import RemindTesting
import Testing

/// `RecordDelta`, a change as the log keeps it, checked over the simulations' records:
/// applied to the revision it was made from it gives the new record exactly, its encoding reads
/// back equal, any other revision refuses it, and it is small where the history is long.
struct RecordDeltaTests {
    @Test func deltasRebuildEveryStepOfTheSimulations() async throws {
        var checked = (steps: 0, kept: 0, truncated: 0, episodesKept: 0)
        for seed in propertySeeds(0xDE17_A5ED, count: 25) {
            // Pure CPU: let the suite's servers run between cases (two pool threads here).
            await Task.yield()
            var rng = SplitMix64(seed: seed)
            var configuration = PropertyTests.randomConfiguration(using: &rng)
            // Short histories make the policy drop the oldest entries, which the delta must span.
            if rng.chance(0.4) { configuration.historyMaxEntries = rng.int(2...6) }
            let reports = ReportGenerator.reports(count: rng.int(2...20), using: &rng)
            let schedule = ReportGenerator.receiveSchedule(reports, using: &rng)
            let simulation = PolicySimulation.run(configuration, schedule: schedule, tail: 86_400, using: &rng)
            var records = simulation.records
            for index in records.indices { records[index].revision = index + 1 }
            for (base, next) in zip(records, records.dropFirst()) {
                let delta = RecordDelta(from: base, to: next)
                #expect(delta.applied(to: base) == next, "seed \(seed), revision \(next.revision)")
                // Any other revision refuses it: the kept range means nothing there.
                #expect(delta.applied(to: next) == nil, "seed \(seed)")
                var older = base
                older.revision -= 1
                #expect(delta.applied(to: older) == nil, "seed \(seed)")
                // The log's line reads back as the same delta (every third step: JSON is the cost).
                if next.revision % 3 == 0 {
                    #expect(try LogTesting.decodeChange(delta.jsonBytes) == delta, "seed \(seed)")
                }
                // The newest entry before is never kept (repeats change it: see `RecordDelta`).
                #expect(delta.keep.isEmpty || delta.keep.lowerBound >= 1, "seed \(seed)")
                #expect(delta.episodesKeep.isEmpty || delta.episodesKeep.lowerBound >= 1, "seed \(seed)")
                checked.steps += 1
                if !delta.keep.isEmpty { checked.kept += 1 }
                if !delta.keep.isEmpty && delta.keep.upperBound < base.history.count { checked.truncated += 1 }
                if !delta.episodesKeep.isEmpty { checked.episodesKept += 1 }
            }
        }
        #expect(
            checked.steps > 600 && checked.kept > 300 && checked.truncated > 0 && checked.episodesKept > 0,
            "\(checked)")
    }

    /// The point of the delta: a change to a user with a long history logs a line of the
    /// change's size, where the whole record was ten times that and more.
    @Test func aChangeOfALongHistoryIsASmallLine() throws {
        let policy = ReminderPolicy(configuration: PolicyConfiguration(historyMaxEntries: 100))
        let userID = Fixtures.userID("long")
        var record: UserRecord?
        var start = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<61 {
            start += 3600
            let report = Fixtures.report(index.isMultiple(of: 2) ? .always : .whileInUse, at: RFC3339.format(start))
            let outcome = policy.apply(report, to: record, userID: userID, receivedAt: start)
            var next = outcome.record
            next.revision = (record?.revision ?? 0) + 1
            if index == 60, let record {
                let delta = RecordDelta(from: record, to: next)
                let put = next.jsonBytes.count
                let change = delta.jsonBytes.count
                #expect(next.history.count == 61)
                #expect(delta.keep.count >= 59)
                #expect(change * 10 < put, "change line \(change) B, whole record \(put) B")
            }
            record = next
        }
    }

    /// A logged change whose members are wrong is refused, naming the member.
    @Test func malformedChangeNamesTheMember() throws {
        let policy = ReminderPolicy(configuration: PolicyConfiguration())
        let userID = Fixtures.userID("bad")
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        var records: [UserRecord] = []
        for (index, location) in [LocationAuthorization.whileInUse, .always, .whileInUse, .always].enumerated() {
            let time = at + .seconds(60 * index)
            var record = policy.apply(
                Fixtures.report(location, at: RFC3339.format(time)), to: records.last, userID: userID, receivedAt: time
            ).record
            record.revision = index + 1
            records.append(record)
        }
        let delta = RecordDelta(from: records[2], to: records[3])
        #expect(delta.keep == 1..<3 && delta.episodesKeep == 1..<2)
        let good = String(decoding: delta.jsonBytes, as: UTF8.self)
        for (from, to, field) in [
            (#""historyKeep":{"from":1,"count":2}"#, #""historyKeep":{"from":1}"#, "historyKeep"),
            (#""episodesKeep":{"from":1,"count":1}"#, #""episodesKeep":[1]"#, "episodesKeep"),
            (#""revision":4,"#, "", "revision"),
            (#""revision":4"#, #""revision":-1"#, "revision"),
            (#""historyKeep":{"from":1,"count":2}"#, #""historyKeep":{"from":1,"count":"x"}"#, "historyKeep.count"),
        ] {
            let bad = good.replacingOccurrences(of: from, with: to)
            #expect(bad != good, "\(from) is in \(good)")
            do {
                _ = try LogTesting.decodeChange(Array(bad.utf8))
                Issue.record("accepted \(bad)")
            } catch let error as ValidationError {
                #expect(error.field == field, "\(bad)")
            }
        }
    }
}

/// Reads the `record` member of a `change` line as `LogEntry` does (the store's enum is internal).
enum LogTesting {
    static func decodeChange(_ bytes: [UInt8]) throws -> RecordDelta {
        guard case .object(let object) = try JSONParser.parse(bytes[...]) else {
            throw ValidationError(field: "", reason: "not an object")
        }
        return try RecordDelta(object: object)
    }
}
