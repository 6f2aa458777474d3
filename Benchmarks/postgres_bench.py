"""W8: remindd on PostgreSQL (one instance and two sharing one database) beside the files
backend, in the same run: W1b's ingest (100 % changes) and W2's fire (every reminder due at
once). Called by bench.py with itself as `b` (Remindd, loadgen, add, log, TMP).

The server is Debian's PostgreSQL with its durable defaults (`fsync` and `synchronous_commit`
on), made by initdb in the run's temp directory, on a Unix socket only, stopped by PID.
"""
import glob
import json
import os
import signal
import re
import subprocess
import threading
import time

W8_USERS = int(os.environ.get("W8_USERS", 20_000))
W8_FIRE = int(os.environ.get("W8_FIRE", 20_000))
W8_TIMEOUT = float(os.environ.get("W8_TIMEOUT", 600))
# W8_PROFILE=1: the server loads pg_stat_statements, and after each PostgreSQL run the
# statements that took the most of the server's time are logged (where the floor is).
W8_PROFILE = os.environ.get("W8_PROFILE") == "1"
# W8_ONLY=fire, ingest or stats (or a comma list): parts of W8 (a 1,000,000-user fire needs no ingest run).
W8_ONLY = os.environ.get("W8_ONLY", "")
W8_PARTS = set(W8_ONLY.split(",")) if W8_ONLY else {"ingest", "fire", "stats"}
# W8_HISTORY=N: the fire's users are seeded with N reports each (denied and whileInUse in turn,
# ending whileInUse), so their histories hold N entries; 1 by default.
W8_HISTORY = int(os.environ.get("W8_HISTORY", 1))
# W8_FIRE_RUNS=files,pg1,pg2 (or a part of it): which fire runs (the 1,000,000-user fire on two
# instances takes as long again).
W8_FIRE_RUNS = set(os.environ.get("W8_FIRE_RUNS", "files,pg1,pg2").split(","))
# Closed episodes in remindd_outcomes for W8's GET /v1/stats (W7's, on PostgreSQL).
W8_EPISODES = int(os.environ.get("W8_EPISODES", 1_000_000))
W8_QUERIES = 20


def as_server_user(argv):
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", *argv] if os.getuid() == 0 else argv


