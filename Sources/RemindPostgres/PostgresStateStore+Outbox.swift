import Foundation
import PostgresNIO
import RemindCore
import RemindStore

extension PostgresStateStore {
    public func claimEvent(for sink: String) async -> OutboxEvent? {
        await claimEvents(for: sink, limit: 1).first
    }

    /// Up to `limit` events of `sink`, each the oldest left of its user for that sink (so one
    /// user's events go out in order, one at a time), leased by this instance.
    ///
    /// Claimed a batch at a time: a dispatcher whose slots are full asks for one event each
    /// time a delivery ends, and a statement per event bounded the fire path. When what was
    /// claimed ahead runs out, a claim leases as many as the sink's dispatcher ever asked for
    /// at once (its concurrency) and keeps the rest for the next asks, so this instance holds
    /// at most twice that; a sink delivering one at a time is claimed for one at a time.
    /// Events kept are renewed as held ones, and handed out only within half a lease of their
    /// claim, so never after another instance may have taken them (renewals can fail); older
    /// ones are given back, as all are at shutdown.
    public func claimEvents(for sink: String, limit: Int) async -> [OutboxEvent] {
        guard limit > 0 else { return [] }
        let freshUntil = ContinuousClock.now - .seconds(options.leaseSeconds) / 2
        let (handed, stale, batch) = state.withLock { state -> ([OutboxEvent], [HeldEvent], Int) in
            let widest = max(state.widest[sink] ?? 0, limit)
            state.widest[sink] = widest
            var kept = state.ahead[sink] ?? []
            let stale = kept.prefix { $0.claimedAt <= freshUntil }.map { HeldEvent(eventID: $0.event.id, sink: sink) }
            kept.removeFirst(stale.count)
            let handed = kept.prefix(limit).map(\.event)
            kept.removeFirst(handed.count)
            state.ahead[sink] = kept
            return (handed, stale, handed.count == limit ? 0 : max(limit - handed.count, widest))
        }
        if !stale.isEmpty { await giveBack(stale, why: "kept too long") }
        guard batch > 0 else { return handed }
        let claimedAt = ContinuousClock.now
        let claimed = await lease(for: sink, limit: batch)
        let wanted = limit - handed.count
        if claimed.count > wanted {
            let kept = claimed[wanted...].map { AheadEvent(event: $0, claimedAt: claimedAt) }
            state.withLock { $0.ahead[sink, default: []] += kept }
        }
        return handed + claimed.prefix(wanted)
    }

    /// An event claimed ahead, and when its claim was sent (its lease runs out a lease after
    /// the server's time at the claim, which is later).
    struct AheadEvent {
        var event: OutboxEvent
        var claimedAt: ContinuousClock.Instant
    }

    /// Leases up to `limit` events of `sink` in one statement.
    ///
    /// The rows to lease are chosen in a subquery whose result the update takes as an array,
    /// so that the update is an index lookup whatever the planner expects of the subquery.
    /// The statement is planned anew each time, not prepared: a prepared statement's generic
    /// plan, made while the outbox was nearly empty, read the whole table at every claim once
    /// it held thousands (0.5 s a claim at 2,000 events).
    ///
    /// A lease need not survive a crash of the server: the event then goes again, as after a
    /// crash of this instance (at-least-once, the same id). So the claim commits without
    /// waiting for the WAL's fsync, which was most of its time (`set_config(…, true)` lasts for
    /// this statement's own transaction, and is evaluated for each row updated).
    ///
    /// A claim looks after a cursor, the newest row this instance leased: otherwise each claim
    /// walked the outbox from its oldest row, past the rows already leased and those delivered
    /// but not yet vacuumed, and a backlog of 200,000 events made every claim cost 44 ms
    /// (`make bench` W8). Rows the cursor passed over become claimable in a few ways:
    /// - a user's later event, waiting for the earlier one: its completion here moves the
    ///   cursor back to the completed row (the later event comes after it);
    /// - a lease this instance gives back: the cursor moves back to that row;
    /// - another instance's lease that runs out or is given back, or a user's earlier event
    ///   completed there: found when a claim comes back short and looks again from the oldest
    ///   row, at most once a second. Looking again at every short claim (each time the
    ///   dispatchers had caught up with the scheduler) walked every row delivered since the
    ///   last vacuum, a million of them in a 1,000,000-event fire. That look is given up
    ///   after a second (the dispatcher asking waits for it), and made again later: while
    ///   vacuum cannot keep up, it took longer than a request waits.
    private func lease(for sink: String, limit: Int) async -> [OutboxEvent] {
        let after = state.withLock { $0.claimedThrough[sink] ?? 0 }
        let events = await lease(for: sink, limit: limit, after: after)
        guard events.count < limit, after > 0 else { return events }
        let now = ContinuousClock.now
        let lookAgain = state.withLock { state -> Bool in
            if let last = state.lookedFromOldest[sink], now - last < .seconds(1) { return false }
            state.lookedFromOldest[sink] = now
            return true
        }
        guard lookAgain else { return events }
        return events + (await lease(for: sink, limit: limit - events.count, after: 0, within: .seconds(1)))
    }

