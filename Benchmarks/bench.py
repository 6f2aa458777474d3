#!/usr/bin/env python3
"""remindd's benchmark harness (`make bench`, via Benchmarks/bench.sh).

Runs remindd and its peers side by side on this machine, in this run, and prints one table of
ratios: absolute numbers drift on shared machines, the ratios are what counts. Python only
orchestrates (starts servers, waits for READY=1, reads /proc, prints); the load comes from
loadgen (C), redis-benchmark and remindd itself.

Environment (all optional):
  W=1,2,3,4,5      workloads to run (default all)
  USERS=1000000    users on disk for W2, W3 and W4
  W1_USERS=100000  users W1 reports about;  DURATION=10  W1's seconds;  CONNS=64  clients
  APS_JOBS=100000  APScheduler's jobs (W2's peer)
  W2_TIMEOUT=0     give up W2 after this many seconds and report the rate so far (0: never)
  W5_USERS=10000   reminders of W5, spread over W5_SPREAD=10 seconds
  W6_USERS=10000   due reminders pushed to a local HTTP/2 APNs peer, W6_CONCURRENCY=64,256 streams
  W7_EPISODES=1000000  closed episodes in the outcomes log for W7 (GET /v1/stats), W7_QUERIES=20
  W8_USERS=20000, W8_FIRE=20000  W8: ingest and fire on PostgreSQL (1 and 2 instances) beside files
  W8_EPISODES=1000000  closed episodes for W8's GET /v1/stats on PostgreSQL;  W8_ONLY=ingest|fire|stats
  W8_PROFILE=1     W8's PostgreSQL loads pg_stat_statements and logs the costliest statements
  W1c: bulk reports, W1C_CONNS=8 clients in batches of W1C_BATCH=1000 on files and PostgreSQL, and
       `remindctl import` of W1C_IMPORT=1000000 new users (W=1c)
  W9: adaptive allocation, send time and asks in the app on 100,000 simulated users over 90 days,
      simulated again without asks for the in-app uplift (remind-simulation; W9_USERS, W9_DAYS; the
      SVG goes to Benchmarks/W9-learning.svg, the funnel per day to Benchmarks/W9-funnel.md)
  W10: the console's first load in headless Chromium, /v1/status p99 under 10 refreshing consoles
  CONSOLE_PYTHON  the python with selenium for W10 (bench.sh passes the console tests' virtualenv)
  KEEP=1           keep the temp directory (for debugging)
"""
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
LOADGEN = sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
ENV = os.environ
# Workload numbers; `1c` (bulk reports) is named on its own.
WORKLOADS = {w.strip() for w in ENV.get("W", "1,2,3,4,5").split(",") if w.strip()}
USERS = int(ENV.get("USERS", 1_000_000))
W1_USERS = int(ENV.get("W1_USERS", 100_000))
SECONDS = int(ENV.get("DURATION", 10))
CONNS = int(ENV.get("CONNS", 64))
APS_JOBS = int(ENV.get("APS_JOBS", 100_000))
W2_TIMEOUT = float(ENV.get("W2_TIMEOUT", 0))
W5_USERS = int(ENV.get("W5_USERS", 10_000))
W5_SPREAD = int(ENV.get("W5_SPREAD", 10))
W6_USERS = int(ENV.get("W6_USERS", 10_000))
W6_CONCURRENCY = [int(c) for c in ENV.get("W6_CONCURRENCY", "64,256").split(",") if c.strip()]
W6_DELAY = int(ENV.get("W6_DELAY", 60))
W7_EPISODES = int(ENV.get("W7_EPISODES", 1_000_000))
W7_QUERIES = int(ENV.get("W7_QUERIES", 20))
# storage.parts for every remindd on files (W8's runs on PostgreSQL).
PARTS = int(ENV.get("PARTS", 1))
# A realistic stored user state of about 300 bytes: what a peer stores per user.
USER_JSON = json.dumps({
    "userID": "u-000042", "permissions": {
        "location": "whileInUse", "accuracy": "full", "locationServices": True,
        "notifications": "authorized", "observedAt": "2026-11-22T10:00:00.000Z",
        "timeZone": "Europe/Berlin"},
    "errors": ["locationNotAuthorizedAlways"], "alwaysAccess": False,
    "episode": {"startedAt": "2026-11-22T10:00:00.000Z", "remindersDelivered": 0},
    "nextReminderAt": "2026-11-29T10:00:00.000Z", "reportCount": 3}, separators=(",", ":"))
USER_JSON = USER_JSON + " " * max(0, 300 - len(USER_JSON))

TMP = tempfile.mkdtemp(prefix="remindd-bench.")
processes = []  # every server this run started: stopped by PID at the end
results = []    # table rows
notes = []


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def start(argv, **kwargs):
    process = subprocess.Popen(argv, **kwargs)
    processes.append(process)
    return process


def stop(process, timeout=600):
    """SIGTERM (or the process's `stop_signal`), then SIGKILL after `timeout`; only processes
    this script started."""
    if process.poll() is None:
        process.send_signal(getattr(process, "stop_signal", signal.SIGTERM))
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process in processes:
        processes.remove(process)


