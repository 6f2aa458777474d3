import Foundation
import Logging
import RemindConfig
import RemindCore
import RemindStore

/// Adaptive allocation and the population's active hour (docs/outcomes.md "Adaptive
/// allocation", docs/configuration.md `notification.sendTime`): recomputed at each
/// `reweightSeconds` slot by `LearningService`, at start and after a reload, and installed into
/// the store's policy.
extension DaemonRuntime {
    struct Learned: Sendable, Equatable {
        var allocation: AllocationState?
        var populationActiveHour: Int?
    }

    /// `configuration`'s policy with the learned weights and hour in force.
    func policy(for configuration: DaemonConfiguration) -> PolicyConfiguration {
        var policy = configuration.policy
        let learned = self.learned.withLock { $0 }
        if let allocation = learned.allocation, allocation.learned {
            policy.experiment.weightsInForce = allocation.weights
        }
        policy.populationActiveHour = learned.populationActiveHour
        return policy
    }

    /// When the next recompute is due: the start of the next slot, or in an hour when nothing
    /// adaptive is configured (a reload that turns it on recomputes at once anyway).
    func nextRelearnAt(after now: Date) -> Date {
        let seconds = configuration.experiment.allocation.adaptive?.reweightSeconds ?? 43_200
        return AdaptiveAllocation.slot(containing: now, reweightSeconds: seconds)
            .addingTimeInterval(TimeInterval(seconds))
    }

    /// The first recompute, run once for both that need it: `READY=1` waits for it (what was
    /// learned is in force from the start) and it is the learning service's first turn.
    func relearnAtStart() async {
        let task = firstLearning.withLock { task in
            if let task { return task }
            let made = Task { await self.relearn() }
            task = made
            return made
        }
        await task.value
    }

    /// Recomputes what is due and installs it when it changed.
    func relearn() async {
        let configuration = self.configuration
        let now = wallClock()
        var learned = self.learned.withLock { $0 }
        let before = learned
        guard let source = store as? any LearningStore else { return }
        let experiment = configuration.experiment
        if let adaptive = experiment.allocation.adaptive {
            let names = experiment.configuredWeights.filter { $0.weight > 0 }.map(\.name)
            let slot = AdaptiveAllocation.slot(containing: now, reweightSeconds: adaptive.reweightSeconds)
            func current(_ state: AllocationState?) -> Bool {
                guard let state else { return false }
                return state.computedAt >= slot && state.groups.map(\.name) == names
            }
            if !current(learned.allocation) {
                do {
                    if let stored = try await source.allocation(), current(stored) {
                        learned.allocation = stored
                    } else {
                        learned.allocation = try await source.storeAllocation(
                            await computeAllocation(experiment, adaptive, at: slot))
                    }
                } catch {
                    logger.error("adaptive allocation not recomputed, keeping the weights in force: \(error)")
                }
            }
        } else {
            learned.allocation = nil
        }
        learned.populationActiveHour = await populationActiveHour(configuration, source)
        metrics.recordAllocation(
            allocationReport(learned.allocation, configuration).groups.map { ($0.name, $0.weight) })
        guard learned != before else { return }
        self.learned.withLock { $0 = learned }
        await applyPolicy()
        if let allocation = learned.allocation, allocation != before.allocation {
            let weights = allocation.groups.map { "\($0.name)=\(String(format: "%.3f", $0.weight))" }
            logger.notice(
                "allocation \(allocation.learned ? "learned" : "configured (training)"): \(weights.joined(separator: " "))"
            )
        }
    }

    /// Brings the population's active hour up to date: the learning service calls this every
    /// minute, so that a new deployment's send time follows its users within a minute, not at
    /// the next `reweightSeconds` slot. The store keeps the 24 counts current; the policy is
    /// replaced only when the hour moved.
    /// Reads every user's history for "Always kept" (docs/outcomes.md), a page at a time, and
    /// keeps the sums; returns how long it took. `/v1/stats` answers from the last reading.
    @discardableResult
    func refreshAlwaysKept() async throws -> Duration {
        let clock = ContinuousClock()
        let started = clock.now
        var tally = AlwaysKeptTally(computedAt: wallClock())
        let historyMaxEntries = configuration.history.maxEntries
        var after: UserID?
        while true {
            let page = try await store.users(after: after, limit: 500)
            for record in page { tally.add(record, historyMaxEntries: historyMaxEntries) }
            guard page.count == 500, let last = page.last else { break }
            after = last.userID
        }
        alwaysKept.withLock { $0 = tally }
        return clock.now - started
    }

