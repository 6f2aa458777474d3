#!/usr/bin/env python3
"""W2's peer: APScheduler 3.x with its defaults (memory job store, a thread pool of 10,
misfire_grace_time 1 s), N date jobs all due at the same instant, each appending to a list.

    apscheduler_peer.py N

Prints `jobs N executed E missed M seconds S rate R`: R is executed jobs per second from the due
time to the last job's end; M the jobs APScheduler dropped as misfires.
"""
import sys
import threading
import time
from datetime import datetime, timedelta, timezone

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, EVENT_JOB_MISSED
from apscheduler.schedulers.background import BackgroundScheduler

count = int(sys.argv[1])
fired = []
lock = threading.Lock()
tally = {"executed": 0, "missed": 0, "error": 0, "last": 0.0}
finished = threading.Event()


def job(index):
    fired.append(index)


def listener(event):
    with lock:
        key = {EVENT_JOB_EXECUTED: "executed", EVENT_JOB_MISSED: "missed"}.get(event.code, "error")
        tally[key] += 1
        tally["last"] = time.time()
        if tally["executed"] + tally["missed"] + tally["error"] == count:
            finished.set()


scheduler = BackgroundScheduler(timezone=timezone.utc)
scheduler.add_listener(listener, EVENT_JOB_EXECUTED | EVENT_JOB_MISSED | EVENT_JOB_ERROR)
# Every job is due at one instant, far enough ahead that adding them all (about 0.4 ms each
# here) and starting the scheduler end before it.
due = datetime.now(timezone.utc) + timedelta(seconds=10 + count * 0.0008)
for index in range(count):
    scheduler.add_job(job, "date", run_date=due, args=[index], id=f"{index:08d}")
scheduler.start()
late = (datetime.now(timezone.utc) - due).total_seconds()
if late > 0:
    print(f"apscheduler_peer: the scheduler started {late:.1f} s after the due time", file=sys.stderr)
finished.wait(3600)
elapsed = tally["last"] - due.timestamp()
scheduler.shutdown(wait=False)
print(f"jobs {count} executed {tally['executed']} missed {tally['missed']} errors {tally['error']} "
      f"appended {len(fired)} seconds {elapsed:.3f} rate {tally['executed'] / elapsed:.0f}")