def parse_pairs(text):
    words = text.split()
    return {words[i]: float(words[i + 1]) for i in range(0, len(words) - 1, 2) if re.match(r"^-?[\d.]+$", words[i + 1])}


def loadgen(*args):
    output = subprocess.run([LOADGEN, *map(str, args)], capture_output=True, text=True)
    if output.returncode not in (0,) and not output.stdout:
        raise RuntimeError(f"loadgen {args[0]} failed: {output.stderr.strip()}")
    return parse_pairs(output.stdout)


def http(path, sock, method="GET", body=None):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(sock)
    payload = (body or "").encode()
    framing = f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n" if body is not None else ""
    client.sendall(f"{method} {path} HTTP/1.1\r\nHost: localhost\r\n{framing}Connection: close\r\n\r\n".encode()
                   + payload)
    data = b""
    while True:
        chunk = client.recv(65536)
        if not chunk:
            break
        data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = re.search(rb"(?i)content-length:\s*(\d+)", head)
        if length and len(body) >= int(length.group(1)):
            break
    client.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def cpu_seconds(pid):
    """User plus system CPU time a process has used so far, in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drop_caches():
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as control:
            control.write("3\n")
        return True
    except OSError as error:
        notes.append(f"could not drop the page cache ({error}): W4 ran warm")
        return False


class Remindd:
    """One remindd process on a state directory, with a file sink and READY=1 from NOTIFY_SOCKET."""

    def __init__(self, name, delay=604800, state=None, sink=None, sinks=None, extra=None):
        self.dir = os.path.join(TMP, name)
        os.makedirs(self.dir, exist_ok=True)
        self.state = state or os.path.join(self.dir, "state")
        self.sink = sink or os.path.join(self.dir, "events.jsonl")
        self.socket = os.path.join(self.dir, "remindd.sock")
        self.delay = delay
        self.sinks = sinks
        self.extra = extra or {}
        self.process = None

    def start(self, strace=None):
        config = {"notification": {"notificationTriggerDelay": self.delay},
                  "stateDirectory": self.state, "listen": {"socket": self.socket},
                  "sinks": self.sinks or [{"type": "file", "path": self.sink}], **self.extra}
        if PARTS > 1:
            config.setdefault("storage", {"parts": PARTS})
        path = os.path.join(self.dir, "remindd.json")
        with open(path, "w") as file:
            json.dump(config, file)
        notify_path = os.path.join(self.dir, "notify.sock")
        if os.path.exists(notify_path):
            os.unlink(notify_path)
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path)
        argv = [os.path.join(BIN, "remindd"), "--config", path]
        if strace:
            argv = ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=open,openat", "-o", strace, *argv]
        started = time.monotonic()
        self.log = open(os.path.join(self.dir, "remindd.log"), "ab")
        self.process = start(argv, env=env, stdout=self.log, stderr=self.log)
        notify.settimeout(1)
        while True:
            try:
                message = notify.recv(4096).decode()
            except socket.timeout:
                if self.process.poll() is not None:
                    raise RuntimeError(f"remindd exited with {self.process.returncode}; see {self.dir}/remindd.log")
                continue
            if "READY=1" in message.split("\n"):
                break
        ready = time.monotonic() - started
        notify.close()
        self.traced_pid = None
        if strace:
            with open(f"/proc/{self.process.pid}/task/{self.process.pid}/children") as file:
                self.traced_pid = int(file.read().split()[0])
        self.started = started
        return ready

    @property
    def pid(self):
        return self.traced_pid or self.process.pid

    def status(self):
        code, body = http("/v1/status", self.socket)
        return json.loads(body) if code == 200 else {}

    def stop(self):
        if self.traced_pid:
            # Under strace: end remindd itself (by its PID); strace then exits.
            os.kill(self.traced_pid, signal.SIGTERM)
        stop(self.process)
        self.log.close()


def add(workload, metric, ours, peer_name, peer, ratio, goal, met):
    results.append((workload, metric, ours, peer_name, peer, ratio, goal, met))


def fmt(value, unit=""):
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if abs(value) >= 100:
        return f"{value:,.0f}{unit}"
    return f"{value:.2f}{unit}"


# ---------------------------------------------------------------- peers

def start_redis(name, durable):
    directory = os.path.join(TMP, name)
    os.makedirs(directory)
    sock = os.path.join(directory, "redis.sock")
    argv = ["redis-server", "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
            "--dir", directory, "--save", "", "--daemonize", "no", "--logfile", os.path.join(directory, "log")]
    if durable:
        argv += ["--appendonly", "yes", "--appendfsync", "always"]
    process = start(argv)
    for _ in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    return process, sock


def redis_benchmark(sock, count, *command):
    output = subprocess.run(
        ["redis-benchmark", "-s", sock, "-c", str(CONNS), "-n", str(count), "-r", str(W1_USERS), "--csv", *command],
        capture_output=True, text=True, check=True).stdout
    rows = [line for line in output.splitlines() if line.startswith('"') and not line.startswith('"test"')]
    # The test's name (the command, with the JSON's commas) comes first: count from the end.
    fields = [field.strip('"') for field in rows[-1].rsplit(",", 7)]
    # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
    return {"rate": float(fields[1]), "p50": float(fields[4]), "p99": float(fields[6])}


def redis_cli(sock, *command):
    return subprocess.run(["redis-cli", "-s", sock, *command], capture_output=True, text=True, check=True).stdout


def nginx_http_common(directory):
    """The http-block lines both nginx peers share: temp paths inside the run's directory,
    connections kept open for the whole run."""
    return "".join(f"    {line};\n" for line in (
        f"client_body_temp_path {directory}/body", f"proxy_temp_path {directory}/proxy",
        f"fastcgi_temp_path {directory}/fastcgi", f"uwsgi_temp_path {directory}/uwsgi",
        f"scgi_temp_path {directory}/scgi", "keepalive_requests 100000000", "keepalive_timeout 300s"))


def start_nginx():
    directory = os.path.join(TMP, "nginx")
    os.makedirs(directory)
    sock = os.path.join(directory, "nginx.sock")
    config = os.path.join(directory, "nginx.conf")
    with open(config, "w") as file:
        file.write(f"""
