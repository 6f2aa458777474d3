import Foundation
import PostgresNIO
import RemindCore

extension PostgresStateStore {
    /// Follows `remindd_wake` and `remindd_events` on a connection of its own: another
    /// instance's report that moves a due time earlier wakes this scheduler, its new events
    /// wake this instance's dispatchers. A lost connection is re-established with backoff, or
    /// once the database is back when it is down; meanwhile the once-a-second look
    /// (`tickLoop`) keeps everything moving. A server that stops closes this connection
    /// first: its loss starts a probe, so that requests are refused before they wait.
    func listenLoop() async {
        var delay = Duration.milliseconds(250)
        while !Task.isCancelled {
            if health.withLock({ $0.isDown }) {
                await recovered.wait()
                continue
            }
            do {
                try await client.withConnection { connection in
                    if self.options.announcesPresence { await self.announcePresence(on: connection) }
                    try await connection.listen(on: "remindd_wake") { wakes in
                        try await connection.listen(on: "remindd_events") { events in
                            delay = .milliseconds(250)
                            // Whatever happened while nobody listened.
                            self.wakeEverything()
                            try await withThrowingDiscardingTaskGroup { group in
                                group.addTask { for try await _ in wakes { self.scheduleChanged.signal() } }
                                group.addTask {
                                    for try await _ in events {
                                        for signal in self.outboxSignals.values { signal.signal() }
                                    }
                                }
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                if let error = error as? PSQLError, error.code == .clientClosedConnection {
                    // Closed on this side: a pool replaced after a failure, or the store closing.
                    logger.debug("LISTEN connection closed, reconnecting in \(delay)")
                } else {
                    logger.warning("LISTEN connection lost, reconnecting in \(delay): \(Self.describe(error))")
                    noteConnectionFailure()
                }
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// Keeps the leases of the events this instance's dispatchers hold alive: every third of
    /// the lease. Nothing else of this instance's is renewed (see `LocalState.held`).
    func renewLeasesLoop() async {
        let lease = Double(options.leaseSeconds)
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(lease / 3))
            if Task.isCancelled { return }
            await renewLeases()
        }
    }

    /// Renews the held events' leases in one statement, passing over rows another transaction
    /// has locked. Those are this instance's completions and releases deleting or freeing them
    /// (another instance claims only rows whose lease ran out), so they need no renewal; waiting
    /// for them deadlocked with a completion that locked the same rows in another order, and
    /// the completion aborted by it left its events to go again.
    func renewLeases() async {
        let held = state.withLock { Array($0.held.keys) }
        guard !held.isEmpty else { return }
        let (events, sinks) = (held.map(\.eventID), held.map(\.sink))
        let (owner, lease) = (options.instance, Double(options.leaseSeconds))
        do {
            _ = try await database {
                // A lease need not survive a crash of the server (the event then goes again,
                // at-least-once): committed without waiting for the WAL's fsync.
                try await self.client.query(
                    """
                    UPDATE remindd_outbox o SET lease_until = now() + make_interval(secs => \(lease))
                    WHERE o.seq = ANY(ARRAY(
                        SELECT r.seq FROM remindd_outbox r
                        JOIN unnest(\(events)::text[], \(sinks)::text[]) AS h(event_id, sink)
                          ON r.event_id = h.event_id AND r.sink = h.sink
                        WHERE r.lease_owner = \(owner)
                        FOR UPDATE OF r SKIP LOCKED))
                      AND set_config('synchronous_commit', 'off', true) IS NOT NULL
                    """, logger: self.logger)
            }
        } catch {
            logger.warning("renewing leases: \(Self.describe(error))")
        }
    }

    /// Once a second: leases of dead instances run out and notifications can be missed, and
    /// neither says so.
    func tickLoop() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            for signal in outboxSignals.values { signal.signal() }
        }
    }

    func wakeEverything() {
        scheduleChanged.signal()
        for signal in outboxSignals.values { signal.signal() }
    }
}
