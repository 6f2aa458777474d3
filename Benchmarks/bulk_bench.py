"""W1c: bulk reports (`POST /v1/reports`, NDJSON), 100 % changes in batches of W1C_BATCH lines from
W1C_CONNS clients, on files beside Redis as W1b runs it (`appendfsync always`, one HSET a
request) and Redis pipelined (`redis-benchmark -P W1C_BATCH`, durable too), and on PostgreSQL;
then the time `remindctl import` takes to store W1C_IMPORT new users from an NDJSON file on
files, with remindd's CPU per report. Called by bench.py with itself as `b`.
"""
import os
import subprocess
import time

W1C_CONNS = int(os.environ.get("W1C_CONNS", 8))
W1C_BATCH = int(os.environ.get("W1C_BATCH", 1000))
W1C_IMPORT = int(os.environ.get("W1C_IMPORT", 1_000_000))


def redis_peer(b, sock, count, clients, pipeline):
    """redis-benchmark's HSET of a 300-byte state to random users, `clients` connections,
    `pipeline` commands in flight per connection."""
    output = subprocess.run(
        ["redis-benchmark", "-s", sock, "-c", str(clients), "-n", str(count), "-r", str(b.W1_USERS),
         "-P", str(pipeline), "--csv", "HSET", "user:__rand_int__", "state", b.USER_JSON],
        capture_output=True, text=True, check=True).stdout
    rows = [line for line in output.splitlines() if line.startswith('"') and not line.startswith('"test"')]
    fields = [field.strip('"') for field in rows[-1].rsplit(",", 7)]
    return {"rate": float(fields[1]), "p50": float(fields[4]), "p99": float(fields[6])}


def bulk_run(b, daemon, prefix):
    """Seeds W1_USERS users, then W1C_CONNS clients post batches of changes for DURATION seconds;
    the rate of lines stored and remindd's CPU per line."""
    seed = b.loadgen("seed", daemon.socket, b.CONNS, b.W1_USERS, prefix, "whileInUse")
    if seed.get("errors"):
        raise RuntimeError(f"W1c seeding failed: {seed}")
    used = b.cpu_seconds(daemon.pid)
    result = b.loadgen("bulk", daemon.socket, W1C_CONNS, b.SECONDS, b.W1_USERS, W1C_BATCH, prefix, "whileInUse")
    result["cpu_us"] = (b.cpu_seconds(daemon.pid) - used) * 1e6 / max(1, result.get("requests", 0))
    return result


def import_file(b, count):
    path = os.path.join(b.TMP, "import.ndjson")
    with open(path, "w") as file:
        for index in range(count):
            location = "whileInUse" if index % 3 else "always"
            file.write(f'{{"userID":"imp-{index}","location":"{location}","notifications":"authorized"}}\n')
    return path


def w1c(b):
    # Files: bulk against W1b's Redis, one command a request and pipelined.
    daemon = b.Remindd("w1c-files")
    daemon.start()
    b.settle(daemon)
    files = bulk_run(b, daemon, "c")
    b.log(f"W1c files: {files}")
    daemon.stop()

    redis, sock = b.start_redis("redis-w1c", durable=True)
    probe = redis_peer(b, sock, 20000, b.CONNS, 1)
    always = redis_peer(b, sock, max(20000, int(probe["rate"] * b.SECONDS)), b.CONNS, 1)
    probe = redis_peer(b, sock, 200000, W1C_CONNS, W1C_BATCH)
    piped = redis_peer(b, sock, max(200000, int(probe["rate"] * b.SECONDS)), W1C_CONNS, W1C_BATCH)
    b.log(f"W1c redis always: {always}; pipelined -P {W1C_BATCH}: {piped}")
    b.stop(redis)

    # PostgreSQL: the same load on one instance.
    import postgres_bench
    pg = postgres_bench.Postgres(b)
    try:
        on_pg = b.Remindd("w1c-pg", extra={"storage": pg.database("bulk")})
        on_pg.start()
        postgres = bulk_run(b, on_pg, "c")
        b.log(f"W1c PostgreSQL: {postgres}")
        on_pg.stop()
    finally:
        pg.stop()

    # remindctl import of W1C_IMPORT new users, on files.
    path = import_file(b, W1C_IMPORT)
    target = b.Remindd("w1c-import")
    target.start()
    used = b.cpu_seconds(target.pid)
    began = time.monotonic()
    imported = subprocess.run(
        [os.path.join(b.BIN, "remindctl"), "--socket", target.socket, "--json", "import", path],
        capture_output=True, text=True)
    took = time.monotonic() - began
    cpu_us = (b.cpu_seconds(target.pid) - used) * 1e6 / max(1, W1C_IMPORT)
    users = target.status().get("users")
    target.stop()
    b.log(f"W1c import: {W1C_IMPORT} lines in {took:.1f} s, exit {imported.returncode}, "
          f"{imported.stdout[:200]}, users {users}")
    if imported.returncode != 0 or users != W1C_IMPORT:
        b.notes.append(f"W1c import: exit {imported.returncode}, {users} users of {W1C_IMPORT}: {imported.stderr[:200]}")

    batch = f"batches of {W1C_BATCH}, {W1C_CONNS} clients"
    b.add(f"W1c bulk ingest, 100% changes, {batch}", "reports/s", b.fmt(files["rate"]), "Redis HSET always",
          b.fmt(always["rate"]), files["rate"] / always["rate"], "—", None)
    b.add("W1c bulk ingest (files)", "reports/s", b.fmt(files["rate"]), f"Redis HSET always -P {W1C_BATCH}",
          b.fmt(piped["rate"]), files["rate"] / piped["rate"], "—", None)
    b.add("W1c batch latency p50 / p99 (files)", "ms", f"{files['p50']:.1f} / {files['p99']:.1f}", "—", "—", None,
          "—", None)
    b.add("W1c remindd CPU per report (files)", "µs", f"{files['cpu_us']:.0f}", "—", "—", None, "—", None)
    b.add(f"W1c bulk ingest on PostgreSQL, {batch}", "reports/s", b.fmt(postgres["rate"]), "files",
          b.fmt(files["rate"]), postgres["rate"] / files["rate"], "—", None)
    b.add("W1c remindd CPU per report (PostgreSQL)", "µs", f"{postgres['cpu_us']:.0f}", "—", "—", None, "—", None)
    b.add(f"W1c remindctl import, {W1C_IMPORT:,} new users (files)", "s", f"{took:.1f}", "—", "—", None, "—", None)
    b.add("W1c import rate / remindd CPU per report", "reports/s / µs", f"{W1C_IMPORT / took:,.0f} / {cpu_us:.0f}",
          "—", "—", None, "—", None)
    errors = files.get("errors", 0) + postgres.get("errors", 0)
    if errors:
        b.notes.append(f"W1c: {errors:.0f} lines were not stored")