worker_processes auto;
pid {directory}/nginx.pid;
error_log {directory}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
{nginx_http_common(directory)}    server {{
        listen unix:{sock};
        location / {{ return 204; }}
    }}
}}
""")
    process = start(["nginx", "-p", directory, "-c", config, "-g", "daemon off;"], stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    return process, sock


# ---------------------------------------------------------------- workloads

def settle(daemon, timeout=300):
    """Waits until the daemon has written every changed record to its file; returns the wait."""
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        code, body = http("/metrics", daemon.socket)
        match = re.search(rb"^remindd_dirty_records (\S+)$", body, re.M) if code == 200 else None
        if match and float(match.group(1)) == 0:
            break
        time.sleep(0.2)
    return time.monotonic() - began


def metric(daemon, name):
    """A counter or gauge from the daemon's /metrics (0 when absent)."""
    code, body = http("/metrics", daemon.socket)
    match = re.search(rb"^" + name.encode() + rb" (\S+)$", body, re.M) if code == 200 else None
    return float(match.group(1)) if match else 0.0


def w1():
    ours = {}
    for mix, change in (("a", 10), ("b", 100)):
        daemon = Remindd(f"w1{mix}")
        daemon.start()
        seed = loadgen("seed", daemon.socket, CONNS, W1_USERS, "u", "whileInUse")
        log(f"W1 {mix}: seeded {W1_USERS} users at {seed.get('rate', 0):,.0f}/s")
        # The run measures the steady state: the seeding's new files (inode allocation on this
        # ext4 was a third of the daemon's CPU while they were written) are written first.
        waited = settle(daemon)
        log(f"W1 {mix}: the seeding's files were written {waited:.1f} s after it ended")
        # CPU time per report moves less than the rate when the machine is shared.
        used = cpu_seconds(daemon.pid)
        logged = metric(daemon, "remindd_log_bytes_total")
        changed = metric(daemon, "remindd_report_changes_total")
        ours[mix] = loadgen("run", daemon.socket, CONNS, SECONDS, W1_USERS, change, "u", "whileInUse")
        ours[mix]["cpu_us"] = (cpu_seconds(daemon.pid) - used) * 1e6 / max(1, ours[mix]["requests"])
        # What the write-ahead log takes per change (a whole record per change before changes were
        # logged as deltas); repeats add their small entries at checkpoints.
        ours[mix]["log_bytes"] = (metric(daemon, "remindd_log_bytes_total") - logged) / max(
            1, metric(daemon, "remindd_report_changes_total") - changed)
        log(f"W1 {mix}: {ours[mix]}")
        daemon.stop()
    redis, sock = start_redis("redis-w1", durable=True)
    probe = redis_benchmark(sock, 20000, "HSET", "user:__rand_int__", "state", USER_JSON)
    peer = redis_benchmark(sock, max(20000, int(probe["rate"] * SECONDS)), "HSET", "user:__rand_int__", "state",
                           USER_JSON)
    log(f"W1 redis (appendfsync always): {peer}")
    stop(redis)
    nginx, sock = start_nginx()
    floor = loadgen("run", sock, CONNS, SECONDS, W1_USERS, 10)
    log(f"W1 nginx 204: {floor}")
    stop(nginx)
    a, b = ours["a"], ours["b"]
    add("W1b ingest, 100% changes", "reports/s", fmt(b["rate"]), "Redis HSET always", fmt(peer["rate"]),
        b["rate"] / peer["rate"], "≥ 1.5", b["rate"] >= 1.5 * peer["rate"])
    add("W1b latency p50 / p99", "ms", f"{b['p50']:.2f} / {b['p99']:.2f}", "Redis HSET always",
        f"{peer['p50']:.2f} / {peer['p99']:.2f}", b["p99"] / peer["p99"] if peer["p99"] else None, "(p99 ratio)", None)
    add("W1b remindd CPU per report", "µs", f"{b['cpu_us']:.0f}", "—", "—", None, "—", None)
    add("W1b log bytes per change", "B", f"{b['log_bytes']:.0f}", "—", "—", None, "—", None)
    add("W1a ingest, 10% changes", "reports/s", fmt(a["rate"]), "nginx 204", fmt(floor["rate"]),
        a["rate"] / floor["rate"], "≥ 0.25", a["rate"] >= 0.25 * floor["rate"])
    add("W1a remindd CPU per report", "µs", f"{a['cpu_us']:.0f}", "—", "—", None, "—", None)
    add("W1a latency p50 / p99", "ms", f"{a['p50']:.2f} / {a['p99']:.2f}", "nginx 204",
        f"{floor['p50']:.2f} / {floor['p99']:.2f}", a["p99"] / floor["p99"] if floor["p99"] else None,
        "(p99 ratio)", None)
    errors = a["errors"] + b["errors"]
    if errors:
        notes.append(f"W1: {errors:.0f} remindd requests failed")


