import Foundation
import RemindCore

/// Replays a seeded population through remindd's own policy (`ReminderPolicy.apply` and
/// `fire`), adaptive allocation (`AdaptiveAllocation`, recomputed every `reweightSeconds` of
/// simulated time from `OutcomeStatistics`) and send time, on a simulated clock.
///
/// The users' behaviour is made up: each variant has a hidden chance that a reminded user
/// grants Always access within the horizon, and a reminder that arrives in the user's active
/// hour is acted on more often. It tests the mechanism, not what real users do.
struct Simulation {
    struct Settings {
        var users = 100_000
        var days = 90
        var seed: UInt64 = 20_261_126
        /// Hidden: the chance a reminded user resolves within the horizon, by group.
        var resolution: [String: Double] = ["default": 0.08, "mileage": 0.10, "safety": 0.13]
        /// Hidden: the chance a held-out user resolves anyway.
        var holdoutResolution = 0.04
        /// Hidden: how much likelier a reminder in the user's active hour is acted on.
        var activeHourLift = 1.5
        var holdoutPercent = 10.0
        var sendTimeHoldoutPercent = 20.0
        var adaptive = Allocation.Adaptive(
            reweightSeconds: 43_200, horizonSeconds: 7 * 86_400, minEpisodes: 200, minWeight: 0.05)
        /// Asks in the app (`inApp`); off for the comparison run.
        var inApp = true
        /// Hidden: the chance a reminded user opens the reminder (the app reports, and shows an
        /// ask when the answer carries one), that an ask is shown, and that it is accepted.
        var openChance = 0.4
        var shownChance = 0.8
        var acceptChance = 0.5
        /// Hidden: the extra chance that a user who accepted an ask fixes the setting.
        var acceptedResolution = 0.3
    }

    struct Day {
        var episodes = 0
        var holdout = 0
        var nonHoldout = 0
        var toBest = 0
        /// Expected resolutions lost against always choosing the best variant.
        var regret = 0.0
        var evenRegret = 0.0
        /// Reminded episodes by send-time arm (`due`, `active`) and how many resolved.
        var armEpisodes = [0, 0]
        var armResolved = [0, 0]
        /// The weights in force at the day's end.
        var weights: [String: Double] = [:]
        /// The episodes that opened this day along the funnel (`FunnelAggregate.steps`).
        var funnel = FunnelAggregate()
        /// Non-holdout episodes that opened this day, and how many were resolved.
        var remindable = 0
        var remindableResolved = 0
    }

    let settings: Settings
    let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    private(set) var days: [Day]
    private(set) var recomputes = 0
    private(set) var firstLearnedDay: Int?

    init(settings: Settings) {
        self.settings = settings
        days = [Day](repeating: Day(), count: settings.days)
    }

    var best: String { settings.resolution.max { $0.value < $1.value }!.key }

    var configuration: PolicyConfiguration {
        let copy = CopySet(notificationTitle: "App is unable to record trips")
        return PolicyConfiguration(
            notification: LocationNotificationConfiguration(
                notificationTriggerDelay: 86_400,
                sendTime: .active(
                    .init(maxDelaySeconds: 86_400, minReports: 5, holdoutPercent: settings.sendTimeHoldoutPercent))),
            historyMaxEntries: 20, closedEpisodesKept: 1,
            experiment: Experiment(
                holdoutPercent: settings.holdoutPercent,
                variants: settings.resolution.keys.filter { $0 != Experiment.defaultGroup }.sorted().map {
                    Experiment.Variant(name: $0, copy: copy)
                },
                allocation: .adaptive(settings.adaptive)),
            inApp: InAppConfiguration(enabled: settings.inApp))
    }

