#!/usr/bin/env python3
"""W10, the console: its first load in headless Chromium, and /v1/status under refreshing consoles.

Run by bench.py (W=10) with the console tests' virtualenv (selenium), against a remindd that
bench.py started with a TCP listener and a tokens file:

    console_bench.py BASE_URL TOKEN UNIX_SOCKET LOADGEN USERS SECONDS CONNS

Prints one JSON object: the first load's bytes and milliseconds (median of 5 cold loads, cache
disabled), and /v1/status latency percentiles over TCP with no console, with 10 consoles on the
overview (each refreshing every 5 s), and with those 10 consoles while loadgen runs W1a's load
(10 % changes) on the Unix socket. Every process it starts it stops; every wait has a deadline.
"""
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from urllib.parse import urlparse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE, TOKEN, SOCKET, LOADGEN = sys.argv[1:5]
USERS, SECONDS, CONNS = (int(value) for value in sys.argv[5:8])
CONSOLES = 10
FIGURE = '[data-field="users"]'


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                     "--disable-gpu"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def signed_in(driver):
    """Opens the console once to reach its origin, then keeps the token the way it does."""
    driver.get(BASE + "/ui/")
    driver.execute_script("sessionStorage.setItem('remindd.token', arguments[0])", TOKEN)


def figure_shown(driver):
    return any(element.text.strip() for element in driver.find_elements(By.CSS_SELECTOR, FIGURE))


def first_load(driver):
    """A cold load (cache disabled): bytes of the page and its files, and ms until the figure."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.get("about:blank")
    driver.get(BASE + "/ui/#/overview")
    WebDriverWait(driver, 20, poll_frequency=0.005).until(figure_shown)
    shown = driver.execute_script("return performance.now()")
    entries = driver.execute_script(
        "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
        ".map(e => ({name: e.name, bytes: e.transferSize, body: e.encodedBodySize}))")
    console = [entry for entry in entries if "/ui/" in entry["name"]]
    return {"ms": shown, "bytes": sum(entry["body"] for entry in console),
            "transferred": sum(entry["bytes"] for entry in console), "files": len(console)}


class Probe:
    """/v1/status over one keep-alive TCP connection per run, 20 times a second, in ms (a new
    connection each run: the daemon closes one left idle past its header deadline)."""

    def run(self, seconds):
        address = urlparse(BASE)
        self.connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
        samples = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.perf_counter()
            self.connection.request("GET", "/v1/status", headers={"Authorization": f"Bearer {TOKEN}"})
            response = self.connection.getresponse()
            response.read()
            if response.status != 200:
                raise RuntimeError(f"/v1/status answered {response.status}")
            samples.append((time.perf_counter() - started) * 1000)
            time.sleep(max(0.0, 0.05 - (time.perf_counter() - started)))
        self.connection.close()
        samples.sort()
        return {"n": len(samples), "p50": samples[len(samples) // 2],
                "p99": samples[min(len(samples) - 1, int(len(samples) * 0.99))], "max": samples[-1]}


def main():
    result = {}
    driver = browser()
    try:
        signed_in(driver)
        loads = [first_load(driver) for _ in range(5)]
        result["first_load"] = {"ms": statistics.median(load["ms"] for load in loads),
                                "bytes": loads[0]["bytes"], "transferred": loads[0]["transferred"],
                                "files": loads[0]["files"]}
    finally:
        driver.quit()
    probe = Probe()
    result["status_idle"] = probe.run(SECONDS)
    consoles = []
    try:
        for _ in range(CONSOLES):
            console = browser()
            consoles.append(console)
            signed_in(console)
            # A new document, so the page starts again with the token (a hash change would not).
            console.get("about:blank")
            console.get(BASE + "/ui/#/overview")
            try:
                WebDriverWait(console, 60).until(figure_shown)
            except Exception:
                page = console.find_element(By.TAG_NAME, "body").text[:400]
                raise RuntimeError(f"console {len(consoles)} showed no figure: {page!r} {console.get_log('browser')}")
        result["status_10_consoles"] = probe.run(SECONDS)
        load = subprocess.Popen([LOADGEN, "run", SOCKET, str(CONNS), str(SECONDS + 2), str(USERS), "10", "u",
                                 "whileInUse"], stdout=subprocess.PIPE, text=True)
        time.sleep(1)
        result["status_10_consoles_w1a"] = probe.run(SECONDS)
        output, _ = load.communicate(timeout=SECONDS + 60)
        result["w1a_alongside"] = output.strip()
        # The consoles really refreshed: each shows a figure still.
        result["consoles_showing"] = sum(1 for console in consoles if figure_shown(console))
    finally:
        for console in consoles:
            console.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    os.environ.setdefault("SE_OFFLINE", "true")
    main()
