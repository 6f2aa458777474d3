import Foundation
import RemindCore
import RemindTesting
import Testing

/// One step of a simulated daemon driving one user's record.
enum SimulationStep {
    case report(ScheduledReport, outcome: ReportOutcome)
    /// A firing at `now`, with the record before it and the newest observation received so far.
    case fire(now: Date, before: UserRecord, newestReceived: PermissionReport, outcome: RecordFireOutcome)
}

/// Drives the policy the way the scheduler does: reports applied in receive order, `fire` at
/// every `nextWakeAt` and at random moments in between, the clock only moving forward.
struct PolicySimulation {
    let policy: ReminderPolicy
    let userID = Fixtures.userID("sim-user")
    var record: UserRecord?
    var now = Date(timeIntervalSince1970: 0)
    var steps: [SimulationStep] = []
    /// Set when `nextWakeAt` was not after `now` yet `fire` did nothing: the scheduler would spin.
    var stuckAt: Date?

    init(_ configuration: PolicyConfiguration) {
        policy = ReminderPolicy(configuration: configuration)
    }

    static func run(
        _ configuration: PolicyConfiguration, schedule: [ScheduledReport], tail: TimeInterval,
        using rng: inout SplitMix64
    ) -> PolicySimulation {
        var simulation = PolicySimulation(configuration)
        var newest: PermissionReport?
        for item in schedule {
            if let newest {
                simulation.fireUntil(item.receivedAt, newestReceived: newest, using: &rng)
            }
            simulation.apply(item)
            if newest.map({ $0.observedAt < item.report.observedAt }) ?? true {
                newest = item.report
            }
        }
        if let newest, let last = schedule.last {
            simulation.fireUntil(last.receivedAt.addingTimeInterval(tail), newestReceived: newest, using: &rng)
        }
        return simulation
    }

    mutating func apply(_ item: ScheduledReport) {
        now = max(now, item.receivedAt)
        let outcome = policy.apply(item.report, to: record, userID: userID, receivedAt: item.receivedAt)
        record = outcome.record
        steps.append(.report(item, outcome: outcome))
    }

    /// Fires at every wake-up before `end` and at a few random instants before it.
    mutating func fireUntil(_ end: Date, newestReceived: PermissionReport, using rng: inout SplitMix64) {
        guard var record, stuckAt == nil else { return }
        let from = now.unixMilliseconds
        let to = end.unixMilliseconds
        var randomTimes: [Date] = []
        if to > from + 1 {
            randomTimes = (0..<rng.int(0...3)).map { _ in Date(unixMilliseconds: rng.int64(from...(to - 1))) }.sorted()
        }
        for iteration in 0...10_000 {
            if iteration == 10_000 {
                stuckAt = now
                break
            }
            let wake = policy.nextWakeAt(record, daemonStartedAt: nil)
            let candidate = min(wake ?? .distantFuture, randomTimes.first ?? .distantFuture)
            guard candidate < end else { break }
            if let first = randomTimes.first, first <= candidate { randomTimes.removeFirst() }
            let at = max(candidate, now)
            now = at
            let outcome = policy.fire(record, now: at, daemonStartedAt: nil)
            if let wake, wake <= at, !outcome.changed {
                stuckAt = at
                break
            }
            steps.append(.fire(now: at, before: record, newestReceived: newestReceived, outcome: outcome))
            record = outcome.record
        }
        self.record = record
    }

    var reminders: [SinkEvent.Reminder] {
        steps.flatMap { step -> [SinkEvent.Reminder] in
            guard case .fire(_, _, _, let outcome) = step else { return [] }
            return outcome.events.compactMap { if case .reminder(let event) = $0 { event } else { nil } }
        }
    }

    /// Every record the simulation produced, after each step.
    var records: [UserRecord] {
        steps.map { step in
            switch step {
            case .report(_, let outcome): outcome.record
            case .fire(_, _, _, let outcome): outcome.record
            }
        }
    }
}

/// Random configurations, reports and firings checked against the policy's invariants.
struct PropertyTests {
    static let caseCount = 300
    static let delay: Int64 = 3600