def seed_million():
    """USERS users, each with an open episode, generated through remindd's own API and code."""
    daemon = Remindd("big")
    daemon.start()
    began = time.monotonic()
    seed = loadgen("seed", daemon.socket, CONNS, USERS, "u", "whileInUse")
    log(f"seeded {USERS:,} users in {time.monotonic() - began:.0f} s ({seed.get('rate', 0):,.0f}/s)")
    if seed.get("errors"):
        raise RuntimeError(f"seeding failed: {seed}")
    stopping = time.monotonic()
    daemon.stop()
    log(f"remindd stopped (final checkpoint and snapshot) in {time.monotonic() - stopping:.0f} s")
    return daemon.state


def w3(state, empty_rss):
    daemon = Remindd("w3", state=state)
    daemon.start()
    time.sleep(3)
    status = daemon.status()
    rss = rss_bytes(daemon.pid)
    daemon.stop()
    users = status.get("users", 0)
    pending = status.get("pendingReminders", 0)
    per_user = rss / max(users, 1)
    log(f"W3 remindd: {users:,} users, {pending:,} pending, RSS {rss / 2**20:.0f} MiB "
        f"(empty daemon {empty_rss / 2**20:.0f} MiB)")
    redis, sock = start_redis("redis-w3", durable=False)
    base = int(re.search(r"used_memory:(\d+)", redis_cli(sock, "info", "memory")).group(1))
    pipe = os.path.join(TMP, "redis-w3", "fill.resp")

    def resp(*args):
        return f"*{len(args)}\r\n" + "".join(f"${len(a.encode())}\r\n{a}\r\n" for a in args)

    with open(pipe, "w") as file:
        for i in range(users):
            file.write(resp("HSET", f"u{i}", "state", USER_JSON))
    subprocess.run(f"redis-cli -s {sock} --pipe < {pipe}", shell=True, check=True, capture_output=True)
    hashed = int(re.search(r"used_memory:(\d+)", redis_cli(sock, "info", "memory")).group(1))
    with open(pipe, "w") as file:
        for i in range(users):
            file.write(resp("ZADD", "due", str(1_795_000_000_000 + i), f"u{i}"))
    subprocess.run(f"redis-cli -s {sock} --pipe < {pipe}", shell=True, check=True, capture_output=True)
    zset = int(re.search(r"used_memory:(\d+)", redis_cli(sock, "info", "memory")).group(1))
    stop(redis)
    per_hash = (hashed - base) / users
    per_member = (zset - hashed) / users
    log(f"W3 redis: {per_hash:.0f} B per HSET of 300 B JSON, {per_member:.0f} B per ZSET member")
    add("W3 memory per user (RSS / users)", "bytes", fmt(per_user), "Redis HSET + ZSET member",
        fmt(per_hash + per_member), per_user / (per_hash + per_member), "≤ 300 B", per_user <= 300)
    add("W3 memory per user (RSS − empty)", "bytes", fmt((rss - empty_rss) / max(users, 1)),
        "Redis HSET / ZSET", f"{per_hash:.0f} / {per_member:.0f}", None, "", None)
    if pending != users:
        notes.append(f"W3: {pending:,} of {users:,} users had a pending reminder")


def w4(state):
    # The snapshot at the top, or one per part (PARTS).
    snapshots = [os.path.join(state, "snapshot.tsv")] + glob.glob(os.path.join(state, "part-*", "snapshot.tsv"))
    size = sum(os.path.getsize(path) for path in snapshots if os.path.exists(path))
    cold = drop_caches()
    daemon = Remindd("w4", state=state)
    ready = daemon.start()
    with open(f"/proc/{daemon.pid}/io") as file:
        io = {line.split(":")[0]: int(line.split(":")[1]) for line in file}
    users = daemon.status().get("users", 0)
    daemon.stop()
    log(f"W4: READY in {ready:.2f} s ({'cold' if cold else 'warm'}), {users:,} users; read {io['rchar'] / 2**20:.0f} MiB "
        f"(disk {io['read_bytes'] / 2**20:.0f} MiB), snapshot.tsv {size / 2**20:.0f} MiB")
    # Which files does start-up open? strace counts opens under users/ (timing not used).
    trace = os.path.join(TMP, "w4.strace")
    traced = Remindd("w4-strace", state=state)
    traced.start(strace=trace)
    traced.stop()
    opened = 0
    with open(trace) as file:
        for line in file:
            if "/users/" in line and ".json" in line:
                opened += 1
    log(f"W4: start-up opened {opened} user files")
    add("W4 cold start to READY=1", "s", f"{ready:.2f}", "—", "—", None, "≤ 5 s", ready <= 5)
    add("W4 user files opened before READY", "files", f"{opened:,}", "—", "—", None, "0 (snapshot)", opened == 0)
    if users != USERS:
        notes.append(f"W4: the daemon came up with {users:,} users, not {USERS:,}")