    /// Stops holding `keys`, and moves each sink's claim cursor back so that the next claim
    /// looks again where a row became claimable: at the row itself when its lease was given
    /// back, after it when it was deleted (a user's later event waiting for it comes after it).
    func stopHolding(_ keys: some Sequence<HeldEvent>, deleted: Bool, in state: inout LocalState) {
        for key in keys {
            guard let seq = state.held.removeValue(forKey: key) else { continue }
            let after = deleted ? seq : seq - 1
            state.cursorLowered[key.sink, default: 0] += 1
            if let cursor = state.claimedThrough[key.sink], cursor > after { state.claimedThrough[key.sink] = after }
        }
    }

    /// Leases up to `limit` events of `sink` among the rows after `after`; `within` a time
    /// shorter than a request's, for a look that may be made later instead.
    private func lease(for sink: String, limit: Int, after: Int64, within: Duration? = nil) async -> [OutboxEvent] {
        let (owner, lease) = (options.instance, Double(options.leaseSeconds))
        let lowered = state.withLock { $0.cursorLowered[sink] ?? 0 }
        do {
            // In a task of its own, which a stopping dispatcher's cancellation does not reach: a
            // claim cancelled after the server committed it left its rows leased by nobody
            // here until their leases ran out. Claimed and held, they are given back at stop.
            let events = try await Task { () throws -> [(Int64, OutboxEvent)] in
                try await self.claim(
                    sink: sink, limit: limit, after: after, owner: owner, lease: lease, within: within)
            }.value
            state.withLock { state in
                // Not past a row that became claimable while this claim ran: it may have
                // passed over it.
                if let newest = events.map(\.0).max(), state.cursorLowered[sink] ?? 0 == lowered {
                    state.claimedThrough[sink] = max(state.claimedThrough[sink] ?? 0, newest)
                }
                for (seq, event) in events { state.held[HeldEvent(eventID: event.id, sink: sink)] = seq }
            }
            return events.sorted { $0.0 < $1.0 }.map(\.1)
        } catch {
            if within != nil, (error as? StoreError)?.isUnavailable == true, !health.withLock({ $0.isDown }) {
                logger.debug("looking for passed-over events for \(sink) given up for now: \(error)")
            } else {
                logger.warning("claiming events for \(sink): \(error)")
            }
            return []
        }
    }