    static func randomConfiguration(
        using rng: inout SplitMix64, recurring: Bool? = nil, plainTiming: Bool = false
    ) -> PolicyConfiguration {
        let notification = LocationNotificationConfiguration(
            showRecurringNotification: recurring ?? rng.chance(0.5), notificationTriggerDelay: delay)
        return PolicyConfiguration(
            notification: notification,
            quietHours: !plainTiming && rng.chance(0.3) ? QuietHours(start: 21 * 60, end: 8 * 60) : nil,
            jitterSeconds: !plainTiming && rng.chance(0.3) ? rng.int64(1...900) : 0,
            maxRemindersPerEpisode: rng.chance(0.2) ? rng.int(1...4) : nil,
            heartbeatIntervalSeconds: rng.chance(0.3) ? rng.int64(600...86_400) : nil)
    }

    static func simulate(
        seed: UInt64, recurring: Bool? = nil, plainTiming: Bool = false
    ) -> (
        PolicySimulation, [ScheduledReport], PolicyConfiguration
    ) {
        var rng = SplitMix64(seed: seed)
        let configuration = randomConfiguration(using: &rng, recurring: recurring, plainTiming: plainTiming)
        let reports = ReportGenerator.reports(count: rng.int(1...25), using: &rng)
        let schedule = ReportGenerator.receiveSchedule(reports, using: &rng)
        let simulation = PolicySimulation.run(configuration, schedule: schedule, tail: 3 * 86_400, using: &rng)
        return (simulation, schedule, configuration)
    }