    mutating func run() {
        var generator = SeededGenerator(seed: settings.seed)
        // The app's side draws from a stream of its own, so that a run without asks makes every
        // other draw as the run with them does: the same population, reminded alike.
        var appGenerator = SeededGenerator(seed: settings.seed &+ 1)
        let population = Population(count: settings.users, start: start, days: settings.days, generator: &generator)
        var queue = EventQueue()
        for (index, user) in population.users.enumerated() {
            for day in stride(from: user.warmUpReports, through: 1, by: -1) {
                let time = Population.reportTime(
                    for: user, daysBefore: day, of: user.episodeStart, generator: &generator)
                queue.add(time.timeIntervalSince1970, user: index, .launch)
            }
            queue.add(user.episodeStart.timeIntervalSince1970, user: index, .open)
        }
        var base = configuration
        var policy = ReminderPolicy(configuration: base)
        var records = [UserRecord?](repeating: nil, count: settings.users)
        var activeHours = [Int8](repeating: -1, count: settings.users)
        var usersByHour = [Int](repeating: 0, count: 24)
        var openUsers: Set<Int32> = []
        var outcomes = OutcomeStatistics()
        var openDay = [Int16](repeating: -1, count: settings.users)
        var nextSlot = start.timeIntervalSince1970
        let p = settings.resolution
        let pBest = p.values.max()!
        let pMean = p.values.reduce(0, +) / Double(p.count)
        var weightsInForce: [String: Double] = [:]

        func apply(_ index: Int, _ location: LocationAuthorization, at time: Double) -> ReportOutcome {
            let user = population.users[index]
            let report = PermissionReport(
                location: location, notifications: .authorized, observedAt: Date(timeIntervalSince1970: time),
                timeZone: user.timeZone)
            let outcome = policy.apply(
                report, to: records[index], userID: user.id, receivedAt: Date(timeIntervalSince1970: time))
            records[index] = outcome.record
            let hour = Int8(outcome.record.activity.mostActiveHour ?? -1)
            if hour != activeHours[index] {
                if activeHours[index] >= 0 { usersByHour[Int(activeHours[index])] -= 1 }
                if hour >= 0 { usersByHour[Int(hour)] += 1 }
                activeHours[index] = hour
            }
            return outcome
        }

        while let event = queue.next() {
            while event.time >= nextSlot {
                // The recompute the daemon runs at each slot: counts as of the slot, weights
                // from the real allocation code, the population's hour from the users' hours.
                let slot = Date(timeIntervalSince1970: nextSlot)
                let openEpisodes = openUsers.compactMap { records[Int($0)]?.openEpisode }
                let epoch = Date(timeIntervalSince1970: 0)
                let all = outcomes.report(since: epoch, until: slot) { body in
                    for episode in openEpisodes {
                        body(
                            OpenEpisode(
                                startedAt: episode.startedAt, group: episode.group, reason: episode.reason, userID: nil)
                        )
                    }
                }
                let old = outcomes.report(
                    since: epoch, until: slot.addingTimeInterval(-TimeInterval(settings.adaptive.horizonSeconds))
                ) { body in
                    for episode in openEpisodes {
                        body(
                            OpenEpisode(
                                startedAt: episode.startedAt, group: episode.group, reason: episode.reason, userID: nil)
                        )
                    }
                }
                let state = AdaptiveAllocation.compute(
                    configured: base.experiment.configuredWeights,
                    decided: AdaptiveAllocation.decided(allTime: all, openedBeforeHorizon: old),
                    settings: settings.adaptive, at: slot)
                recomputes += 1
                base.experiment.weightsInForce = state.learned ? state.weights : nil
                weightsInForce = state.weights
                let most = usersByHour.max() ?? 0
                base.populationActiveHour = most > 0 ? usersByHour.firstIndex(of: most) : nil
                policy = ReminderPolicy(configuration: base)
                let day = Int((nextSlot - start.timeIntervalSince1970) / 86_400)
                if state.learned && firstLearnedDay == nil { firstLearnedDay = day }
                if day >= 0 && day < days.count { days[day].weights = weightsInForce }
                nextSlot += TimeInterval(settings.adaptive.reweightSeconds)
            }
            let index = Int(event.user)
            let user = population.users[index]
            switch event.kind {
            case .launch:
                _ = apply(index, .always, at: event.time)
            case .open:
                _ = apply(index, .whileInUse, at: event.time)
                guard let record = records[index], let episode = record.openEpisode else { continue }
                let day = Int((event.time - start.timeIntervalSince1970) / 86_400)
                guard day < days.count else { continue }
                openUsers.insert(event.user)
                openDay[index] = Int16(day)
                days[day].episodes += 1
                if episode.group == Experiment.holdoutGroup {
                    days[day].holdout += 1
                } else {
                    days[day].nonHoldout += 1
                    if episode.group == best { days[day].toBest += 1 }
                    days[day].regret += pBest - (p[episode.group] ?? 0)
                    days[day].evenRegret += pBest - pMean
                }
                if let wake = policy.nextWakeAt(record, daemonStartedAt: nil) {
                    queue.add(wake.timeIntervalSince1970, user: index, .wake)
                }
            case .wake:
                guard let record = records[index], let episode = record.openEpisode else { continue }
                let fired = policy.fire(record, now: Date(timeIntervalSince1970: event.time), daemonStartedAt: nil)
                records[index] = fired.record
                guard fired.heldOut || !fired.events.isEmpty else { continue }
                let chance: Double
                let resolveAfter: Double
                if episode.group == Experiment.holdoutGroup {
                    chance = settings.holdoutResolution
                    resolveAfter = generator.unit() * 5 * 86_400
                } else {
                    let local = ActivityHistogram.hour(
                        of: Date(timeIntervalSince1970: event.time), timeZone: user.timeZone)
                    chance = (p[episode.group] ?? 0) * (local == user.activeHour ? settings.activeHourLift : 1)
                    resolveAfter = generator.unit() * 2 * 3_600
                    let arm = episode.sendTime == .active ? 1 : 0
                    days[Int(openDay[index])].armEpisodes[arm] += 1
                }
                if generator.unit() < chance { queue.add(event.time + resolveAfter, user: index, .resolve) }
                if settings.inApp, !fired.heldOut, appGenerator.unit() < settings.openChance {
                    queue.add(event.time + appGenerator.unit() * 3_600, user: index, .appOpen)
                }
            case .appOpen:
                guard let reminder = records[index]?.openEpisode?.deliveries.last?.id else { continue }
                // The app reports on launch; the answer may carry an ask.
                let ask = apply(index, .whileInUse, at: event.time).ask
                var reported = [
                    EngagementEvent(kind: .reminderOpened, id: reminder, at: Date(timeIntervalSince1970: event.time))
                ]
                var accepted = false
                if let ask, appGenerator.unit() < settings.shownChance {
                    let at = Date(timeIntervalSince1970: event.time + 5)
                    reported.append(EngagementEvent(kind: .askShown, id: ask.id, at: at))
                    accepted = appGenerator.unit() < settings.acceptChance
                    reported.append(EngagementEvent(kind: accepted ? .askAccepted : .askDismissed, id: ask.id, at: at))
                }
                if var record = records[index] {
                    _ = try? policy.applyEvents(reported, to: &record)
                    records[index] = record
                }
                if accepted, appGenerator.unit() < settings.acceptedResolution {
                    queue.add(event.time + 60 + appGenerator.unit() * 600, user: index, .resolve)
                }
            case .resolve:
                // Resolved already (by the reminder's chance and the ask's both).
                guard records[index]?.openEpisode != nil else { continue }
                let episode = records[index]?.openEpisode
                let outcome = apply(index, .always, at: event.time)
                for closed in outcome.outcomes { outcomes.add(closed) }
                openUsers.remove(event.user)
                if let episode, episode.group != Experiment.holdoutGroup, openDay[index] >= 0 {
                    days[Int(openDay[index])].armResolved[episode.sendTime == .active ? 1 : 0] += 1
                }
            }
        }
        // Each user's one episode along the funnel, by the day it opened.
        for (index, record) in records.enumerated() {
            guard let record, let episode = record.episodes.first, openDay[index] >= 0 else { continue }
            let day = Int(openDay[index])
            let resolved = episode.closedAt != nil
            days[day].funnel.add(episode.funnelMarks, resolved: resolved)
            if episode.group != Experiment.holdoutGroup {
                days[day].remindable += 1
                if resolved { days[day].remindableResolved += 1 }
            }
        }
        var last = weightsInForce
        for index in days.indices {
            if days[index].weights.isEmpty { days[index].weights = last } else { last = days[index].weights }
        }
    }
}