def apscheduler_peer():
    output = subprocess.run([sys.executable, os.path.join(HERE, "apscheduler_peer.py"), str(APS_JOBS)],
                            capture_output=True, text=True, check=True).stdout
    return parse_pairs(output)


def w2(state):
    daemon = Remindd("w2", delay=1, state=state)
    with open(daemon.sink, "w"):
        pass
    daemon.start()
    lines, unique, position, partial = 0, set(), 0, b""
    delivered, last_status, done_at = 0, 0.0, None
    while True:
        with open(daemon.sink, "rb") as file:
            file.seek(position)
            chunk = file.read()
        position += len(chunk)
        parts = (partial + chunk).split(b"\n")
        partial = parts.pop()
        for line in parts:
            match = re.search(rb'"id":"([^"]+)"', line)
            if match:
                unique.add(match.group(1))
            lines += 1
        now = time.monotonic()
        # /v1/status counts every user on the store's actor: ask rarely while the sink fills.
        if now - last_status > 10 or lines >= USERS:
            delivered = daemon.status().get("delivered", 0)
            last_status = now
            log(f"W2: {lines:,} events in the sink, {delivered:,} recorded delivered")
        if lines >= USERS and delivered >= USERS:
            done_at = time.monotonic()
            break
        if W2_TIMEOUT and now - daemon.started > W2_TIMEOUT:
            break
        time.sleep(0.2)
    elapsed = (done_at or time.monotonic()) - daemon.started
    stopping = time.monotonic()
    daemon.stop()
    log(f"W2: remindd stopped (every delivery folded into its user's file) in {time.monotonic() - stopping:.0f} s")
    rate = len(unique) / elapsed
    peer = apscheduler_peer()
    log(f"W2 APScheduler: {peer}")
    complete = done_at is not None
    label = fmt(rate) if complete else f"{fmt(rate)} (stopped at {len(unique):,}/{USERS:,})"
    add("W2 fire: events/s into the file sink", "events/s", label, f"APScheduler 3 ({APS_JOBS:,} jobs)",
        fmt(peer["rate"]), rate / peer["rate"], "≥ 10×", rate >= 10 * peer["rate"] and complete)
    add("W2 time for all / lost", "s / events", f"{elapsed:.0f} / {USERS - len(unique) if complete else '?'}",
        "APScheduler misfired", f"{peer['missed']:,.0f} of {APS_JOBS:,}", None, "0 lost",
        complete and len(unique) == USERS)
    if not complete:
        notes.append(f"W2 stopped after {W2_TIMEOUT:.0f} s (W2_TIMEOUT) with {len(unique):,} of {USERS:,} events; "
                     f"all would take about {USERS / rate:,.0f} s at this rate")


def w5():
    rows = {}
    for label in ("idle", "load"):
        daemon = Remindd(f"w5-{label}", delay=60)
        with open(daemon.sink, "w"):
            pass
        daemon.start()
        if label == "load":
            # W1's users in a state with Always access, so the mix opens no episode due in the window.
            loadgen("seed", daemon.socket, CONNS, W1_USERS, "u", "always")
        first_due = int(time.time() * 1000) + 15_000
        scheduled = loadgen("schedule", daemon.socket, CONNS, W5_USERS, first_due, W5_SPREAD * 1000, 60, "l")
        if scheduled.get("errors"):
            raise RuntimeError(f"W5 scheduling failed: {scheduled}")
        watcher = start([LOADGEN, "watch", daemon.sink, str(W5_USERS), str(15 + W5_SPREAD + 60), "l"],
                        stdout=subprocess.PIPE, text=True)
        load = None
        if label == "load":
            wait = first_due / 1000 - time.time() - 3
            if wait > 0:
                time.sleep(wait)
            load = start([LOADGEN, "run", daemon.socket, str(CONNS), str(W5_SPREAD + 6), str(W1_USERS), "10", "u",
                          "always"], stdout=subprocess.PIPE, text=True)
        output, _ = watcher.communicate()
        processes.remove(watcher)
        if load:
            load_output, _ = load.communicate()
            processes.remove(load)
            log(f"W5 load alongside: {load_output.strip()}")
        daemon.stop()
        rows[label] = parse_pairs(output)
        log(f"W5 {label}: {output.strip()}")
    for label, goal in (("idle", 10), ("load", 100)):
        row = rows[label]
        add(f"W5 lateness {label} p50 / p99 / max", "ms",
            f"{row['p50']:.0f} / {row['p99']:.0f} / {row['max']:.0f}", "—", "—", None, f"p99 ≤ {goal} ms",
            row["p99"] <= goal and row["reminders"] == W5_USERS)
        if row["reminders"] != W5_USERS:
            notes.append(f"W5 {label}: only {row['reminders']:.0f} of {W5_USERS} reminders reached the sink in time")


