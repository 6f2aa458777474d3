import Foundation

/// Inserting a report into a history of changes kept newest `observedAt` first.
///
/// The history is the fold of every report in `observedAt` order (ties: order received),
/// compressed to its changes. A report identical to the state in effect at its observation
/// adds nothing; a late report lands at its place in time and can never override a newer
/// observation, because each entry remembers the newest observation of its run.
enum HistoryFold {
    /// What inserting one report did.
    enum Effect: Equatable {
        /// An identical report: only `lastObservedAt` of its run may have moved.
        case unchanged
        /// The history gained (or reshaped) an entry.
        case changed
    }

    static func insert(
        _ report: PermissionReport, receivedAt: Date, into history: inout [HistoryEntry], maxEntries: Int
    ) -> Effect {
        let observedAt = report.observedAt
        // The run in effect at `observedAt`: the newest entry observed at or before it. Ties go
        // to the report, which was received later.
        let index = history.firstIndex(where: { $0.observedAt <= observedAt })
        guard let index else {
            // Older than everything we know: it becomes the first change. With no state before
            // it, absent fields default from the oldest known state.
            let permissions = report.permissions(after: history.last?.permissions)
            history.append(HistoryEntry(observedAt: observedAt, receivedAt: receivedAt, permissions: permissions))
            mergeNeighbours(&history, around: history.count - 1)
            truncate(&history, maxEntries: maxEntries)
            return .changed
        }
        let run = history[index]
        let permissions = report.permissions(after: run.permissions)
        if permissions == run.permissions {
            if observedAt > run.lastObservedAt {
                history[index].lastObservedAt = observedAt
            }
            return .unchanged
        }
        let entry = HistoryEntry(observedAt: observedAt, receivedAt: receivedAt, permissions: permissions)
        if observedAt >= run.lastObservedAt {
            // After the run's last observation: a plain change. At an equal instant the report
            // was received later and wins.
            if run.observedAt == observedAt {
                history[index] = entry
            } else {
                history.insert(entry, at: index)
            }
            mergeNeighbours(&history, around: index)
        } else {
            // Inside a run: the run's newest observation still follows the report. What lay
            // between is not kept, so the run's first part ends at its first observation.
            let tail = HistoryEntry(
                observedAt: run.lastObservedAt, receivedAt: run.receivedAt, permissions: run.permissions)
            if run.observedAt == observedAt {
                history[index] = entry
                history.insert(tail, at: index)
                mergeNeighbours(&history, around: index + 1)
            } else {
                history[index].lastObservedAt = run.observedAt
                history.insert(contentsOf: [tail, entry], at: index)
            }
        }
        truncate(&history, maxEntries: maxEntries)
        return .changed
    }

    /// Merges the entry at `index` with a neighbour that has the same permissions: the older
    /// of the two absorbs the newer one, keeping the newest observation.
    private static func mergeNeighbours(_ history: inout [HistoryEntry], around index: Int) {
        var index = index
        // The older neighbour sits at index + 1 (newest first).
        if index + 1 < history.count, history[index + 1].permissions == history[index].permissions {
            history[index + 1].lastObservedAt = max(history[index + 1].lastObservedAt, history[index].lastObservedAt)
            history.remove(at: index)
        }
        if index > 0, index < history.count, history[index - 1].permissions == history[index].permissions {
            history[index].lastObservedAt = max(history[index].lastObservedAt, history[index - 1].lastObservedAt)
            history.remove(at: index - 1)
        }
    }

    private static func truncate(_ history: inout [HistoryEntry], maxEntries: Int) {
        if history.count > maxEntries {
            history.removeLast(history.count - maxEntries)
        }
    }

    /// Where the open episode starts according to the history: the first observation without
    /// Always access after the last one with it. `reachesOldest` says the stretch runs back to
    /// the oldest entry kept, so truncated history may hide an earlier start.
    static func openEpisodeStart(_ history: [HistoryEntry]) -> (start: Date, reachesOldest: Bool)? {
        guard let newest = history.first, !newest.permissions.hasAlwaysAccess else { return nil }
        var start = newest.observedAt
        for entry in history.dropFirst() {
            if entry.permissions.hasAlwaysAccess {
                return (start, false)
            }
            start = entry.observedAt
        }
        return (start, true)
    }

    /// The observation that first restored Always access after `start`.
    static func alwaysRestored(after start: Date, in history: [HistoryEntry]) -> Date? {
        var restored: Date?
        for entry in history {
            guard entry.observedAt > start else { break }
            if entry.permissions.hasAlwaysAccess { restored = entry.observedAt }
        }
        return restored
    }
}
