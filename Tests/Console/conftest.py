"""Fixtures of the console's browser tests: one daemon for the session, a browser per test."""

import datetime
import os
import shutil
import tempfile

import pytest

from harness import Browser, Daemon, now_iso

@pytest.fixture(scope="session")
def daemon():
    binary = os.environ.get("REMINDD_BINARY")
    if not binary or not os.access(binary, os.X_OK):
        pytest.fail(f"REMINDD_BINARY must name the remindd binary (got {binary!r})")
    work = tempfile.mkdtemp(prefix="remindd-console-")
    instance = Daemon(binary, work)
    try:
        instance.wait_ready()
        # Reported two to five hours ago without Always access: reminded at once (and the
        # exec sink fails, so each event becomes a dead letter).
        late = range(1, 37)
        asks = {}
        for index in late:
            answer = instance.report(f"late-{index}", observed_at=now_iso(-7200 - 300 * index), locale="de-CH",
                                     platform="Android 14" if index % 4 == 3 else "iOS 18.1", appVersion="4.2.0")
            asks[index] = answer["ask"]
        # Reported now: their reminders are pending for an hour.
        for index in range(1, 5):
            instance.report(f"fresh-{index}", accuracy="reduced", platform="android 14")
        instance.report("u@example.com", location="always")
        # Always gained twenty days ago: kept by one, lost two days later by the other.
        for user in ("kept-1", "lost-1"):
            instance.report(user, location="always", observed_at=now_iso(-20 * 86400), platform="iOS 17")
        instance.report("lost-1", observed_at=now_iso(-18 * 86400))
        instance.wait_settled()
        # What the app reports: some reminders opened, some asks seen and accepted, so that the
        # funnel goes past its first steps in each group.
        for index in late:
            user = f"late-{index}"
            status = instance.get(f"/v1/users/{user}")
            started = datetime.datetime.fromisoformat(status["episode"]["startedAt"].replace("Z", "+00:00"))
            events = []
            if status["episode"]["remindersDelivered"] and index % 3:
                events.append({"type": "reminderOpened", "id": f"{user}/{int(started.timestamp())}/1"})
            if asks[index] and index % 5:
                events.append({"type": "askShown", "id": asks[index]["id"]})
                if index % 2:
                    events.append({"type": "askAccepted", "id": asks[index]["id"]})
            if events:
                assert instance.events(user, events) == len(events)
        # Some episodes end after their reminder, more often in some groups than in others:
        # resolved outcomes (with different times to fix) and withdraw events.
        share = {"default": 50, "short": 75, "holdout": 25}
        for index in late:
            group = instance.get(f"/v1/users/late-{index}")["group"]
            if index * 37 % 100 < share.get(group, 50):
                instance.report(f"late-{index}", location="always")
        instance.wait_settled()
        instance.wait_always_kept()
        yield instance
    finally:
        code = instance.stop()
        if code != 0:
            print(instance.log_tail())
        shutil.rmtree(work, ignore_errors=True)
    assert code == 0, f"remindd exited with {code} on SIGTERM"


@pytest.fixture
def browser(daemon):
    instance = Browser(daemon.base)
    yield instance
    instance.quit()
