import Foundation
import Logging
import PostgresNIO
import RemindCore
import RemindStore

/// The rows behind the store's methods: reading and quarantining documents, writing users,
/// events and outcomes, and telling the other instances.
extension PostgresStateStore {
    struct StoredRow {
        var record: UserRecord
        var wakeAt: Date?
        /// What the row counts for now.
        var counted: CountedColumns
        /// The user's rows of `remindd_history` as read; nil when only the document was read
        /// (`record` then has its newest history entry alone, and a write leaves the rows be).
        var older: OlderHistory?
    }

    /// The columns a row counts by, as `SELECT`ed after its other columns.
    static let countedColumns = "episode_started_at IS NOT NULL, reminder_at IS NOT NULL, conditions, active_hour"

    /// The columns of a user's whole record (`StoredDocument`), from `remindd_users AS u` and
    /// `olderHistory`.
    static let documentColumns = "u.doc, h.entries, coalesce(h.positions, '{}')"

    /// The user's older history entries, newest first, as one text of JSON values and commas.
    static let olderHistory = """
        CROSS JOIN LATERAL (
            SELECT string_agg(entry, ',' ORDER BY pos DESC) AS entries, array_agg(pos ORDER BY pos DESC) AS positions
            FROM remindd_history WHERE user_id = u.user_id) AS h
        """

