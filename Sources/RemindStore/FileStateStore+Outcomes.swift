import Foundation
import NIOPosix
import RemindCore

extension FileStateStore {
    /// Reads the outcomes log into the statistics, once, off the actor: a million lines take
    /// seconds, which start-up (`READY=1`) should not wait for. `/v1/stats` and checkpoints
    /// wait for it; the daemon starts it right after opening the store.
    public func loadOutcomes() async throws {
        if let loading = outcomesLoading { return try await loading.value }
        let log = outcomeLog
        let replayed = replayedOutcomes
        let notice = self.notice
        let loading = Task {
            var counts: [String: Int] = [:]
            for outcome in replayed { counts[outcome.fileName, default: 0] += 1 }
            let tail = counts
            let (statistics, written) = try await io.runBlocking {
                () throws(StoreError) -> (OutcomeStatistics, [String: [EpisodeOutcome]]) in
                var statistics = OutcomeStatistics()
                let written = try log.load(into: &statistics, tail: tail, notice: notice)
                return (statistics, written)
            }
            adoptOutcomes(statistics, written: written)
        }
        outcomesLoading = loading
        do {
            try await loading.value
        } catch {
            outcomesLoading = nil
            throw error
        }
    }

    /// Takes the outcomes log's statistics in, with what was recorded meanwhile and what the
    /// replayed log holds that the files do not.
    private func adoptOutcomes(_ loaded: OutcomeStatistics, written: [String: [EpisodeOutcome]]) {
        var statistics = loaded
        statistics.add(contentsOf: outcomeStatistics)
        // Replayed outcomes a checkpoint appended before the crash are in the files' last lines.
        var already = Set(written.values.joined())
        for outcome in replayedOutcomes where already.remove(outcome) == nil {
            statistics.add(outcome)
            pendingOutcomes.append(outcome)
        }
        replayedOutcomes = []
        outcomeStatistics = statistics
    }

    /// Counts closed episodes that are durable in the log and queues them for the outcomes log.
    func recordOutcomes(_ outcomes: [EpisodeOutcome]) {
        for outcome in outcomes { outcomeStatistics.add(outcome) }
        pendingOutcomes += outcomes
    }

    /// The outcomes of the episodes that opened in `[since, until)`, open ones included. While
    /// the outcomes log cannot be read, the closed episodes are those since start.
    public func stats(since: Date, until: Date) async -> StatsReport {
        await loadOutcomesForStats()
        return outcomeStatistics.report(
            since: since, until: until, sendTime: policy.configuration.notification.sendTime
        ) { body in
            schedules.table.forEachOpenEpisode(body)
        }
    }

    /// What `stats` is computed from, for a store made of parts to merge: the closed episodes,
    /// and every open episode's start, group and reason.
    public func outcomeSources() async -> (closed: OutcomeStatistics, open: [OpenEpisode]) {
        await loadOutcomesForStats()
        var open: [OpenEpisode] = []
        schedules.table.forEachOpenEpisode { open.append($0) }
        return (outcomeStatistics, open)
    }

    private func loadOutcomesForStats() async {
        do {
            try await loadOutcomes()
        } catch {
            notice(.checkpointFailed("reading the outcomes log: \(error)"))
        }
    }
}