    /// The claim's statement: leases and returns the rows, with their sequence numbers.
    private func claim(
        sink: String, limit: Int, after: Int64, owner: String, lease: Double, within: Duration?
    ) async throws -> [(Int64, OutboxEvent)] {
        try await transaction(timeout: within) { connection in
            let rows = try await connection.query(
                """
                UPDATE remindd_outbox o SET lease_owner = \(owner),
                    lease_until = now() + make_interval(secs => \(lease))
                WHERE o.seq = ANY(ARRAY(
                    SELECT c.seq FROM remindd_outbox c
                    WHERE c.sink = \(sink) AND c.seq > \(after)
                      AND (c.lease_until IS NULL OR c.lease_until < now())
                      AND NOT EXISTS (
                        SELECT 1 FROM remindd_outbox p
                        WHERE p.sink = c.sink AND p.user_id = c.user_id AND p.seq < c.seq)
                    ORDER BY c.seq LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                  AND set_config('synchronous_commit', 'off', true) IS NOT NULL
                RETURNING o.seq, o.event
                """, logger: self.logger)
            var claimed: [(Int64, OutboxEvent)] = []
            for try await (seq, body) in rows.decode((Int64, String).self) {
                claimed.append((seq, try OutboxEvent(bytes: Array(body.utf8))))
            }
            return claimed
        }
    }

    /// Gives back what was claimed ahead: the dispatchers have stopped. Not while the
    /// database is down (stopping would wait for it): the leases run out instead.
    func releaseClaimedAhead() async {
        let keys = state.withLock { state -> [HeldEvent] in
            let keys = state.ahead.flatMap { sink, kept in kept.map { HeldEvent(eventID: $0.event.id, sink: sink) } }
            state.ahead = [:]
            return keys
        }
        guard !keys.isEmpty, !health.withLock({ $0.isDown }) else { return }
        await giveBack(keys, why: "claimed ahead at shutdown")
    }

    /// Ends the leases of events no dispatcher of this instance holds, within 5 s (not through
    /// `database`: at shutdown its watch has stopped); what cannot be given back waits for its
    /// lease to run out. The statement runs in a task of its own: what gives events back is a
    /// stopping dispatcher or store, whose own task is cancelled by then, and a cancelled task's
    /// query ends at once.
    private func giveBack(_ keys: [HeldEvent], why: String) async {
        state.withLock { stopHolding(keys, deleted: false, in: &$0) }
        let (events, sinks, owner) = (keys.map(\.eventID), keys.map(\.sink), options.instance)
        let (client, logger) = (self.client, self.logger)
        let failure = await Task { () -> (any Error)? in
            do {
                try await withTimeout(.seconds(5)) {
                    try await client.query(
                        """
                        UPDATE remindd_outbox o SET lease_owner = NULL, lease_until = NULL
                        FROM unnest(\(events)::text[], \(sinks)::text[]) AS h(event_id, sink)
                        WHERE o.event_id = h.event_id AND o.sink = h.sink AND o.lease_owner = \(owner)
                          AND set_config('synchronous_commit', 'off', true) IS NOT NULL
                        """, logger: logger)
                }
                return nil
            } catch {
                return error
            }
        }.value
        if let failure {
            logger.warning(
                "\(keys.count) event(s) \(why) not given back (their leases run out instead): \(Self.describe(failure))"
            )
        }
        for sink in Set(sinks) { outboxSignals[sink]?.signal() }
    }

    public func waitForEvents(for sink: String) async {
        await outboxSignals[sink]?.wait()
    }