    /// Whatever the reports, their order of arrival and the firing times, no reminder is
    /// delivered while the user's current permissions (the newest observation) have Always access.
    @Test func noReminderIsDeliveredWhileCurrentPermissionsHaveAlwaysAccess() {
        var delivered = 0
        for seed in propertySeeds(0x5EED_0001, count: Self.caseCount) {
            let (simulation, schedule, _) = Self.simulate(seed: seed)
            #expect(simulation.stuckAt == nil, "seed \(seed): nextWakeAt ≤ now but fire did nothing; \(schedule)")
            for case .fire(let now, let before, let newest, let outcome) in simulation.steps {
                for case .reminder(let reminder) in outcome.events {
                    delivered += 1
                    let current = before.permissions
                    #expect(
                        current?.hasAlwaysAccess == false,
                        "seed \(seed): reminder at \(RFC3339.format(now)) while record has Always; \(schedule)")
                    #expect(
                        !newest.grantsAlwaysAccess,
                        "seed \(seed): reminder at \(RFC3339.format(now)) while newest report has Always; \(schedule)")
                    #expect(
                        current?.notifications.isDeliverable == true, "seed \(seed): reminder while notifications off")
                    #expect(reminder.reason == current?.reminderReason, "seed \(seed)")
                    #expect(reminder.dueAt <= now, "seed \(seed): reminder sent before it was due")
                }
            }
        }
        // The property means nothing if the generator never made the policy deliver.
        #expect(delivered > Self.caseCount)
    }

    /// A reminder id names one delivery: receivers de-duplicate on it, so no two deliveries
    /// may share one, and none is sent again after a withdraw named it.
    @Test func reminderIDsAreNeverReused() {
        for seed in propertySeeds(0x5EED_0008, count: Self.caseCount) {
            let (simulation, schedule, _) = Self.simulate(seed: seed)
            var sent: Set<String> = []
            var withdrawn: Set<String> = []
            for step in simulation.steps {
                let events: [SinkEvent] =
                    switch step {
                    case .report(_, let outcome): outcome.events
                    case .fire(_, _, _, let outcome): outcome.events
                    }
                for event in events {
                    switch event {
                    case .reminder(let reminder):
                        #expect(
                            !withdrawn.contains(reminder.id),
                            "seed \(seed): \(reminder.id) re-sent after withdraw; \(schedule)")
                        #expect(
                            sent.insert(reminder.id).inserted, "seed \(seed): \(reminder.id) sent twice; \(schedule)")
                    case .withdraw(let withdraw):
                        #expect(withdraw.reminderIDs.allSatisfy(sent.contains), "seed \(seed): withdraws unsent ids")
                        withdrawn.formUnion(withdraw.reminderIDs)
                    case .heartbeat: break
                    }
                }
            }
        }
    }

    /// With showRecurringNotification false, an episode never gets two reminders.
    @Test func nonRecurringConfigurationNeverDeliversTwoRemindersInOneEpisode() {
        var delivered = 0
        for seed in propertySeeds(0x5EED_0002, count: Self.caseCount) {
            let (simulation, schedule, _) = Self.simulate(seed: seed, recurring: false)
            let reminders = simulation.reminders
            delivered += reminders.count
            let perEpisode = Dictionary(grouping: reminders, by: \.episodeStartedAt)
            for (start, group) in perEpisode {
                #expect(
                    group.count == 1,
                    "seed \(seed): \(group.count) reminders for episode \(RFC3339.format(start)); \(schedule)")
            }
            #expect(reminders.allSatisfy { $0.sequence == 1 }, "seed \(seed): sequence above 1; \(schedule)")
            for record in simulation.records {
                #expect(record.episodes.allSatisfy { $0.deliveries.count <= 1 }, "seed \(seed); \(schedule)")
            }
        }
        #expect(delivered > Self.caseCount / 2)
    }

    /// With recurring reminders (no jitter, no quiet hours), consecutive deliveries of one
    /// episode are at least notificationTriggerDelay apart and numbered 1, 2, 3, …
    @Test func recurringDeliveriesInOneEpisodeAreAtLeastTheDelayApart() {
        var spaced = 0
        for seed in propertySeeds(0x5EED_0003, count: Self.caseCount) {
            let (simulation, schedule, configuration) = Self.simulate(seed: seed, recurring: true, plainTiming: true)
            let delay = TimeInterval(configuration.notification.notificationTriggerDelay)
            for record in simulation.records {
                for episode in record.episodes {
                    #expect(
                        episode.deliveries.map(\.sequence) == (0..<episode.deliveries.count).map { $0 + 1 },
                        "seed \(seed): sequences \(episode.deliveries.map(\.sequence))")
                    for (earlier, later) in zip(episode.deliveries, episode.deliveries.dropFirst()) {
                        spaced += 1
                        #expect(
                            later.deliveredAt.timeIntervalSince(earlier.deliveredAt) >= delay,
                            """
                            seed \(seed): deliveries \(RFC3339.format(earlier.deliveredAt)) and \
                            \(RFC3339.format(later.deliveredAt)); \(schedule)
                            """)
                    }
                }
            }
            let perEpisode = Dictionary(grouping: simulation.reminders, by: \.episodeStartedAt)
            for group in perEpisode.values {
                for (earlier, later) in zip(group, group.dropFirst()) {
                    #expect(later.createdAt.timeIntervalSince(earlier.createdAt) >= delay, "seed \(seed); \(schedule)")
                    #expect(later.sequence == earlier.sequence + 1, "seed \(seed); \(schedule)")
                }
            }
        }
        #expect(spaced > Self.caseCount)
    }

    /// Every permutation of the same reports, all received before any firing, gives the same
    /// current permissions, observation time, open episode start and due time, and a history
    /// sorted newest first with no two adjacent entries equal. Some reports leave
    /// notifications and time zone out ("last known value").
    @Test func anyReceiveOrderOfTheSameReportsGivesTheSameCurrentState() {
        Self.checkPermutations(base: 0x5EED_0004) { rng in
            ReportGenerator.reports(count: rng.int(2...12), using: &rng)
        }
    }

    /// The same with every field given in every report, so no default depends on the order:
    /// what is left is how late reports are folded into runs of identical ones. Then the whole
    /// history (every change and its first and last observation) is the same too.
    @Test func anyReceiveOrderOfFullyExplicitReportsGivesTheSameHistory() {
        Self.checkPermutations(base: 0x5EED_0007, compareHistory: true) { rng in
            ReportGenerator.reports(
                count: rng.int(2...12), using: &rng, repeatProbability: 0.5, absentNotificationsProbability: 0,
                absentTimeZoneProbability: 0)
        }
    }

    static func checkPermutations(
        base: UInt64, compareHistory: Bool = false, sourceLocation: SourceLocation = #_sourceLocation,
        _ generate: (inout SplitMix64) -> [PermissionReport]
    ) {
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(
                notification: LocationNotificationConfiguration(notificationTriggerDelay: Self.delay)))
        let userID = Fixtures.userID("perm-user")
        for seed in propertySeeds(base, count: Self.caseCount) {
            var rng = SplitMix64(seed: seed)
            let reports = generate(&rng)
            let receivedAt = reports[reports.count - 1].observedAt.addingTimeInterval(60)
            func applied(_ order: [PermissionReport]) -> UserRecord {
                var record: UserRecord?
                for (index, report) in order.enumerated() {
                    let at = receivedAt.addingTimeInterval(TimeInterval(index))
                    record = policy.apply(report, to: record, userID: userID, receivedAt: at).record
                }
                return record!
            }
            // Applied in observedAt order, the fold is the plain one the README describes.
            let reference = applied(reports)
            #expect(
                reference.openEpisode?.startedAt == Self.openEpisodeStart(reports),
                "seed \(seed): in-order start \(reference.openEpisode.map { RFC3339.format($0.startedAt) } ?? "none")",
                sourceLocation: sourceLocation)
            Self.expectWellFormedHistory(reference.history, "seed \(seed)", sourceLocation: sourceLocation)
            for _ in 0..<4 {
                let order = reports.shuffled(using: &rng)
                let record = applied(order)
                let context = "seed \(seed): order \(ReportGenerator.describe(order))"
                #expect(record.permissions == reference.permissions, "\(context)", sourceLocation: sourceLocation)
                #expect(record.observedAt == reference.observedAt, "\(context)", sourceLocation: sourceLocation)
                #expect(
                    record.openEpisode?.startedAt == reference.openEpisode?.startedAt, "\(context)",
                    sourceLocation: sourceLocation)
                #expect(
                    policy.reminderDueAt(record) == policy.reminderDueAt(reference), "\(context)",
                    sourceLocation: sourceLocation)
                Self.expectWellFormedHistory(record.history, context, sourceLocation: sourceLocation)
                if compareHistory {
                    // receivedAt differs by construction: each order receives the reports at other times.
                    #expect(
                        record.history.map(Self.historyKey) == reference.history.map(Self.historyKey), "\(context)",
                        sourceLocation: sourceLocation)
                }
            }
        }
    }

    static func historyKey(_ entry: HistoryEntry) -> String {
        "\(entry.permissions) \(RFC3339.format(entry.observedAt))…\(RFC3339.format(entry.lastObservedAt))"
    }

    /// The episode start, straight from the reports in observedAt order: the first
    /// observation of the trailing stretch without Always access.
    static func openEpisodeStart(_ reportsInObservedOrder: [PermissionReport]) -> Date? {
        var start: Date?
        for report in reportsInObservedOrder.reversed() {
            if report.grantsAlwaysAccess { break }
            start = report.observedAt
        }
        return start
    }

    static func expectWellFormedHistory(
        _ history: [HistoryEntry], _ context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        // Reports observed at one instant are each a change, in the order received: their entries
        // share the instant, and nothing else does.
        for (newer, older) in zip(history, history.dropFirst()) {
            #expect(
                newer.observedAt >= older.observedAt, "\(context): history not newest first",
                sourceLocation: sourceLocation)
            #expect(
                newer.permissions != older.permissions, "\(context): adjacent entries are equal",
                sourceLocation: sourceLocation)
            #expect(
                older.lastObservedAt <= newer.observedAt, "\(context): runs overlap", sourceLocation: sourceLocation)
        }
    }

    /// Encoding a record produced by the simulation (deliveries, suppressions, closed
    /// episodes, heartbeats) and decoding it gives an equal record and the same bytes again.
    @Test func userRecordsFromSimulationSurviveEncodingRoundTrip() throws {
        var deliveries = 0
        var suppressions = 0
        var closed = 0
        var heartbeats = 0
        for seed in propertySeeds(0x5EED_0005, count: Self.caseCount) {
            var rng = SplitMix64(seed: seed)
            var configuration = Self.randomConfiguration(using: &rng)
            configuration.heartbeatIntervalSeconds = rng.chance(0.7) ? rng.int64(600...86_400) : nil
            let reports = ReportGenerator.reports(count: rng.int(1...25), using: &rng)
            let schedule = ReportGenerator.receiveSchedule(reports, using: &rng)
            let simulation = PolicySimulation.run(configuration, schedule: schedule, tail: 86_400, using: &rng)
            for record in Self.interestingRecords(simulation, limit: 8, using: &rng) {
                let bytes = record.jsonBytes
                let decoded = try UserRecord(json: bytes)
                #expect(decoded == record, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
                #expect(decoded.jsonBytes == bytes, "seed \(seed)")
            }
            if let record = simulation.record {
                deliveries += record.episodes.reduce(0) { $0 + $1.deliveries.count }
                suppressions += record.episodes.reduce(0) { $0 + $1.suppressedCount }
                closed += record.episodes.filter { !$0.isOpen }.count
                heartbeats += record.lastHeartbeatAt == nil ? 0 : 1
            }
        }
        #expect(deliveries > 0 && suppressions > 0 && closed > 0 && heartbeats > 0)
    }

    /// Up to `limit` records picked from those after a report, a delivery or a suppression,
    /// and the final one (firings that only sent a heartbeat change `lastHeartbeatAt` alone).
    /// Recurring hourly reminders make records with hundreds of deliveries: checking each of
    /// them would be quadratic.
    static func interestingRecords(
        _ simulation: PolicySimulation, limit: Int, using rng: inout SplitMix64
    ) -> [UserRecord] {
        var records: [UserRecord] = []
        for step in simulation.steps {
            switch step {
            case .report(_, let outcome): records.append(outcome.record)
            case .fire(_, _, _, let outcome):
                if outcome.suppressed || outcome.events.contains(where: { $0.kind != .heartbeat }) {
                    records.append(outcome.record)
                }
            }
        }
        records.shuffle(using: &rng)
        return Array(records.prefix(limit)) + (simulation.record.map { [$0] } ?? [])
    }

    /// A reminder due while notifications are denied is suppressed exactly once, however often
    /// fire runs; a report allowing notifications lets the next firing deliver exactly one.
    @Test func suppressedReminderIsRecordedOnceAndDeliveredOnceNotificationsReturn() {
        for seed in propertySeeds(0x5EED_0006, count: Self.caseCount) {
            var rng = SplitMix64(seed: seed)
            let delay = rng.int64(60...86_400)
            let policy = ReminderPolicy(
                configuration: PolicyConfiguration(
                    notification: LocationNotificationConfiguration(
                        showRecurringNotification: rng.chance(0.5), notificationTriggerDelay: delay)))
            let userID = Fixtures.userID("quiet-user")
            let start = Date(unixMilliseconds: ReportGenerator.epochMilliseconds + rng.int64(0...86_400_000))
            let location: LocationAuthorization = rng.element([.whileInUse, .allowOnce, .denied, .always])
            // `always` with Location Services off still lacks Always access.
            let services = location != .always
            let denied = PermissionReport(
                location: location, locationServices: services,
                notifications: rng.element([.denied, .notDetermined]), observedAt: start)
            var record = policy.apply(denied, to: nil, userID: userID, receivedAt: start).record
            let due = start.addingTimeInterval(TimeInterval(delay))
            #expect(policy.reminderDueAt(record) == due, "seed \(seed)")

            var now = due
            var suppressedCount = 0
            for index in 0..<rng.int(1...8) {
                if index > 0 { now = now.adding(milliseconds: rng.int64(0...(delay * 3000))) }
                let outcome = policy.fire(record, now: now, daemonStartedAt: nil)
                record = outcome.record
                #expect(outcome.events.isEmpty, "seed \(seed): fire at \(RFC3339.format(now)) sent \(outcome.events)")
                if outcome.suppressed { suppressedCount += 1 }
            }
            #expect(suppressedCount == 1, "seed \(seed)")
            #expect(record.openEpisode?.suppressedCount == 1, "seed \(seed)")
            #expect(policy.nextWakeAt(record, daemonStartedAt: nil) == nil, "seed \(seed): wakes while suppressed")

            let allowedAt = now.adding(milliseconds: rng.int64(1...(delay * 1000)))
            let allowed = PermissionReport(
                location: location, locationServices: services, notifications: .authorized, observedAt: allowedAt)
            record = policy.apply(allowed, to: record, userID: userID, receivedAt: allowedAt).record
            let first = policy.fire(record, now: allowedAt, daemonStartedAt: nil)
            let reminders = first.events.compactMap { if case .reminder(let event) = $0 { event } else { nil } }
            #expect(reminders.count == 1, "seed \(seed): \(first.events)")
            #expect(reminders.first?.dueAt == due, "seed \(seed)")
            #expect(reminders.first?.sequence == 1, "seed \(seed)")
            #expect(first.record.openEpisode?.isSuppressed == false, "seed \(seed)")
            #expect(first.record.openEpisode?.suppressedCount == 1, "seed \(seed)")
            let again = policy.fire(first.record, now: allowedAt, daemonStartedAt: nil)
            #expect(again.events.isEmpty && !again.suppressed, "seed \(seed): second fire at the same time acted")
        }
    }

    // Pinned cases: the smallest report sequences on which the properties above failed.

    /// whileInUse at day 1, 2 and 3 with Always at day 1.5 in between: the episode restarts at
    /// day 2 whatever order the reports arrive in. Receiving the Always report last must not
    /// move the start to day 3 (the day-2 observation was folded into the run and lost).
    @Test func lateAlwaysReportInsideRunOfIdenticalReportsKeepsTheEpisodeStart() {
        let policy = ReminderPolicy(configuration: PolicyConfiguration())
        let userID = Fixtures.userID()
        let day1 = Fixtures.date("2026-11-01T00:00:00Z")
        func report(_ location: LocationAuthorization, _ hours: Int) -> PermissionReport {
            PermissionReport(
                location: location, notifications: .authorized, observedAt: day1 + .hours(hours), timeZone: "UTC")
        }
        let inOrder = [report(.whileInUse, 0), report(.always, 12), report(.whileInUse, 24), report(.whileInUse, 48)]
        let lateAlways = [inOrder[0], inOrder[2], inOrder[3], inOrder[1]]
        var records: [UserRecord] = []
        for order in [inOrder, lateAlways] {
            var record: UserRecord?
            for (index, item) in order.enumerated() {
                let receivedAt = day1 + .days(3) + .seconds(index)
                record = policy.apply(item, to: record, userID: userID, receivedAt: receivedAt).record
            }
            records.append(record!)
        }
        #expect(records[0].openEpisode?.startedAt == day1 + .hours(24))
        #expect(records[1].openEpisode?.startedAt == day1 + .hours(24))
        #expect(policy.reminderDueAt(records[1]) == policy.reminderDueAt(records[0]))
    }

    /// A report that leaves timeZone and notifications out takes the values in effect at its
    /// observation in observedAt order, even when an older report naming them arrives later.
    @Test func lateOlderReportSuppliesTheDefaultsOfNewerReports() {
        let policy = ReminderPolicy(configuration: PolicyConfiguration())
        let userID = Fixtures.userID()
        let older = Fixtures.report(
            .whileInUse, at: "2026-11-01T00:00:00Z", notifications: .denied, timeZone: "America/New_York")
        let newer = Fixtures.report(.whileInUse, at: "2026-11-02T00:00:00Z")
        let receivedAt = Fixtures.date("2026-11-03T00:00:00Z")
        let inOrder = policy.apply(
            newer, to: policy.apply(older, to: nil, userID: userID, receivedAt: receivedAt).record, userID: userID,
            receivedAt: receivedAt + .seconds(1)
        ).record
        let lateOlder = policy.apply(
            older, to: policy.apply(newer, to: nil, userID: userID, receivedAt: receivedAt).record, userID: userID,
            receivedAt: receivedAt + .seconds(1)
        ).record
        let expected = Permissions(location: .whileInUse, notifications: .denied, timeZone: "America/New_York")
        #expect(inOrder.permissions == expected)
        #expect(lateOlder.permissions == expected)
    }

    /// A late report moves an episode's start earlier after its reminder went out; another
    /// late one (Always access, between the two starts) then splits it back at the original
    /// start. That episode already had its reminder: it must not get a second one carrying
    /// the same id (and the first must not be withdrawn while its episode is still open).
    @Test func lateReportsThatMoveThenSplitAnEpisodeDoNotRepeatItsReminder() {
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(
                notification: LocationNotificationConfiguration(notificationTriggerDelay: 3600)))
        let userID = Fixtures.userID()
        let start = Fixtures.date("2026-11-30T17:00:00Z")
        var events: [SinkEvent] = []
        var record = policy.apply(
            PermissionReport(location: .whileInUse, observedAt: start), to: nil, userID: userID, receivedAt: start
        ).record
        var fired = policy.fire(record, now: start + .hours(1), daemonStartedAt: nil)
        events += fired.events
        // Late: Location Services were already off two days before (no Always access either).
        var applied = policy.apply(
            PermissionReport(location: .always, locationServices: false, observedAt: start - .days(2)),
            to: fired.record,
            userID: userID, receivedAt: start + .hours(2))
        #expect(applied.transitions == [.movedStart(from: start, to: start - .days(2))])
        events += applied.events
        // Late: Always access one hour before the original start.
        applied = policy.apply(
            PermissionReport(location: .always, observedAt: start - .hours(1)), to: applied.record, userID: userID,
            receivedAt: start + .hours(3))
        events += applied.events
        record = applied.record
        #expect(record.openEpisode?.startedAt == start)
        fired = policy.fire(record, now: start + .hours(3), daemonStartedAt: nil)
        events += fired.events

        let reminderIDs = events.compactMap { if case .reminder(let event) = $0 { event.id } else { nil } }
        #expect(reminderIDs.count == 1, "reminders \(reminderIDs)")
        #expect(Set(reminderIDs).count == reminderIDs.count, "a reminder id was reused: \(reminderIDs)")
        #expect(!events.contains { $0.kind == .withdraw }, "withdrew the reminder of an episode still open")
    }
}