    func loadRecord(_ userID: UserID, on client: PostgresClient) async throws -> UserRecord? {
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.documentColumns) FROM remindd_users AS u \(unescaped: Self.olderHistory)
            WHERE u.user_id = \(userID.rawValue)
            """, logger: logger)
        var record: UserRecord?
        for try await columns in rows.decode(StoredDocument.Columns.self) {
            do {
                record = try StoredDocument(columns).decoded().record
            } catch {
                // Quarantined by the next change of this user; until then it reads as unknown.
                logger.error("user \(userID.rawValue): stored document does not decode: \(error)")
            }
        }
        return record
    }

    /// The user's row, locked until the transaction ends.
    func lockedRow(_ userID: UserID, on connection: PostgresConnection) async throws -> StoredRow? {
        try await lockedRows([userID], on: connection)[userID]
    }

    /// The users' rows with their whole records, locked until the transaction ends; an
    /// undecodable document is quarantined and its user reads as unknown.
    func lockedRows(_ userIDs: [UserID], on connection: PostgresConnection) async throws -> [UserID: StoredRow] {
        guard !userIDs.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT u.user_id, u.wake_at, \(unescaped: Self.countedColumns), \(unescaped: Self.documentColumns)
            FROM remindd_users AS u \(unescaped: Self.olderHistory)
            WHERE u.user_id = ANY(\(userIDs.map(\.rawValue))) FOR UPDATE OF u
            """, logger: logger)
        var found: [(String, Date?, CountedColumns, StoredDocument)] = []
        for try await (user, wake, open, pending, conditions, hour, text, older, positions) in rows.decode(
            (String, Date?, Bool, Bool, Int16, Int16?, String, String?, [Int64]).self)
        {
            found.append(
                (
                    user, wake, CountedColumns((open, pending, conditions, hour)),
                    StoredDocument((text, older, positions))
                ))
        }
        var stored: [UserID: StoredRow] = [:]
        for (user, wake, counted, document) in found {
            let userID = try UserID(user)
            guard let decoded = try await decodeOrQuarantine(document, userID: userID, on: connection) else {
                continue
            }
            stored[userID] = StoredRow(
                record: decoded.record, wakeAt: wake, counted: counted, older: decoded.older)
        }
        return stored
    }

    /// The document as a record; one that does not decode (edited by hand, written by a newer
    /// version) is moved to `remindd_quarantine` with an error in the log, and the user starts
    /// afresh, as the files backend does with an unreadable user file. Every other user keeps
    /// working, and no pass of the scheduler stops on it.
    func decodeOrQuarantine(
        _ document: StoredDocument, userID: UserID, on connection: PostgresConnection
    ) async throws -> (record: UserRecord, older: OlderHistory)? {
        do {
            return try document.decoded()
        } catch {
            let reason = "\(error)"
            // The document, and on a line of its own the older history as a JSON array.
            try await connection.query(
                """
                INSERT INTO remindd_quarantine (user_id, doc, reason)
                SELECT \(userID.rawValue), \(document.document) || coalesce(E'\\n[' || string_agg(entry, ',' ORDER BY pos DESC) || ']', ''),
                    \(reason)
                FROM remindd_history WHERE user_id = \(userID.rawValue)
                """,
                logger: logger)
            var counts = CounterDeltas()
            for try await counted in try await connection.query(
                """
                DELETE FROM remindd_users WHERE user_id = \(userID.rawValue) RETURNING \(unescaped: Self.countedColumns)
                """, logger: logger
            ).decode(CountedColumns.Decoded.self) {
                counts.move(from: CountedColumns(counted), to: nil)
            }
            try await deleteOlderHistory(of: userID, on: connection)
            try await Self.addCounts(counts, on: connection, logger: logger)
            logger.error(
                "user \(userID.rawValue): stored document does not decode (\(reason)); moved to remindd_quarantine")
            return nil
        }
    }

    /// A forgotten or quarantined user's older history entries go with their row.
    func deleteOlderHistory(of userID: UserID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM remindd_history WHERE user_id = \(userID.rawValue)", logger: logger)
    }

    /// Serialises changes of one user across instances, including its creation (a row lock
    /// cannot, while there is no row yet). Held until the transaction ends.
    func lockUser(_ userID: UserID, on connection: PostgresConnection) async throws {
        try await connection.query(
            "SELECT pg_advisory_xact_lock(hashtext(\(userID.rawValue)))", logger: logger)
    }

    /// `lockUser` for several users in one statement, in the order of their keys, so that two
    /// transactions locking overlapping sets cannot deadlock.
    func lockUsers(_ userIDs: [UserID], on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            SELECT pg_advisory_xact_lock(k) FROM (
                SELECT DISTINCT hashtext(u) AS k FROM unnest(\(userIDs.map(\.rawValue))::text[]) AS u ORDER BY k) AS keys
            """, logger: logger)
    }

    /// Inserts or rewrites rows, in one statement. Arrays of optionals do not bind: a negative
    /// time and an empty text stand for null.
    /// `before` is each row as read (nil for a new user): the counters move by what it counted
    /// in the same transaction, and of `remindd_history` only the rows that changed since it was
    /// read are deleted and inserted, in the same statement. The document keeps the newest
    /// history entry alone.
    func write(
        _ rows: [(UserRecord, ScheduleColumns)], before: [UserID: StoredRow], on connection: PostgresConnection
    ) async throws {
        guard !rows.isEmpty else { return }
        var counts = CounterDeltas()
        var documents: [String] = []
        documents.reserveCapacity(rows.count)
        var history = HistoryRows()
        for (record, columns) in rows {
            let stored = before[record.userID]
            counts.move(from: stored?.counted, to: CountedColumns(columns))
            var head = record
            head.history = Array(record.history.prefix(1))
            documents.append(String(decoding: head.jsonBytes, as: UTF8.self))
            // A new user has no rows yet; a row read without its older history (a fire) keeps
            // them, since the change did not touch them.
            let older: OlderHistory? = if let stored { stored.older } else { .empty }
            if let older { history.add(older.change(to: record.history.dropFirst()), of: record.userID) }
        }
        try await Self.addCounts(counts, on: connection, logger: logger)
        let users = rows.map(\.0.userID.rawValue)
        let columns = rows.map(\.1)
        try await connection.query(
            """
            WITH gone AS (
                DELETE FROM remindd_history AS h USING unnest(\(history.deletedUsers)::text[],
                    \(history.deletedPositions)::int8[]) AS d(user_id, pos)
                WHERE h.user_id = d.user_id AND h.pos = d.pos
            ), added AS (
                INSERT INTO remindd_history (user_id, pos, entry)
                SELECT * FROM unnest(\(history.insertedUsers)::text[], \(history.positions)::int8[],
                    \(history.entries)::text[])
            )
            INSERT INTO remindd_users AS u (user_id, doc, wake_at, reminder_at, next_sequence, reason, conditions,
                episode_started_at, episode_group, episode_reason, active_hour, platform, episode_marks, episode_opening)
            SELECT c.user_id, c.doc,
                CASE WHEN c.wake_at < 0 THEN NULL ELSE to_timestamp(c.wake_at) END,
                CASE WHEN c.reminder_at < 0 THEN NULL ELSE to_timestamp(c.reminder_at) END,
                c.next_sequence, c.reason, c.conditions,
                CASE WHEN c.started < 0 THEN NULL ELSE to_timestamp(c.started) END,
                NULLIF(c.grp, ''), NULLIF(c.episode_reason, ''), NULLIF(c.active_hour, -1), NULLIF(c.platform, ''),
                c.episode_marks, NULLIF(c.episode_opening, '')
            FROM unnest(\(users)::text[], \(documents)::text[], \(columns.map { Self.epoch($0.wakeAt) })::float8[],
                \(columns.map { Self.epoch($0.reminderAt) })::float8[], \(columns.map(\.nextSequence))::integer[],
                \(columns.map(\.reason))::text[], \(columns.map(\.conditions))::smallint[],
                \(columns.map { Self.epoch($0.episodeStartedAt) })::float8[],
                \(columns.map { $0.episodeGroup ?? "" })::text[], \(columns.map { $0.episodeReason ?? "" })::text[],
                \(columns.map { $0.activeHour ?? -1 })::smallint[], \(columns.map { $0.platform ?? "" })::text[],
                \(columns.map(\.episodeMarks))::smallint[], \(columns.map { $0.episodeOpening ?? "" })::text[])
                AS c(user_id, doc, wake_at, reminder_at, next_sequence, reason, conditions, started, grp,
                    episode_reason, active_hour, platform, episode_marks, episode_opening)
            ON CONFLICT (user_id) DO UPDATE SET doc = EXCLUDED.doc, wake_at = EXCLUDED.wake_at,
                reminder_at = EXCLUDED.reminder_at, next_sequence = EXCLUDED.next_sequence, reason = EXCLUDED.reason,
                conditions = EXCLUDED.conditions, episode_started_at = EXCLUDED.episode_started_at,
                episode_group = EXCLUDED.episode_group, episode_reason = EXCLUDED.episode_reason,
                active_hour = EXCLUDED.active_hour, platform = EXCLUDED.platform,
                episode_marks = EXCLUDED.episode_marks, episode_opening = EXCLUDED.episode_opening
            """, logger: logger)
    }

    /// Adds `counts` to this transaction's slot of the counter rows, in one statement. Each
    /// transaction takes one of 16 slots at random, so that concurrent ones (another
    /// instance's, a fire pass beside a batch of reports) seldom wait for each other's row.
    static func addCounts(_ counts: CounterDeltas, on connection: PostgresConnection, logger: Logger) async throws {
        let changed = counts.sorted
        guard !changed.isEmpty else { return }
        let slot = Int16.random(in: 0..<16)
        try await connection.query(
            """
            INSERT INTO remindd_counters (name, slot, value)
            SELECT c.name, \(slot), c.delta FROM unnest(\(changed.map(\.name))::text[], \(changed.map(\.delta))::int8[])
                AS c(name, delta)
            ON CONFLICT (name, slot) DO UPDATE SET value = remindd_counters.value + EXCLUDED.value
            """, logger: logger)
    }

    /// A time for a float8 array: seconds since 1970, or -1 for none.
    static func epoch(_ date: Date?) -> Double { date?.timeIntervalSince1970 ?? -1 }

    /// One row per event and each configured sink its audience names (by the policy's
    /// channels); an event already there (a retried transaction) is not added twice.
    func enqueue(_ events: [OutboxEvent], on connection: PostgresConnection) async throws {
        guard !events.isEmpty, !options.sinks.isEmpty else { return }
        let channels = policy.configuration.channels
        var ids: [String] = []
        var sinks: [String] = []
        var users: [String] = []
        var bodies: [String] = []
        for event in events {
            for sink in channels.sinks(for: event.audience, among: options.sinks) {
                ids.append(event.id)
                sinks.append(sink)
                users.append(event.userID.rawValue)
                bodies.append(event.json)
            }
        }
        try await connection.query(
            """
            INSERT INTO remindd_outbox (event_id, sink, user_id, event)
            SELECT * FROM unnest(\(ids)::text[], \(sinks)::text[], \(users)::text[], \(bodies)::text[])
            ON CONFLICT (event_id, sink) DO NOTHING
            """, logger: logger)
    }

    /// Each closed episode once, in one statement: the key is the user and the episode's start.
    func insertOutcomes(_ outcomes: [EpisodeOutcome], on connection: PostgresConnection) async throws {
        guard !outcomes.isEmpty else { return }
        let lines = outcomes.map { outcome in
            var writer = JSONWriter()
            outcome.write(to: &writer)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        try await connection.query(
            """
            INSERT INTO remindd_outcomes (user_id, started_at, line)
            SELECT u, to_timestamp(s), l
            FROM unnest(\(outcomes.map(\.userID.rawValue))::text[],
                \(outcomes.map(\.startedAt.timeIntervalSince1970))::float8[], \(lines)::text[]) AS c(u, s, l)
            ON CONFLICT (user_id, started_at) DO NOTHING
            """, logger: logger)
    }

    static func movedEarlier(from old: Date?, to new: Date?) -> Bool {
        guard let new else { return false }
        guard let old else { return true }
        return new < old
    }

    /// Tells the other instances, at commit, what this change means for them.
    func notify(wake: Bool, events: Bool, on connection: PostgresConnection) async throws {
        if wake { try await connection.query("SELECT pg_notify('remindd_wake', '')", logger: logger) }
        if events { try await connection.query("SELECT pg_notify('remindd_events', '')", logger: logger) }
    }

    /// After a committed change: this instance's waiters and its counts.
    func changed(wakeEarlier: Bool, events: Bool) {
        state.withLock { $0.statistics = nil }
        if wakeEarlier { scheduleChanged.signal() }
        if events { for signal in outboxSignals.values { signal.signal() } }
    }
}