def push_peer(directory, port):
    """nginx answering 200 over HTTP/2 with TLS, as APNs does: the floor a push sink can reach.
    Its access log names the connection of every request, so the run shows they shared one."""
    config = os.path.join(directory, "nginx.conf")
    with open(config, "w") as file:
        file.write(f"""
load_module /usr/lib/nginx/modules/ngx_http_echo_module.so;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log;
events {{ worker_connections 1024; }}
http {{
    log_format push '$msec $connection $request_uri $http_apns_id $status';
    access_log {directory}/access.log push buffer=1m flush=1s;
{nginx_http_common(directory)}    server {{
        listen 127.0.0.1:{port} ssl http2;
        ssl_certificate {directory}/server.pem;
        ssl_certificate_key {directory}/server.key;
        http2_max_concurrent_streams 1000;
        # The body is read, as APNs does: `return 200` answers before reading it, and nginx then
        # leaks HTTP/2 flow-control window until the connection stalls (seen: after ~9,900 pushes).
        location / {{ echo_read_request_body; echo_status 200; echo_flush; }}
    }}
}}
""")
    process = start(["nginx", "-p", directory, "-c", config, "-g", "daemon off;"], stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(os.path.join(directory, "nginx.pid")):
            break
        time.sleep(0.05)
    return process


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def w6():
    """Pushes per second from W6_USERS due reminders to a local HTTP/2 APNs peer, one connection."""
    directory = os.path.join(TMP, "w6")
    os.makedirs(directory)
    ca, server = os.path.join(directory, "ca"), os.path.join(directory, "server")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            ca + ".key", "-out", ca + ".pem", "-days", "2", "-subj", "/CN=bench-ca")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            server + ".key", "-out", server + ".csr", "-subj", "/CN=127.0.0.1")
    with open(server + ".ext", "w") as file:
        file.write("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", server + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key", "-set_serial", "7",
            "-days", "2", "-extfile", server + ".ext", "-out", server + ".pem")
    key = os.path.join(directory, "AuthKey_BENCH12345.p8")
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for concurrency in W6_CONCURRENCY:
        run = os.path.join(directory, f"c{concurrency}")
        os.makedirs(run)
        for name in ("server.pem", "server.key"):
            shutil.copy(os.path.join(directory, name), run)
        peer = push_peer(run, port)
        sink = {"type": "apns", "keyFile": key, "keyID": "BENCH12345", "teamID": "TEAM123456",
                "topic": "com.example.bench", "url": f"https://127.0.0.1:{port}", "caFile": ca + ".pem",
                "maxConcurrency": concurrency}
        # Every user's episode starts at the same instant, so all reminders come due together.
        daemon = Remindd(f"w6-{concurrency}", delay=W6_DELAY, sinks=[sink])
        daemon.start()
        observed = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        due = time.time() + W6_DELAY
        for n in range(W6_USERS):
            body = json.dumps({"location": "whileInUse", "observedAt": observed,
                               "push": {"service": "apns", "token": f"{n:064x}"}})
            code, _ = http(f"/v1/users/p{n}/reports", daemon.socket, "POST", body)
            if code != 200:
                raise RuntimeError(f"W6 seeding failed with {code}")
        if time.time() > due:
            raise RuntimeError(f"W6 seeding took longer than the {W6_DELAY} s trigger delay")
        while time.time() < due:
            time.sleep(0.2)
        deadline = time.time() + 600
        delivered = 0
        while time.time() < deadline:
            code, body = http("/metrics", daemon.socket)
            match = re.search(rb'remindd_push_total\{[^}]*result="delivered"[^}]*\} (\d+)', body)
            delivered = int(match.group(1)) if match else 0
            if delivered >= W6_USERS:
                break
            time.sleep(0.2)
        daemon.stop()
        stop(peer)
        times, connections, ids = [], set(), set()
        with open(os.path.join(run, "access.log")) as file:
            for line in file:
                stamp, connection, _, apns_id, status = line.split()
                if status == "200":
                    times.append(float(stamp))
                    connections.add(connection)
                    ids.add(apns_id)
        elapsed = max(times) - min(times) if len(times) > 1 else float("nan")
        rate = len(ids) / elapsed if elapsed else float("nan")
        log(f"W6 maxConcurrency {concurrency}: {len(ids):,} pushes over {len(connections)} connection(s) "
            f"in {elapsed:.2f} s; {delivered:,} counted delivered")
        add(f"W6 push: APNs pushes/s, maxConcurrency {concurrency}", "pushes/s", fmt(rate),
            "nginx HTTP/2 TLS answering 200", "—", None, f"{W6_USERS:,} on 1 connection",
            len(ids) == W6_USERS and len(connections) == 1 and delivered == W6_USERS)