    /// Deletes the event's row for `sink`, group-committed: concurrent completions share one
    /// statement, and each returns once its row is gone (so a user's next event is claimable
    /// and the counts are current). When the database cannot be told, the event goes again
    /// once its lease runs out: at-least-once, with the same id.
    public func complete(_ eventID: String, sink: String) async {
        let key = HeldEvent(eventID: eventID, sink: sink)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let lead = state.withLock { state -> Bool in
                state.completing.append((key, continuation))
                defer { state.flushing = true }
                return !state.flushing
            }
            if lead { Task { await self.flushCompletions() } }
        }
        outboxSignals[sink]?.signal()
    }

    /// At most this many completions go into one statement; more wait for the next.
    static let completionsPerStatement = 5_000

    /// Deletes the waiting completions' rows, a batch a statement, until none wait; counts the
    /// events every sink is done with.
    private func flushCompletions() async {
        while true {
            let batch = state.withLock { state -> [(HeldEvent, CheckedContinuation<Void, Never>)]? in
                if state.completing.isEmpty {
                    state.flushing = false
                    return nil
                }
                let count = min(state.completing.count, Self.completionsPerStatement)
                defer { state.completing.removeFirst(count) }
                return Array(state.completing.prefix(count))
            }
            guard let batch else { return }
            let keys = batch.map(\.0)
            do {
                let finished = try await deleteCompleted(keys)
                state.withLock {
                    $0.delivered += finished
                    $0.statistics = nil
                }
            } catch {
                logger.error("\(keys.count) delivered event(s) not marked done (they may go again): \(error)")
            }
            // Done or not, the dispatchers no longer hold them: a lease not renewed runs out.
            state.withLock { stopHolding(keys, deleted: true, in: &$0) }
            for (_, continuation) in batch { continuation.resume() }
        }
    }

    /// One statement; the outer query sees the rows as they were before the delete, so an
    /// event is finished when its deleted rows were all it had (with one sink, every deleted
    /// row finishes its event, and the count per event is skipped). Returns how many finished.
    ///
    /// The rows are locked first, in `seq` order, as every statement locking several outbox
    /// rows and waiting for them does: in the order of a join they could deadlock with another
    /// such statement. A statement aborted by a deadlock all the same (or a serialization
    /// failure) is tried again, up to three times: given up, its events would go again.
    ///
    /// A completion may become durable lazily (a completion lost in a crash of the server only
    /// means the event goes again, with its id), so the delete commits without waiting for the
    /// WAL's fsync, as the claim does.
    func deleteCompleted(_ keys: [HeldEvent]) async throws -> Int {
        let events = keys.map(\.eventID)
        let sinks = keys.map(\.sink)
        let oneSink = options.sinks.count == 1
        let locked = """
            o.seq = ANY(ARRAY(
                SELECT r.seq FROM remindd_outbox r
                JOIN unnest($1::text[], $2::text[]) AS h(event_id, sink) ON r.event_id = h.event_id AND r.sink = h.sink
                ORDER BY r.seq FOR UPDATE OF r))
              AND set_config('synchronous_commit', 'off', true) IS NOT NULL
            """
        var bindings = PostgresBindings()
        bindings.append(events)
        bindings.append(sinks)
        let query = PostgresQuery(
            unsafeSQL: oneSink
                ? "DELETE FROM remindd_outbox o WHERE \(locked) RETURNING o.event_id"
                : """
                WITH gone AS (DELETE FROM remindd_outbox o WHERE \(locked) RETURNING o.event_id)
                SELECT g.event_id FROM gone g GROUP BY g.event_id
                HAVING count(*) = (SELECT count(*) FROM remindd_outbox r WHERE r.event_id = g.event_id)
                """,
            binds: bindings)
        return try await database {
            var attempt = 1
            while true {
                do {
                    var finished = 0
                    for try await _ in try await self.client.query(query, logger: self.logger).decode(String.self) {
                        finished += 1
                    }
                    return finished
                } catch  where attempt < 3 && Self.isTransient(error) {
                    self.logger.notice(
                        "\(keys.count) completion(s) tried again after: \(Self.describe(error))")
                    attempt += 1
                }
            }
        }
    }

    /// Gives the lease back at once, so that any instance may take the event: also from a
    /// dispatcher stopping at shutdown, whose task is cancelled (`giveBack`), as the docs
    /// promise of a clean stop. While the database is down the lease runs out instead.
    public func release(_ eventID: String, sink: String) async {
        let key = HeldEvent(eventID: eventID, sink: sink)
        guard !health.withLock({ $0.isDown }) else {
            state.withLock { stopHolding([key], deleted: false, in: &$0) }
            logger.warning(
                "event \(eventID) for \(sink) not released (its lease runs out instead): the database is down")
            outboxSignals[sink]?.signal()
            return
        }
        await giveBack([key], why: "released")
    }
}
