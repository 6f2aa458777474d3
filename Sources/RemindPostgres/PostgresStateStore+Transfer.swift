import Foundation
import PostgresNIO
import RemindCore
import RemindStore

/// A database read and written whole, for `remindd migrate`: pages by key (the outbox's
/// sequence, the outcomes' user and start), imports in one transaction each, idempotent by the
/// tables' keys. The marker is the `migration` row of `remindd_meta`.
extension PostgresStateStore: StateTransfer {
    /// Rows in sequence order; the rows of one event (one per sink, with the same bytes) come
    /// together as one `PendingEvent`. The cursor is the last sequence read.
    public func exportEvents(after cursor: String?, limit: Int) async throws -> ExportPage<PendingEvent> {
        let start = cursor.flatMap { Int64($0) } ?? 0
        let rows = try await database {
            var rows: [(Int64, String, String, String)] = []
            for try await row in try await self.client.query(
                """
                SELECT seq, event_id, sink, event FROM remindd_outbox WHERE seq > \(start) ORDER BY seq LIMIT \(limit)
                """, logger: self.logger
            ).decode((Int64, String, String, String).self) {
                rows.append(row)
            }
            return rows
        }
        var events: [PendingEvent] = []
        for (_, id, sink, text) in rows {
            // A rerouted reminder's fallback rows have bytes of their own: an event of their own.
            if let last = events.last, last.event.id == id, last.event.bytes.elementsEqual(text.utf8) {
                events[events.count - 1] = PendingEvent(event: last.event, sinks: last.sinks + [sink])
                continue
            }
            events.append(PendingEvent(event: try OutboxEvent(bytes: Array(text.utf8)), sinks: [sink]))
        }
        return ExportPage(items: events, next: rows.count == limit ? rows.last.map { String($0.0) } : nil)
    }

    /// In the order of the table's key; the cursor is the last row's user and start (in
    /// microseconds since 1970, exact, unlike a float).
    public func exportOutcomes(after cursor: String?, limit: Int) async throws -> ExportPage<EpisodeOutcome> {
        let parts = cursor?.split(separator: " ", maxSplits: 1)
        let user = parts.map { String($0[0]) } ?? ""
        let micros = parts.flatMap { $0.count == 2 ? Int64($0[1]) : nil } ?? Int64.min
        let rows = try await database {
            var rows: [(String, Int64, String)] = []
            for try await row in try await self.client.query(
                """
                SELECT user_id, (extract(epoch FROM started_at) * 1000000)::int8, line FROM remindd_outcomes
                WHERE \(cursor == nil) OR (user_id, started_at)
                    > (\(user), TIMESTAMPTZ 'epoch' + \(micros == .min ? 0 : micros) * INTERVAL '1 microsecond')
                ORDER BY user_id, started_at LIMIT \(limit)
                """, logger: self.logger
            ).decode((String, Int64, String).self) {
                rows.append(row)
            }
            return rows
        }
        var outcomes: [EpisodeOutcome] = []
        for (user, _, line) in rows {
            do {
                outcomes.append(try EpisodeOutcome(json: Array(line.utf8)))
            } catch {
                logger.error("outcome of \(user): stored line does not decode, not copied: \(error)")
            }
        }
        let next = rows.count == limit ? rows.last.map { "\($0.0) \($0.1)" } : nil
        return ExportPage(items: outcomes, next: next)
    }

    /// Upserted with the scheduling columns this store's policy gives them, and the counter rows
    /// moved by what each row counted before (nothing, unless a resumed migration copies a
    /// user again).
    public func importUsers(_ records: [UserRecord]) async throws {
        guard !records.isEmpty else { return }
        let (policy, started) = (self.policy, daemonStartedAt)
        try await transaction { connection in
            let userIDs = records.map(\.userID)
            try await self.lockUsers(userIDs, on: connection)
            let before = try await self.lockedRows(userIDs, on: connection)
            try await self.write(
                records.map { ($0, ScheduleColumns($0.schedule, policy: policy, daemonStartedAt: started)) },
                before: before, on: connection)
        }
        changed(wakeEarlier: true, events: false)
    }

    /// One row per event and sink, in the order given, so the sequence keeps creation order.
    public func importEvents(_ events: [PendingEvent]) async throws {
        guard !events.isEmpty else { return }
        var ids: [String] = []
        var sinks: [String] = []
        var users: [String] = []
        var bodies: [String] = []
        for pending in events {
            for sink in pending.sinks {
                ids.append(pending.event.id)
                sinks.append(sink)
                users.append(pending.event.userID.rawValue)
                bodies.append(pending.event.json)
            }
        }
        let rows = (ids, sinks, users, bodies)
        try await transaction { connection in
            let (ids, sinks, users, bodies) = rows
            try await connection.query(
                """
                INSERT INTO remindd_outbox (event_id, sink, user_id, event)
                SELECT e, s, u, b FROM unnest(\(ids)::text[], \(sinks)::text[], \(users)::text[], \(bodies)::text[])
                    WITH ORDINALITY AS c(e, s, u, b, n)
                ORDER BY n
                ON CONFLICT (event_id, sink) DO NOTHING
                """, logger: self.logger)
        }
        changed(wakeEarlier: false, events: true)
    }

    public func importOutcomes(_ outcomes: [EpisodeOutcome]) async throws {
        guard !outcomes.isEmpty else { return }
        try await transaction { connection in try await self.insertOutcomes(outcomes, on: connection) }
    }

    public func migrationMarker() async throws -> String? {
        try await database {
            var marker: String?
            for try await value in try await self.client.query(
                "SELECT value FROM remindd_meta WHERE key = 'migration'", logger: self.logger
            ).decode(String.self) {
                marker = value
            }
            return marker
        }
    }

    public func setMigrationMarker(_ marker: String?) async throws {
        try await database {
            if let marker {
                try await self.client.query(
                    """
                    INSERT INTO remindd_meta (key, value) VALUES ('migration', \(marker))
                    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                    """, logger: self.logger)
            } else {
                try await self.client.query("DELETE FROM remindd_meta WHERE key = 'migration'", logger: self.logger)
            }
        }
    }
}