def w7():
    """GET /v1/stats over W7_EPISODES closed episodes (answered from memory; goal: under 100 ms)."""
    daemon = Remindd("w7")
    outcomes = os.path.join(daemon.state, "outcomes")
    os.makedirs(outcomes, exist_ok=True)
    start = int(time.time()) - 20 * 86_400
    groups = ["default", "mileage", "holdout"]
    reasons = ["locationNotAuthorizedAlways", "locationServicesTurnedOff", "preciseLocationNotEnabled"]
    with open(os.path.join(outcomes, time.strftime("outcomes-%Y-%m.jsonl", time.gmtime())), "w") as file:
        for n in range(W7_EPISODES):
            opened = start + (n * 7) % (19 * 86_400)
            closed = opened + 60 + (n * 7919) % (9 * 86_400)
            file.write(
                f'{{"userID":"s{n}","group":"{groups[n % 3]}","reason":"{reasons[n % 3]}",'
                f'"startedAt":"{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(opened))}",'
                f'"closedAt":"{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(closed))}",'
                f'"outcome":"{"forgotten" if n % 10 == 0 else "resolved"}","reminders":{n % 5},"platform":"ios"}}\n')
    ready = daemon.start()
    # The first answer waits for the outcomes log to be read (off start-up): timed apart.
    began = time.perf_counter()
    http("/v1/stats", daemon.socket)
    first = time.perf_counter() - began
    timings = []
    for _ in range(W7_QUERIES):
        began = time.perf_counter()
        code, body = http("/v1/stats", daemon.socket)
        timings.append((time.perf_counter() - began) * 1000)
        if code != 200:
            raise RuntimeError(f"W7: /v1/stats answered {code}")
    report = json.loads(body)
    episodes = sum(group["episodes"] for group in report["groups"])
    daemon.stop()
    timings.sort()
    p50, worst = timings[len(timings) // 2], timings[-1]
    log(f"W7: {episodes:,} episodes in the window; READY after {ready:.2f} s; first answer (reading the log) "
        f"{first:.2f} s; then /v1/stats p50 {p50:.1f} ms, max {worst:.1f} ms over {W7_QUERIES} queries")
    add(f"W7 GET /v1/stats, {W7_EPISODES:,} closed episodes p50 / max", "ms", f"{p50:.1f} / {worst:.1f}", "—", "—",
        None, "< 100 ms", worst < 100 and episodes == W7_EPISODES)
    add(f"W7 READY / first answer with {W7_EPISODES:,} outcomes to read", "s", f"{ready:.2f} / {first:.2f}", "—", "—",
        None, "—", None)


def w9():
    """Adaptive allocation and send time: remind-simulation replays a seeded population of
    made-up users through remindd's own policy, allocation and send-time code on a simulated
    clock; it tests the mechanism, not real users' behaviour."""
    users = int(ENV.get("W9_USERS", "100000"))
    days = int(ENV.get("W9_DAYS", "90"))
    svg = os.path.join(HERE, "W9-learning.svg")
    table = os.path.join(HERE, "W9-days.md")
    funnel = os.path.join(HERE, "W9-funnel.md")
    output = subprocess.run(
        [os.path.join(BIN, "remind-simulation"), "--users", str(users), "--days", str(days), "--svg", svg,
         "--table", table, "--funnel", funnel], capture_output=True, text=True, timeout=3600)
    if output.returncode != 0:
        raise RuntimeError(f"remind-simulation failed: {output.stderr.strip()[-2000:]}")
    row = json.loads(output.stdout.strip().splitlines()[-1])
    log(f"W9: {row}")
    add(f"W9 share to the best variant from day 31, {users:,} users", "%", f"{row['shareToBestFromDay31'] * 100:.1f}",
        "—", "—", None, "≥ 80 %", row["shareToBestFromDay31"] >= 0.8)
    add(f"W9 regret at day {days} / the even split's", "ratio", f"{row['regretRatio']:.2f}", "—", "—", None,
        "≤ 0.40", row["regretRatio"] <= 0.4)
    add("W9 holdout share (10 % configured)", "%", f"{row['holdoutShare'] * 100:.2f}", "—", "—", None,
        "10 ± 0.5", abs(row["holdoutShare"] - 0.1) <= 0.005)
    low, high = row["sendTimeUpliftCI95"] or (0, 0)
    add("W9 send-time uplift (active − due), 95 % CI", "pts",
        f"{row['sendTimeUplift'] * 100:+.1f} ({low * 100:+.1f} … {high * 100:+.1f})", "—", "—", None, "—", None)
    if "inAppUplift" in row:
        low, high = row["inAppUpliftCI95"]
        add("W9 in-app asks: resolution with / without, uplift (95 % CI)", "pts",
            f"{row['inAppResolution'] * 100:.1f} / {row['withoutInAppResolution'] * 100:.1f}, "
            f"{row['inAppUplift'] * 100:+.1f} ({low * 100:+.1f} … {high * 100:+.1f})", "—", "—", None, "> 0",
            low > 0)
        steps = row["funnel"]
        add("W9 funnel (episodes → reminded → opened → asked → shown → accepted → resolved)", "episodes",
            " → ".join(str(steps[s]) for s in ("episodes", "reminded", "opened", "asked", "shown", "accepted",
                                               "resolved")), "—", "—", None, "—", None)


def w10():
    """The console: bench.py starts remindd with a TCP listener and a token, seeds W1's users,
    and console_bench.py (selenium, in the console tests' virtualenv) measures in Chromium."""
    daemon = Remindd("w10")
    port = free_port()
    tokens = os.path.join(daemon.dir, "tokens")
    token = "w10-" + os.urandom(16).hex()
    with open(tokens, "w") as file:
        file.write(f"bench read {token}\n")
    daemon.extra = {"listen": {"socket": daemon.socket, "tcp": f"127.0.0.1:{port}", "tokensFile": tokens}}
    daemon.start()
    seed = loadgen("seed", daemon.socket, CONNS, W1_USERS, "u", "whileInUse")
    log(f"W10: seeded {W1_USERS} users at {seed.get('rate', 0):,.0f}/s")
    settle(daemon)
    python = ENV.get("CONSOLE_PYTHON", "python3")
    output = subprocess.run(
        [python, os.path.join(HERE, "console_bench.py"), f"http://127.0.0.1:{port}", token, daemon.socket, LOADGEN,
         str(W1_USERS), str(SECONDS), str(CONNS)], capture_output=True, text=True, timeout=900,
        env=dict(os.environ, SE_OFFLINE="true"))
    daemon.stop()
    if output.returncode != 0:
        raise RuntimeError(f"console_bench failed: {output.stderr.strip()[-2000:]}")
    row = json.loads(output.stdout.strip().splitlines()[-1])
    log(f"W10: {row}")
    first = row["first_load"]
    add("W10 console first load (HTML + files, cold)", "KiB / ms", f"{first['bytes'] / 1024:.1f} / {first['ms']:.0f}",
        "—", "—", None, "—", None)
    for key, label in (("status_idle", "no console"), ("status_10_consoles", "10 consoles"),
                       ("status_10_consoles_w1a", "10 consoles + W1a load")):
        sample = row[key]
        add(f"W10 /v1/status p50 / p99, {label}", "ms", f"{sample['p50']:.2f} / {sample['p99']:.2f}", "—", "—",
            None, "p99 ≤ 100 ms", sample["p99"] <= 100)
    if row.get("consoles_showing") != 10:
        notes.append(f"W10: only {row.get('consoles_showing')} of 10 consoles still showed the overview")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def machine():
    model = "?"
    with open("/proc/cpuinfo") as file:
        for line in file:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} CPUs ({model}); "
            f"Linux {os.uname().release}; {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB")


