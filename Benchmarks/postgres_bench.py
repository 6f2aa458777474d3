"""W8: remindd on PostgreSQL (one instance and two sharing one database) beside the files
backend, in the same run: W1b's ingest (100 % changes) and W2's fire (every reminder due at
once). Called by bench.py with itself as `b` (Remindd, loadgen, add, log, TMP).

The server is Debian's PostgreSQL with its durable defaults (`fsync` and `synchronous_commit`
on), made by initdb in the run's temp directory, on a Unix socket only, stopped by PID.
"""
import glob
import os
import re
import subprocess
import threading
import time

W8_USERS = int(os.environ.get("W8_USERS", 20_000))
W8_FIRE = int(os.environ.get("W8_FIRE", 20_000))
W8_TIMEOUT = float(os.environ.get("W8_TIMEOUT", 600))


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
            "-c", "max_connections=300", "-c", "shared_buffers=512MB", "-c", "synchronous_commit=on"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/tmp")
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


def fire(daemons):
    """Seconds from the first start until every one of W8_FIRE reminders is in a sink, once."""
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
    for daemon in daemons:
        daemon.stop()
    return {"seconds": elapsed, "unique": len(ids), "lines": lines}


def w8(b):
    pg = Postgres(b)
    try:
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

        # Fire: seed W8_FIRE users with a long delay, then start with a delay of 1 s.
        seeder = b.Remindd("w8-seed-files")
        seeder.start()
        b.loadgen("seed", seeder.socket, b.CONNS, W8_FIRE, "u", "whileInUse")
        seeder.stop()
        seeder_pg = b.Remindd("w8-seed-pg", extra={"storage": pg.database("seeded")})
        seeder_pg.start()
        b.loadgen("seed", seeder_pg.socket, b.CONNS, W8_FIRE, "u", "whileInUse")
        seeder_pg.stop()
        fired = {
            "files": fire([b.Remindd("w8-fire-files", delay=1, state=seeder.state)]),
            "pg1": fire([b.Remindd("w8-fire-pg1", delay=1, extra={"storage": pg.database("fire1", "seeded")})]),
        }
        storage = pg.database("fire2", "seeded")
        fired["pg2"] = fire([b.Remindd(f"w8-fire-pg2{x}", delay=1, extra={"storage": storage}) for x in "ab"])
        for key, label in (("files", "files"), ("pg1", "PostgreSQL, 1 instance"), ("pg2", "PostgreSQL, 2 instances")):
            r = fired[key]
            b.log(f"W8 fire {label}: {r}")
            rate = r["unique"] / r["seconds"]
            b.add(f"W8 fire {W8_FIRE:,} due at once, {label}", "events/s",
                  f"{b.fmt(rate)} ({r['seconds']:.1f} s, {W8_FIRE - r['unique']} lost, "
                  f"{r['lines'] - r['unique']} twice)",
                  "files backend", b.fmt(fired["files"]["unique"] / fired["files"]["seconds"]),
                  rate / (fired["files"]["unique"] / fired["files"]["seconds"]), "0 lost, 0 twice",
                  r["unique"] == W8_FIRE and r["lines"] == r["unique"])
    finally:
        pg.stop()