    /// Starts a reading of the histories for "Always kept" in the background unless one runs
    /// or the last one ended less than a hundred times its own length ago (at least 5 s, at
    /// most an hour): asked for by `/v1/stats`, so a daemon nobody asks reads nothing, and one
    /// asked often spends about 1 % of a core on it (an hour apart for a million users).
    func readAlwaysKeptIfStale() {
        let now = ContinuousClock.now
        let start = alwaysKeptReading.withLock { state -> Bool in
            guard !state.running, state.nextAt.map({ now >= $0 }) ?? true else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        Task {
            var rest = Duration.seconds(5)
            do {
                let took = try await refreshAlwaysKept()
                rest = min(.seconds(3_600), max(.seconds(5), took * 100))
            } catch {
                // The store is unavailable for now (PostgreSQL down): the next request tries again.
                logger.debug("reading the histories for Always kept: \(error)")
            }
            alwaysKeptReading.withLock { $0 = (false, ContinuousClock.now + rest) }
        }
    }

    /// "Always kept" for `[since, until)` from the last reading; nil before the first.
    func alwaysKeptReport(since: Date, until: Date) -> AlwaysKeptReport? {
        alwaysKept.withLock { $0?.report(since: since, until: until) }
    }

    /// Brings `remindd_funnel_total` up to the store's funnel of all time, at most once a minute
    /// (it is the `/v1/stats` of every episode: a scan of the closed ones on files, day sums on
    /// PostgreSQL), when `/metrics` is read.
    func refreshFunnelMetric() async {
        let now = wallClock()
        let due = funnelRefreshedAt.withLock { last in
            guard last.map({ now.timeIntervalSince($0) >= 60 || now < $0 }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        let report = await store.stats(since: Date(timeIntervalSince1970: 0), until: now.addingTimeInterval(86_400))
        metrics.recordFunnel(report.funnel.byGroup)
    }

    func refreshPopulationHour() async {
        guard let source = store as? any LearningStore else { return }
        let hour = await populationActiveHour(configuration, source)
        let moved = learned.withLock { learned in
            guard learned.populationActiveHour != hour else { return false }
            learned.populationActiveHour = hour
            return true
        }
        guard moved else { return }
        await applyPolicy()
        logger.info("population's active hour now \(hour.map { "\($0):00" } ?? "unknown")")
    }

    /// The hour most users are most active in, when a send time uses it; nil without users
    /// with activity.
    private func populationActiveHour(_ configuration: DaemonConfiguration, _ source: any LearningStore) async -> Int? {
        guard configuration.notification.sendTime.active != nil else { return nil }
        let counts = await source.usersByActiveHour()
        let most = counts.max() ?? 0
        return most > 0 ? counts.firstIndex(of: most) : nil
    }

    /// The weights from the decided episodes of every group: the counts as of `slot`, so that
    /// instances computing the same slot a little apart count alike.
    private func computeAllocation(
        _ experiment: Experiment, _ adaptive: Allocation.Adaptive, at slot: Date
    ) async -> AllocationState {
        let epoch = Date(timeIntervalSince1970: 0)
        let all = await store.stats(since: epoch, until: slot)
        let old = await store.stats(
            since: epoch, until: slot.addingTimeInterval(-TimeInterval(adaptive.horizonSeconds)))
        let decided = AdaptiveAllocation.decided(allTime: all, openedBeforeHorizon: old)
        return AdaptiveAllocation.compute(
            configured: experiment.configuredWeights, decided: decided, settings: adaptive, at: slot)
    }

    /// `allocation` of `/v1/stats`.
    func allocationReport() -> StatsReport.Allocation {
        allocationReport(learned.withLock { $0.allocation }, configuration)
    }

    private func allocationReport(
        _ state: AllocationState?, _ configuration: DaemonConfiguration
    ) -> StatsReport.Allocation {
        let experiment = configuration.experiment
        if experiment.allocation.adaptive != nil, let state {
            return StatsReport.Allocation(
                type: "adaptive", computedAt: state.computedAt, learned: state.learned, groups: state.groups)
        }
        let weighted = experiment.configuredWeights.filter { $0.weight > 0 }
        let total = weighted.reduce(0) { $0 + $1.weight }
        return StatsReport.Allocation(
            type: experiment.allocation.adaptive != nil ? "adaptive" : "fixed",
            groups: weighted.map {
                AllocationState.Group(
                    name: $0.name, weight: total > 0 ? $0.weight / total : 0, probabilityBest: nil, successes: 0,
                    failures: 0)
            })
    }
}