def table():
    header = ("workload", "unit", "remindd", "peer", "peer value", "ratio", "goal", "met")
    rows = [header] + [
        (w, m, o, pn, p, "—" if r is None else f"{r:.2f}", g, "—" if met is None else ("yes" if met else "NO"))
        for (w, m, o, pn, p, r, g, met) in results]
    print()
    print(f"remindd benchmark, {machine()}")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows[1:]:
        print("| " + " | ".join(row) + " |")
    for note in notes:
        print(f"- {note}")


def main():
    log(f"remindd from {BIN}; temp directory {TMP}")
    # A bench stopped with kill or a closed terminal still runs the `finally` below: servers
    # left running (a PostgreSQL whose backends go on with their statements) load the machine
    # for the next run.
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda received, _: sys.exit(128 + received))
    try:
        if "1" in WORKLOADS:
            w1()
        if "1c" in WORKLOADS:
            import bulk_bench
            bulk_bench.w1c(sys.modules[__name__])
        if WORKLOADS & {"2", "3", "4"}:
            empty = Remindd("empty")
            empty.start()
            time.sleep(1)
            empty_rss = rss_bytes(empty.pid)
            empty.stop()
            state = seed_million()
            if "3" in WORKLOADS:
                w3(state, empty_rss)
            if "4" in WORKLOADS:
                w4(state)
            if "2" in WORKLOADS:
                w2(state)
        if "5" in WORKLOADS:
            w5()
        if "6" in WORKLOADS:
            w6()
        if "7" in WORKLOADS:
            w7()
        if "8" in WORKLOADS:
            import postgres_bench
            postgres_bench.w8(sys.modules[__name__])
        if "9" in WORKLOADS:
            w9()
        if "10" in WORKLOADS:
            w10()
    except Exception as error:  # print what was measured before the failure
        notes.append(f"run failed: {error}")
        raise
    finally:
        # Newest first: the daemons before the PostgreSQL they use, whose shutdown waits for
        # its clients to leave.
        for process in reversed(list(processes)):
            stop(process, timeout=120)
        table()
        if ENV.get("KEEP") == "1":
            print(f"kept {TMP}", file=sys.stderr)
        else:
            shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
