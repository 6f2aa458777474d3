"""The pieces the console's browser tests share: the real daemon and a headless Chromium."""

import datetime
import json
import os
import secrets
import select
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# Selenium Manager must never try to download a browser or a driver.
os.environ.setdefault("SE_OFFLINE", "true")
REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / ".build" / "console-artifacts"
CONSOLE_FILES = REPO / "Sources" / "RemindDaemon" / "Console"
WAIT = 10

# ---------------------------------------------------------------- the daemon


def now_iso(offset_seconds=0.0):
    instant = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=offset_seconds)
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def poll(condition, timeout, message, interval=0.1):
    """Polls `condition` until it answers something truthy, or fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"{message} (within {timeout} s; last: {last!r})")


class Daemon:
    def __init__(self, binary, work):
        self.binary = binary
        self.work = Path(work)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.tokens = {scope: secrets.token_hex(16) for scope in ("admin", "read", "report")}
        self.names = {"admin": "ops", "read": "viewer", "report": "backend"}
        (self.work / "tokens").write_text(
            "# name scope token\n"
            + "".join(f"{self.names[scope]} {scope} {token}\n" for scope, token in self.tokens.items())
        )
        os.chmod(self.work / "tokens", 0o600)
        retry = {"initialBackoffSeconds": 0.05, "maxBackoffSeconds": 0.05, "maxAttempts": 2}
        config = {
            # An hour's delay: users reported two hours ago are reminded at once (their
            # reminders fire and dead-letter in the failing sink), fresh ones stay pending.
            "notification": {"notificationTriggerDelay": 3600, "showRecurringNotification": False},
            "stateDirectory": str(self.work / "state"),
            "listen": {
                "socket": str(self.work / "remindd.sock"),
                "tcp": f"127.0.0.1:{self.port}",
                "tokensFile": str(self.work / "tokens"),
            },
            "sinks": [
                {"type": "file", "name": "file", "path": str(self.work / "events.jsonl")},
                {"type": "exec", "name": "broken", "command": ["/bin/false"], "timeoutSeconds": 5, "retry": retry},
                # No push sink: every reminder also goes to the fallback (the channels table).
                {"type": "file", "name": "mail", "role": "fallback", "path": str(self.work / "fallback.jsonl")},
            ],
            "services": {"trips": {"requires": ["location", "always"], "optional": ["precise"]}},
            "experiment": {"holdoutPercent": 25, "defaultWeight": 1, "variants": [{"name": "short", "weight": 1}]},
            # Every report of an open episode gets an ask, up to three: the funnel has asks.
            "inApp": {"enabled": True, "minIntervalSeconds": 0},
        }
        (self.work / "remindd.json").write_text(json.dumps(config, indent=1))
        self.log = open(self.work / "remindd.log", "wb")
        # A real NOTIFY_SOCKET: the daemon says READY=1 on it once its state is loaded and every
        # listener serves, as it does to systemd.
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(str(self.work / "notify.sock"))
        env = {k: v for k, v in os.environ.items() if k not in ("LISTEN_FDS", "LISTEN_PID", "REMINDD_CONFIG")}
        env["NOTIFY_SOCKET"] = str(self.work / "notify.sock")
        self.process = subprocess.Popen(
            [binary, "--config", str(self.work / "remindd.json")], stdout=self.log, stderr=subprocess.STDOUT, env=env
        )

    def request(self, method, path, body=None, scope="admin", token=None, headers=None):
        """(status, headers, parsed JSON or raw bytes) of one request over TCP."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        bearer = token if token is not None else (self.tokens[scope] if scope else None)
        if bearer:
            request.add_header("Authorization", f"Bearer {bearer}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, answer_headers, raw = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, answer_headers, raw = error.code, error.headers, error.read()
        content_type = answer_headers.get("Content-Type", "")
        if raw and "json" in content_type:
            return status, answer_headers, json.loads(raw)
        return status, answer_headers, raw

    def get(self, path, scope="admin"):
        status, _, body = self.request("GET", path, scope=scope)
        assert status == 200, f"GET {path}: {status} {body!r}"
        return body

    def report(self, user, location="whileInUse", observed_at=None, **extra):
        body = {
            "location": location,
            "accuracy": "full",
            "locationServices": True,
            "notifications": "authorized",
            "observedAt": observed_at or now_iso(),
            **extra,
        }
        status, _, answer = self.request("POST", f"/v1/users/{user}/reports", body)
        assert status == 200, f"report for {user}: {status} {answer!r}"
        return answer

    def wait_ready(self, timeout=60):
        """Until the daemon sends READY=1 on its NOTIFY_SOCKET; fails if it exits first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"remindd exited at start ({self.process.returncode}):\n{self.log_tail()}")
            readable, _, _ = select.select([self.notify], [], [], min(0.5, max(0.0, deadline - time.monotonic())))
            if readable and "READY=1" in self.notify.recv(4096).decode(errors="replace").split("\n"):
                return
        raise AssertionError(f"remindd sent no READY=1 within {timeout} s:\n{self.log_tail()}")

    def events(self, user, events):
        status, _, answer = self.request("POST", f"/v1/users/{user}/events", {"events": events}, scope="report")
        assert status == 200, f"events for {user}: {status} {answer!r}"
        return answer["accepted"]

    def wait_always_kept(self, timeout=60):
        """Until /v1/stats has "Always kept" read after every report so far."""
        after = now_iso()

        def read():
            kept = self.get("/v1/stats").get("alwaysKept")
            return kept is not None and kept["computedAt"] > after

        poll(read, timeout, "Always kept was not read", interval=0.3)

    def wait_settled(self, timeout=30):
        """Until nothing is due or queued, and two status answers in a row agree."""
        previous = {}

        def settled():
            status = self.get("/v1/status")
            due = self.get(f"/v1/reminders?dueBefore={now_iso(1)}")["reminders"]
            queued = sum(sink["pending"] for sink in status["sinks"])
            figures = {k: status[k] for k in ("users", "pendingReminders", "delivered", "failed", "deadLetters")}
            figures["sinks"] = status["sinks"]
            calm = not due and queued == 0 and figures == previous.get("last")
            previous["last"] = figures
            return calm

        poll(settled, timeout, "remindd did not settle", interval=0.3)

    def log_tail(self):
        self.log.flush()
        return (self.work / "remindd.log").read_text(errors="replace")[-4000:]

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError("remindd did not stop within 30 s of SIGTERM")
        self.log.close()
        self.notify.close()
        return self.process.returncode


# ---------------------------------------------------------------- the browser


class Browser:
    """A headless Chromium with its console log and the requests it made."""

    def __init__(self, base):
        self.base = base
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                         "--disable-gpu", "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--disable-default-apps"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
        # Exactly 1280x900 CSS pixels for the screenshots.
        self.driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}
        )
        self.log = []
        self.requested = set()

    def wait(self, condition, message, timeout=WAIT):
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1).until(lambda _: condition(), message)
        except TimeoutException:
            raise AssertionError(f"{message} (within {timeout} s)") from None

    def open(self, hash_route=""):
        self.driver.get(f"{self.base}/ui/{hash_route}")

    def go(self, hash_route):
        """Moves to another page of the loaded console, as a click on a link would."""
        self.driver.execute_script("location.hash = arguments[0]", hash_route)

    def find(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css):
        """The rendered text of the first match, read in one script so a re-render cannot intervene."""
        return self.driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css
        )

    def field(self, path):
        return self.text(f'[data-field="{path}"]')

    def fields(self, prefix=""):
        """Every data-field on the page whose path starts with `prefix`, path -> (text, data-value)."""
        return self.driver.execute_script(
            "const out = {};"
            "for (const e of document.querySelectorAll('[data-field]'))"
            "  if (e.dataset.field.startsWith(arguments[0])) out[e.dataset.field] = [e.textContent, e.dataset.value ?? null];"
            "return out;",
            prefix,
        )

    def sign_in(self, token):
        self.wait(lambda: self.find("#token"), "the token form appears")
        box = self.find("#token")[0]
        box.clear()
        box.send_keys(token)
        self.find("form.login button[type=submit]")[0].click()

    def signed_in(self, token, hash_route="#/overview"):
        self.open(hash_route)
        self.sign_in(token)
        self.wait(lambda: self.find('[data-field="whoami.name"]'), "the console shows who is signed in")
        self.wait_page()

    def wait_page(self):
        """Until the page has its figures or its final text (no 'Loading…' left)."""
        self.wait(
            lambda: self.find("#page-title")
            and not self.driver.execute_script("return document.querySelector('main').textContent.includes('Loading…')"),
            "the page finishes loading",
        )

    def screenshot(self, name):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.driver.execute_script("window.scrollTo(0, 0)")
        path = ARTIFACTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def collect(self):
        self.log += self.driver.get_log("browser")
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                self.requested.add(message["params"]["request"]["url"])
        for url in self.driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
            ".concat(performance.getEntriesByType('navigation').map(e => e.name))"
        ):
            self.requested.add(url)

    def assert_clean(self, expected_statuses=(401,)):
        """No JavaScript error, no CSP violation, no request to another origin."""
        self.collect()
        problems = []
        for entry in self.log:
            if entry["level"] != "SEVERE" and entry.get("source") not in ("security", "javascript"):
                continue
            if entry.get("source") == "network" and any(
                f"status of {code} " in entry["message"] for code in expected_statuses
            ):
                continue  # The browser logs every 4xx answer; these are the ones the test asked for.
            problems.append(entry)
        assert not problems, f"browser console errors: {problems}"
        # data: URLs are Chromium's own (the date picker's icon): nothing leaves the machine.
        foreign = [url for url in self.requested if not url.startswith((self.base + "/", "data:"))]
        assert not foreign, f"requests to another origin: {foreign}"

    def quit(self):
        self.driver.quit()
