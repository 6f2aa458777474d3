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
        /// An identical report: only the observations of its run may have grown.
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
            history[index].add([observedAt])
            return .unchanged
        }
        let entry = HistoryEntry(observedAt: observedAt, receivedAt: receivedAt, permissions: permissions)
        if observedAt >= run.lastObservedAt {
            // After the run's last observation: a plain change. At an equal instant the report
            // was received later, so it follows the run: both stay, each a change.
            history.insert(entry, at: index)
            mergeNeighbours(&history, around: index)
        } else {
            // Inside a run: the run's observations up to the report's instant (received
            // earlier at an equal one) come before it, those after it still follow it.
            var head = run
            let tail = head.split(at: observedAt)!
            history[index] = head
            history.insert(contentsOf: [tail, entry], at: index)
        }
        truncate(&history, maxEntries: maxEntries)
        return .changed
    }

    /// Gives the newest entry (the current state) the newest reported notification state,
    /// motion state and time zone: a late report can carry a value that the current state,
    /// which had inherited an older one, must now show. Returns true when that changed the entry.
    static func resolveNewest(
        _ history: inout [HistoryEntry], notifications: NotificationAuthorization?, timeZone: String?,
        motion: MotionAuthorization? = nil
    ) -> Bool {
        guard var newest = history.first else { return false }
        if let notifications { newest.permissions.notifications = notifications }
        if let timeZone { newest.permissions.timeZone = timeZone }
        if let motion { newest.permissions.motion = motion }
        guard newest.permissions != history[0].permissions else { return false }
        history[0] = newest
        mergeNeighbours(&history, around: 0)
        return true
    }

    /// Merges the entry at `index` with a neighbour that has the same permissions: the older
    /// of the two absorbs the newer one, keeping the newest observation.
    private static func mergeNeighbours(_ history: inout [HistoryEntry], around index: Int) {
        var index = index
        // The older neighbour sits at index + 1 (newest first).
        if index + 1 < history.count, history[index + 1].permissions == history[index].permissions {
            let newer = history[index]
            history[index + 1].add([newer.observedAt] + newer.laterObservations)
            history.remove(at: index)
        }
        if index > 0, index < history.count, history[index - 1].permissions == history[index].permissions {
            let newer = history[index - 1]
            history[index].add([newer.observedAt] + newer.laterObservations)
            history.remove(at: index - 1)
        }
    }

    private static func truncate(_ history: inout [HistoryEntry], maxEntries: Int) {
        if history.count > maxEntries {
            history.removeLast(history.count - maxEntries)
        }
    }

    /// Where the open episode starts according to the history: the first observation with a
    /// reminding error after the last one without. `reachesOldest` says the stretch runs back
    /// to the oldest entry kept, so truncated history may hide an earlier start.
    static func openEpisodeStart(
        _ history: [HistoryEntry], isReminding: (Permissions) -> Bool
    ) -> (start: Date, reachesOldest: Bool)? {
        guard let newest = history.first, isReminding(newest.permissions) else { return nil }
        var start = newest.observedAt
        for entry in history.dropFirst() {
            if !isReminding(entry.permissions) {
                return (start, false)
            }
            start = entry.observedAt
        }
        return (start, true)
    }

    /// The observation that first left no reminding error after `start`. At `start` itself only
    /// the entries received after the reminding one that began the stretch count (ties: order
    /// received).
    static func remindingEnded(
        after start: Date, in history: [HistoryEntry], isReminding: (Permissions) -> Bool
    ) -> Date? {
        var restored: Date?
        for entry in history {
            let reminding = isReminding(entry.permissions)
            guard entry.observedAt > start || (entry.observedAt == start && !reminding) else { break }
            if !reminding { restored = entry.observedAt }
        }
        return restored
    }
}