class Postgres:
    def __init__(self, b):
        self.b = b
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
        if not bins:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = bins[-1]
        self.dir = os.path.join(b.TMP, "pg")
        os.makedirs(self.dir)
        os.chmod(b.TMP, 0o755)
        if os.getuid() == 0:
            os.chown(self.dir, 65534, 65534)
        subprocess.run(as_server_user([f"{self.bin}/initdb", "-D", f"{self.dir}/data", "-U", "remindd",
                                       "--auth=trust", "-E", "UTF8", "--no-instructions"]),
                       check=True, capture_output=True, cwd="/tmp")
        self.process = b.start(as_server_user([
            f"{self.bin}/postgres", "-D", f"{self.dir}/data", "-k", self.dir, "-c", "listen_addresses=",
            "-c", "max_connections=300", "-c", "shared_buffers=512MB", "-c", "synchronous_commit=on",
            *(["-c", "shared_preload_libraries=pg_stat_statements"] if W8_PROFILE else [])]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/tmp")
        # Fast shutdown, also when the bench is interrupted: a smart one (SIGTERM) waits for
        # every session, and backends still running statements their clients gave up on ran
        # on as orphans once the postmaster was killed, loading the machine for an hour.
        self.process.stop_signal = signal.SIGINT
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with open(f"{self.dir}/data/postmaster.pid") as file:
                    if "ready" in file.read().split():
                        return
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        raise RuntimeError("postgres did not become ready")

    def psql(self, sql, database="postgres"):
        return subprocess.run(["psql", "-h", self.dir, "-U", "remindd", "-d", database, "-At", "-c", sql],
                              check=True, capture_output=True, text=True).stdout

    def database(self, name, template=None):
        self.psql(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
        return {"type": "postgres", "url": f"postgresql://remindd@/{name}?host={self.dir}", "poolSize": 40}

    def stop(self):
        self.b.stop(self.process)

    def outbox_size(self, label, database):
        """Logs the outbox's size on disk with its indexes, and its live and dead rows, after a
        run: what deletes in batches and the table's autovacuum settings leave of it."""
        size, live, dead = self.psql(
            "SELECT pg_total_relation_size('remindd_outbox'), n_live_tup, n_dead_tup "
            "FROM pg_stat_user_tables WHERE relname = 'remindd_outbox'", database).strip().split("|")
        self.b.log(f"W8 outbox after {label}: {int(size) / 2**20:.1f} MiB with indexes, {live} live rows, {dead} dead")
        self.b.notes.append(f"outbox after {label}: {int(size) / 2**20:.1f} MiB, {live} live rows, {dead} dead")

    def profile(self, label, database):
        """Logs the statements that took most of the server's time in `database`, then resets."""
        if not W8_PROFILE:
            return
        self.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", database)
        rows = self.psql(
            "SELECT round(total_exec_time)::int || ' ms, ' || calls || ' calls, ' || rows || ' rows: ' || "
            "regexp_replace(left(query, 110), '\\s+', ' ', 'g') FROM pg_stat_statements "
            "ORDER BY total_exec_time DESC LIMIT 8", database)
        self.b.log(f"W8 profile {label}:\n" + rows)
        self.psql("SELECT pg_stat_statements_reset()", database)


def ingest(b, daemons, prefixes):
    """100 % changes for DURATION seconds, CONNS clients split over the daemons; the summed rate."""
    for daemon, prefix in zip(daemons, prefixes):
        seed = b.loadgen("seed", daemon.socket, b.CONNS, W8_USERS // len(daemons), prefix, "whileInUse")
        if seed.get("errors"):
            raise RuntimeError(f"W8 seeding failed: {seed}")
    results = [None] * len(daemons)

    def run(index):
        results[index] = b.loadgen("run", daemons[index].socket, max(1, b.CONNS // len(daemons)), b.SECONDS,
                                   W8_USERS // len(daemons), 100, prefixes[index], "whileInUse")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(daemons))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"rate": sum(r["rate"] for r in results), "p99": max(r["p99"] for r in results),
            "errors": sum(r.get("errors", 0) for r in results)}


def postgres_cpu():
    """CPU seconds of every PostgreSQL process by PID (backends end with their connection,
    so this is read before the daemons stop)."""
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as file:
                if file.read().strip() != "postgres":
                    continue
            with open(f"/proc/{pid}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
            cpu[pid] = (int(fields[11]) + int(fields[12])) / ticks
        except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
            continue
    return cpu


def fire(daemons, b=None):
    """Seconds from the first start until every one of W8_FIRE reminders is in a sink, once;
    with `b`, also the CPU seconds remindd and PostgreSQL spent meanwhile."""
    before = postgres_cpu()
    started = time.monotonic()
    for daemon in daemons:
        open(daemon.sink, "w").close()
        daemon.start()
    ids, lines = set(), 0
    while time.monotonic() - started < W8_TIMEOUT:
        ids, lines = set(), 0
        for daemon in daemons:
            with open(daemon.sink, "rb") as file:
                for line in file:
                    match = re.search(rb'"id":"([^"]+)"', line)
                    if match:
                        ids.add(match.group(1))
                        lines += 1
        if len(ids) >= W8_FIRE:
            break
        time.sleep(0.2)
    elapsed = time.monotonic() - started
    cpu = {}
    if b is not None:
        after = postgres_cpu()
        cpu = {"remindd_cpu": sum(b.cpu_seconds(daemon.pid) for daemon in daemons),
               "postgres_cpu": sum(seconds - before.get(pid, 0) for pid, seconds in after.items())}
    for daemon in daemons:
        daemon.stop()
    return {"seconds": elapsed, "unique": len(ids), "lines": lines, **cpu}


def w8(b):
    pg = Postgres(b)
    try:
        if "ingest" in W8_PARTS:
            rows = {}
            # Ingest: files, one instance on PostgreSQL, two instances on one database.
            files = b.Remindd("w8-files")
            files.start()
            rows["files"] = ingest(b, [files], ["u"])
            files.stop()
            one = b.Remindd("w8-pg1", extra={"storage": pg.database("ingest1")})
            one.start()
            rows["pg1"] = ingest(b, [one], ["u"])
            one.stop()
            pg.profile("ingest, 1 instance", "ingest1")
            storage = pg.database("ingest2")
            two = [b.Remindd(f"w8-pg2{x}", extra={"storage": storage}) for x in "ab"]
            for daemon in two:
                daemon.start()
            rows["pg2"] = ingest(b, two, ["a", "b"])
            for daemon in two:
                daemon.stop()
            for key, label in (("files", "files"), ("pg1", "PostgreSQL, 1 instance"), ("pg2", "PostgreSQL, 2 instances")):
                r = rows[key]
                b.log(f"W8 ingest {label}: {r}")
                b.add(f"W8 ingest 100% changes, {label}", "reports/s", f"{b.fmt(r['rate'])} (p99 {r['p99']:.1f} ms)",
                      "files backend", b.fmt(rows["files"]["rate"]), r["rate"] / rows["files"]["rate"], "—", None)

        if "fire" in W8_PARTS:
            # Fire: seed W8_FIRE users with a long delay, then start with a delay of 1 s.
            states = ["whileInUse" if (W8_HISTORY - 1 - n) % 2 == 0 else "denied" for n in range(W8_HISTORY)]
            seeder = b.Remindd("w8-seed-files")
            seeder.start()
            for state in states:
                b.loadgen("seed", seeder.socket, b.CONNS, W8_FIRE, "u", state)
            seeder.stop()
            seeder_pg = b.Remindd("w8-seed-pg", extra={"storage": pg.database("seeded")})
            seeder_pg.start()
            for state in states:
                b.loadgen("seed", seeder_pg.socket, b.CONNS, W8_FIRE, "u", state)
            seeder_pg.stop()
            fired = {"files": fire([b.Remindd("w8-fire-files", delay=1, state=seeder.state)], b)}
            if "pg1" in W8_FIRE_RUNS:
                fired["pg1"] = fire(
                    [b.Remindd("w8-fire-pg1", delay=1, extra={"storage": pg.database("fire1", "seeded")})], b)
                pg.outbox_size("fire, 1 instance", "fire1")
                pg.profile("fire, 1 instance", "fire1")
            if "pg2" in W8_FIRE_RUNS:
                storage = pg.database("fire2", "seeded")
                fired["pg2"] = fire(
                    [b.Remindd(f"w8-fire-pg2{x}", delay=1, extra={"storage": storage}) for x in "ab"], b)
                pg.outbox_size("fire, 2 instances", "fire2")
            history = f", {W8_HISTORY} history entries each" if W8_HISTORY > 1 else ""
            for key, label in (("files", "files"), ("pg1", "PostgreSQL, 1 instance"), ("pg2", "PostgreSQL, 2 instances")):
                if key not in fired:
                    continue
                label += history
                r = fired[key]
                b.log(f"W8 fire {label}: {r}")
                rate = r["unique"] / r["seconds"]
                b.add(f"W8 fire {W8_FIRE:,} due at once, {label}", "events/s",
                      f"{b.fmt(rate)} ({r['seconds']:.1f} s, {W8_FIRE - r['unique']} lost, "
                      f"{r['lines'] - r['unique']} twice; CPU per event: remindd "
                      f"{r['remindd_cpu'] / max(1, r['unique']) * 1e6:.0f} µs, PostgreSQL "
                      f"{r['postgres_cpu'] / max(1, r['unique']) * 1e6:.0f} µs)",
                      "files backend", b.fmt(fired["files"]["unique"] / fired["files"]["seconds"]),
                      rate / (fired["files"]["unique"] / fired["files"]["seconds"]), "0 lost, 0 twice",
                      r["unique"] == W8_FIRE and r["lines"] == r["unique"])
        if "stats" in W8_PARTS:
            stats(b, pg)
    finally:
        pg.stop()


def stats(b, pg):
    """GET /v1/stats over W8_EPISODES closed episodes in remindd_outcomes (W7's shape: 19 days,
    three groups, three reasons), at once after start and again once the daemon has summed
    them per day (where it does: the first fold starts 15 s after start)."""
    storage = pg.database("stats")
    daemon = b.Remindd("w8-stats", extra={"storage": storage})
    daemon.start()
    daemon.stop()  # the schema, made by the daemon's migrations
    start = int(time.time()) - 20 * 86_400
    day = "YYYY-MM-DD\"T\"HH24:MI:SS\"Z\""
    pg.psql(f"""
        INSERT INTO remindd_outcomes (user_id, started_at, line)
        SELECT 's' || n, to_timestamp(o), json_build_object(
            'userID', 's' || n, 'group', (ARRAY['default', 'mileage', 'holdout'])[n % 3 + 1],
            'reason', (ARRAY['locationNotAuthorizedAlways', 'locationServicesTurnedOff',
                             'preciseLocationNotEnabled'])[n % 3 + 1],
            'startedAt', to_char(to_timestamp(o) AT TIME ZONE 'UTC', '{day}'),
            'closedAt', to_char(to_timestamp(o + 60 + (n * 7919) % (9 * 86400)) AT TIME ZONE 'UTC', '{day}'),
            'outcome', CASE WHEN n % 10 = 0 THEN 'forgotten' ELSE 'resolved' END,
            'reminders', n % 5, 'platform', 'ios')::text
        FROM (SELECT n, {start} + (n * 7) % (19 * 86400) AS o FROM generate_series(0::int8, {W8_EPISODES - 1}) n) s
        """, "stats")
    pg.psql("VACUUM ANALYZE remindd_outcomes", "stats")

    def timings():
        taken = []
        for _ in range(W8_QUERIES):
            began = time.perf_counter()
            code, body = b.http("/v1/stats", daemon.socket)
            taken.append((time.perf_counter() - began) * 1000)
            if code != 200:
                raise RuntimeError(f"W8 stats: /v1/stats answered {code}")
        report = json.loads(body)
        taken.sort()
        return taken[len(taken) // 2], taken[-1], sum(group["episodes"] for group in report["groups"])

    daemon.start()
    scanned = timings()
    summed = None
    summing = "SELECT count(*) FROM pg_attribute WHERE attrelid = 'remindd_outcomes'::regclass AND attname = 'summed'"
    if pg.psql(summing, "stats").strip() == "1":
        deadline = time.monotonic() + 600
        while pg.psql("SELECT count(*) FROM remindd_outcomes WHERE NOT summed", "stats").strip() != "0":
            if time.monotonic() > deadline:
                raise RuntimeError("W8 stats: the outcomes were not summed within 600 s")
            time.sleep(1)
        summed = timings()
    # The first fold rewrote every row (`summed`): until vacuum removes the old versions, the
    # index of the rows not summed yet is a million dead entries that every answer walks.
    vacuumed = None
    if summed is not None:
        deadline = time.monotonic() + 600
        dead = "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'remindd_outcomes'"
        while pg.psql(dead, "stats").strip() != "0" and time.monotonic() < deadline:
            time.sleep(1)
        vacuumed = timings()
    daemon.stop()
    for label, r in (("every outcome read", scanned), ("from day sums, right after the first fold", summed),
                     ("from day sums, once vacuumed", vacuumed)):
        if r is None:
            continue
        b.log(f"W8 stats {label}: p50 {r[0]:.1f} ms, max {r[1]:.1f} ms, {r[2]:,} episodes")
        b.add(f"W8 GET /v1/stats, {W8_EPISODES:,} closed episodes, PostgreSQL, {label}, p50 / max", "ms",
              f"{r[0]:.1f} / {r[1]:.1f}", "—", "—", None, "< 100 ms", r[2] == W8_EPISODES and r[1] < 100)
