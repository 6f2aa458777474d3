import Logging
import PostgresNIO

/// The tables remindd keeps in PostgreSQL, created and migrated at start (docs/operations.md).
///
/// Migrations are numbered and applied in order inside one transaction that holds an
/// advisory lock, so instances starting together migrate once: the second waits for the
/// lock, then finds the version already current.
enum PostgresSchema {
    /// The advisory lock key's first half, remindd's own; the second names the purpose.
    static let lockSpace: Int32 = 0x5245_4D44  // "REMD"
    static let migrationLock: Int32 = 1
    static let recomputeLock: Int32 = 2
    static let outcomeSumLock: Int32 = 3
    /// Held shared by every running instance and exclusively by `remindd migrate`
    /// (`PostgresStateStore+Presence.swift`); not a transaction's: a session's, for its life.
    static let presenceLock: Int32 = 4

    static let migrations: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE remindd_users (
                user_id text PRIMARY KEY,
                doc jsonb NOT NULL,
                wake_at timestamptz,
                reminder_at timestamptz,
                next_sequence integer NOT NULL,
                reason text,
                conditions smallint NOT NULL,
                episode_started_at timestamptz,
                episode_group text,
                episode_reason text
            )
            """,
            "CREATE INDEX remindd_users_wake ON remindd_users (wake_at) WHERE wake_at IS NOT NULL",
            "CREATE INDEX remindd_users_reminder ON remindd_users (reminder_at) WHERE reminder_at IS NOT NULL",
            """
            CREATE TABLE remindd_outbox (
                seq bigserial PRIMARY KEY,
                event_id text NOT NULL,
                sink text NOT NULL,
                user_id text NOT NULL,
                event text NOT NULL,
                lease_owner text,
                lease_until timestamptz,
                UNIQUE (event_id, sink)
            )
            """,
            "CREATE INDEX remindd_outbox_user ON remindd_outbox (sink, user_id, seq)",
            """
            CREATE TABLE remindd_dead_letters (
                seq bigserial,
                event_id text NOT NULL,
                sink text NOT NULL,
                record text NOT NULL,
                PRIMARY KEY (event_id, sink)
            )
            """,
            """
            CREATE TABLE remindd_outcomes (
                user_id text NOT NULL,
                started_at timestamptz NOT NULL,
                line text NOT NULL,
                PRIMARY KEY (user_id, started_at)
            )
            """,
            "CREATE INDEX remindd_outcomes_started ON remindd_outcomes (started_at)",
            "CREATE TABLE remindd_meta (key text PRIMARY KEY, value text NOT NULL)",
            """
            CREATE TABLE remindd_quarantine (
                user_id text NOT NULL,
                doc text NOT NULL,
                reason text NOT NULL,
                quarantined_at timestamptz NOT NULL DEFAULT now()
            )
            """,
        ],
        // 2. The outbox is a queue: each row is inserted, leased (updated) once or a few
        // times, and deleted within seconds, a burst of a million as readily as a trickle.
        // - fillfactor 70: a lease changes no indexed column, so with room left on its page
        //   it is a HOT update (the old version pruned in place, no index entries) instead
        //   of a new version on another page and an entry in each of the three indexes.
        // - Vacuum and analyze after 5,000 changed rows, whatever the table's size: the
        //   default (20 % of the rows at the last count, plus 50) waits for 200,000 dead rows
        //   after a burst of a million, while the claims walk past their index entries,
        //   and plans the claim with the count of a table that has long emptied or filled.
        // - No cost delay: the table is small; throttling its vacuum only keeps the dead rows.
        [
            """
            ALTER TABLE remindd_outbox SET (fillfactor = 70, autovacuum_vacuum_scale_factor = 0,
                autovacuum_vacuum_threshold = 5000, autovacuum_analyze_scale_factor = 0,
                autovacuum_analyze_threshold = 5000, autovacuum_vacuum_cost_delay = 0)
            """
        ],
        // 3. The daemon-wide counts as counter rows, moved by every change in its transaction
        // (CounterDeltas), instead of counting every user for /v1/status. Started from the
        // rows as they are.
        [
            """
            CREATE TABLE remindd_counters (
                name text NOT NULL,
                slot smallint NOT NULL,
                value bigint NOT NULL,
                PRIMARY KEY (name, slot)
            )
            """,
            """
            INSERT INTO remindd_counters (name, slot, value)
            SELECT 'users', 0, count(*) FROM remindd_users
            UNION ALL SELECT 'open_episodes', 0, count(episode_started_at) FROM remindd_users
            UNION ALL SELECT 'pending_reminders', 0, count(reminder_at) FROM remindd_users
            UNION ALL SELECT 'conditions:' || conditions, 0, count(*) FROM remindd_users GROUP BY conditions
            """,
        ],
        // 4. The outbox at fillfactor 50 (70 in migration 2). A claim leases a batch in one
        // transaction, so for its leases to be HOT updates a page needs room for a second
        // version of each of its rows. Measured over 20,000 events claimed 256 at a time: 2 %
        // of the leases were HOT at fillfactor 100, 50 % at 70, 90–100 % at 50; the heap ended
        // the same size (18–20 MB) in all three, the versions that found no room having grown
        // it, and the indexes a quarter smaller at 50 (2.7 against 3.6 MB after W8's fire).
        ["ALTER TABLE remindd_outbox SET (fillfactor = 50)"],
        // 5. Closed episodes summed per day, group and reason, for /v1/stats
        // (PostgresStateStore+OutcomeSums). The outcomes already there are not summed yet:
        // the first fold sums them.
        [
            "ALTER TABLE remindd_outcomes ADD COLUMN summed boolean NOT NULL DEFAULT false",
            "CREATE INDEX remindd_outcomes_unsummed ON remindd_outcomes (started_at) WHERE NOT summed",
            """
            CREATE TABLE remindd_outcome_days (
                day bigint NOT NULL,
                grp text NOT NULL,
                reason text NOT NULL,
                episodes bigint NOT NULL,
                resolved bigint NOT NULL,
                forgotten bigint NOT NULL,
                after_reminders bigint[] NOT NULL,
                ttf_exact float8[],
                ttf_buckets bigint[] NOT NULL,
                ttf_counts bigint[] NOT NULL,
                PRIMARY KEY (day, grp, reason)
            )
            """,
        ],
        // 6. The users in byte order of their ID, whatever the database's collation: the
        // order `GET /v1/users` pages through and `remindd migrate` copies in, one index
        // range scan per page instead of a sort of every row.
        [#"CREATE INDEX remindd_users_id_bytes ON remindd_users (user_id COLLATE "C")"#],
        // 7. The day sums also by the send-time arm the outcome lines name ('' for none), so
        // that `bySendTime` is read from them as the groups and reasons are.
        [
            "ALTER TABLE remindd_outcome_days ADD COLUMN send_time text NOT NULL DEFAULT ''",
            """
            ALTER TABLE remindd_outcome_days DROP CONSTRAINT remindd_outcome_days_pkey,
                ADD PRIMARY KEY (day, grp, reason, send_time)
            """,
        ],
        // 8. Each user's most active hour as a column, counted like the others
        // (`active_hour:N`), so that the population's hour (the send time's fallback) is read
        // from 24 counters each minute instead of from every document. Started from the
        // documents as they are.
        [
            "ALTER TABLE remindd_users ADD COLUMN active_hour smallint",
            """
            UPDATE remindd_users SET active_hour = (
                SELECT (a.i - 1)::smallint FROM jsonb_array_elements_text(doc -> 'activity')
                    WITH ORDINALITY AS a(v, i) WHERE a.v::int > 0 ORDER BY a.v::int DESC, a.i LIMIT 1)
            WHERE doc ? 'activity'
            """,
            """
            INSERT INTO remindd_counters (name, slot, value)
            SELECT 'active_hour:' || active_hour, 0, count(*) FROM remindd_users
            WHERE active_hour IS NOT NULL GROUP BY active_hour
            """,
        ],
        // 9. The funnel (docs/outcomes.md): each user's platform and their open episode's steps
        // and opening as columns, and the closed episodes' funnel summed per day, group,
        // reason, platform and opening ('' for none) beside the day sums. Started from the
        // documents and the outcomes as they are: those of earlier versions know no engagement
        // or opening, so an episode counts at most as reminded.
        [
            """
            ALTER TABLE remindd_users ADD COLUMN platform text, ADD COLUMN episode_marks smallint NOT NULL DEFAULT 0,
                ADD COLUMN episode_opening text
            """,
            """
            UPDATE remindd_users SET platform = \(platformCase("doc ->> 'platform'"))
            WHERE coalesce(doc ->> 'platform', '') <> ''
            """,
            """
            UPDATE remindd_users SET episode_marks = 1
            WHERE episode_started_at IS NOT NULL AND coalesce(episode_group, 'default') <> 'holdout' AND EXISTS (
                SELECT 1 FROM jsonb_array_elements(doc -> 'episodes' -> 0 -> 'deliveries') AS d
                WHERE NOT coalesce((d ->> 'heldOut')::boolean, false))
            """,
            """
            CREATE TABLE remindd_funnel_days (
                day int8 NOT NULL,
                grp text NOT NULL,
                reason text NOT NULL,
                platform text NOT NULL,
                opening text NOT NULL,
                counts int8[] NOT NULL,
                PRIMARY KEY (day, grp, reason, platform, opening)
            )
            """,
            """
            INSERT INTO remindd_funnel_days (day, grp, reason, platform, opening, counts)
            SELECT day, grp, reason, platform, '',
                ARRAY[count(*), count(*) FILTER (WHERE reminded), 0, 0, 0, 0, 0, 0, 0, 0, 0,
                    count(*) FILTER (WHERE resolved)]::int8[]
            FROM (
                SELECT floor(extract(epoch FROM started_at) / 86400)::int8 AS day, l ->> 'group' AS grp,
                    coalesce(l ->> 'reason', '') AS reason,
                    CASE WHEN coalesce(l ->> 'platform', '') = '' THEN ''
                        ELSE \(platformCase("l ->> 'platform'")) END AS platform,
                    coalesce((l ->> 'reminders')::int, 0) > 0 AND l ->> 'group' <> 'holdout' AS reminded,
                    l ->> 'outcome' = 'resolved' AS resolved
                FROM (SELECT started_at, line::jsonb AS l FROM remindd_outcomes WHERE summed) AS o
            ) AS lines
            GROUP BY day, grp, reason, platform
            """,
        ],
        // 10. The document as remindd wrote it: nothing reads it with jsonb's operators, and as
        // jsonb the server parsed every change's document and printed it again for every read.
        ["ALTER TABLE remindd_users ALTER COLUMN doc TYPE text USING doc::text"],
        // 11. The history entries older than the newest in a table of their own (OlderHistory):
        // a change inserts the entry it pushes down and deletes what falls past the history's
        // length, instead of rewriting a document that grows to a thousand entries. Split from
        // the documents as they are; one that is not JSON (edited by hand) stays whole, to be
        // quarantined when it is next read, as before.
        [
            """
            CREATE TABLE remindd_history (
                user_id text NOT NULL,
                pos int8 NOT NULL,
                entry text NOT NULL,
                PRIMARY KEY (user_id, pos)
            )
            """,
            """
            CREATE FUNCTION pg_temp.remindd_json(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
            BEGIN RETURN t::jsonb; EXCEPTION WHEN others THEN RETURN NULL; END $$
            """,
            """
            CREATE TEMPORARY TABLE remindd_split ON COMMIT DROP AS
            SELECT user_id, history FROM (
                SELECT user_id, pg_temp.remindd_json(doc) -> 'history' AS history FROM remindd_users) AS d
            WHERE jsonb_typeof(history) = 'array' AND jsonb_array_length(history) > 1
            """,
            """
            INSERT INTO remindd_history (user_id, pos, entry)
            SELECT s.user_id, jsonb_array_length(s.history) - e.i + 1, e.v::text
            FROM remindd_split AS s CROSS JOIN LATERAL jsonb_array_elements(s.history) WITH ORDINALITY AS e(v, i)
            WHERE e.i > 1
            """,
            """
            UPDATE remindd_users AS u SET doc = jsonb_set(u.doc::jsonb, '{history}', jsonb_build_array(s.history -> 0))::text
            FROM remindd_split AS s WHERE u.user_id = s.user_id
            """,
        ],
    ]

    /// SQL naming the statistics' platform (`ReportedPlatform`) of a reported platform string.
    private static func platformCase(_ expression: String) -> String {
        "CASE lower(split_part(\(expression), ' ', 1)) WHEN 'ios' THEN 'ios' WHEN 'android' THEN 'android' ELSE 'other' END"
    }

    /// Brings the schema to the newest version; returns the versions applied now.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws -> [Int] {
        try await client.withTransaction(logger: logger) { connection in
            // Another instance may be upgrading every row meanwhile, and so may this one.
            try await connection.setTransactionTimeout(nil, logger: logger)
            try await connection.query(
                "SELECT pg_advisory_xact_lock(\(lockSpace), \(migrationLock))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS remindd_schema (version integer NOT NULL)", logger: logger)
            var current = 0
            for try await version in try await connection.query(
                "SELECT coalesce(max(version), 0) FROM remindd_schema", logger: logger
            ).decode(Int.self) {
                current = version
            }
            var applied: [Int] = []
            for (index, statements) in migrations.enumerated() where index + 1 > current {
                for statement in statements { try await connection.query(statement, logger: logger) }
                try await connection.query("INSERT INTO remindd_schema (version) VALUES (\(index + 1))", logger: logger)
                applied.append(index + 1)
            }
            return applied
        }
    }
}
