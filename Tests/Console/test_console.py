"""The web console at /ui/ in headless Chromium, against the real remindd binary.

Every figure the console shows is compared with the API answer the test fetches itself with
the same token. Run by scripts/console-tests.sh, which passes the binary in REMINDD_BINARY.
"""

import datetime
import json
import os
import secrets
import shutil
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.keys import Keys

from harness import ARTIFACTS, CONSOLE_FILES, REPO, Browser, now_iso

CSP = "default-src 'self'; frame-ancestors 'none'"

@pytest.mark.parametrize("scope", ["admin", "read", "report"])
def test_sign_in_with_each_scope_shows_who_and_only_allowed_buttons(daemon, browser, scope):
    """The token form signs in; whoami is shown; Replay and Forget only for admin."""
    browser.signed_in(daemon.tokens[scope])
    assert browser.field("whoami.name") == daemon.names[scope]
    assert browser.field("whoami.scope") == scope
    assert f"signed in as {daemon.names[scope]} ({scope})" in browser.text("#who")
    assert daemon.get("/v1/whoami", scope=scope) == {"name": daemon.names[scope], "scope": scope, "transport": "tcp"}

    browser.go("#/dead-letters")
    browser.wait(lambda: browser.field("deadLetters.length") not in (None, "0"), "dead letters are listed")
    replay = browser.find("button.replay") + browser.find("button.replay-all")
    browser.go("#/users/late-5")
    browser.wait(lambda: browser.find(".reasons li"), "the user page shows its explanation")
    forget = browser.find("button.forget")
    if scope == "admin":
        assert replay and forget, "an admin sees Replay, Replay all and Forget"
    else:
        assert not replay and not forget, f"scope {scope} must not see Replay or Forget"
    browser.assert_clean()


def overview_matches(browser, status):
    want = {"users": status["users"], "openEpisodes": status["openEpisodes"],
            "pendingReminders": status["pendingReminders"], "deadLetters": status["deadLetters"],
            "delivered": status["delivered"], "failed": status["failed"], "quarantined": status["quarantined"],
            "suppressed": status["suppressed"]}
    for sink in status["sinks"]:
        for key in ("pending", "delivered", "failed"):
            want[f"sinks.{sink['name']}.{key}"] = sink[key]
    shown = {path: text for path, (text, _) in browser.fields().items()}
    mismatches = {path: (shown.get(path), str(value)) for path, value in want.items() if shown.get(path) != str(value)}
    if status["nextReminderAt"] != (shown.get("nextReminderAt") if shown.get("nextReminderAt") != "—" else None):
        mismatches["nextReminderAt"] = (shown.get("nextReminderAt"), status["nextReminderAt"])
    return mismatches


def test_overview_figures_equal_the_status_answer(daemon, browser):
    """Each data-field figure of the overview is the /v1/status value fetched with the same token."""
    browser.signed_in(daemon.tokens["read"])
    assert browser.find('[aria-current="page"][href="#/overview"]')
    mismatches = {}

    def equal():
        mismatches.clear()
        mismatches.update(overview_matches(browser, daemon.get("/v1/status", scope="read")))
        return not mismatches

    try:
        browser.wait(equal, "the overview shows /v1/status", timeout=12)
    except AssertionError:
        raise AssertionError(f"overview differs from /v1/status (shown, API): {mismatches}") from None
    status = daemon.get("/v1/status", scope="read")
    assert status["deadLetters"] > 0 and status["pendingReminders"] > 0, "the fixture should make both non-zero"
    assert {sink["name"] for sink in status["sinks"]} == {"file", "broken", "mail"}
    browser.assert_clean()


def test_overview_shows_a_new_report_within_the_refresh(daemon, browser):
    """A user reported after the page loaded is counted within one 5 s refresh."""
    browser.signed_in(daemon.tokens["admin"])
    browser.wait(lambda: browser.field("users") not in (None, ""), "the users figure appears")
    before = int(browser.field("users"))
    assert before == daemon.get("/v1/status")["users"]
    daemon.report(f"new-{secrets.token_hex(4)}")
    browser.wait(lambda: browser.field("users") == str(before + 1), f"users goes from {before} to {before + 1}",
                 timeout=12)
    browser.assert_clean()


def test_outcomes_figures_equal_the_stats_answer(daemon, browser):
    """Per group: episodes, resolved, open, rate and its interval as /v1/stats gives them."""
    browser.signed_in(daemon.tokens["read"], "#/outcomes")
    browser.wait(lambda: browser.find("svg.chart"), "the outcomes chart appears")
    assert browser.find('[aria-current="page"][href="#/outcomes"]')
    select = browser.find("#window")[0]
    assert select.get_attribute("value") == "30"
    since, until = browser.field("since"), browser.field("until")
    stats = daemon.get(f"/v1/stats?since={since}&until={until}", scope="read")
    assert stats["groups"], "the fixture should open episodes"
    assert sum(g["resolved"] for g in stats["groups"]) > 0, "the fixture should resolve episodes"
    shown = browser.fields()
    for group in stats["groups"]:
        path = f"groups.{group['group']}"
        for key in ("episodes", "resolved", "open", "forgotten"):
            assert shown[f"{path}.{key}"][0] == str(group[key]), f"{path}.{key}"
        rate = group["resolutionRate"]
        text, value = shown[f"{path}.resolutionRate"]
        assert text == (f"{rate * 100:.1f}%" if rate is not None else "—"), f"{path}.resolutionRate"
        assert (float(value) if value is not None else None) == rate, f"{path}.resolutionRate data-value"
        p50 = group["timeToFixSeconds"]["p50"]
        text, value = shown[f"{path}.timeToFixSeconds.p50"]
        assert (float(value) if value is not None else None) == p50, f"{path}.timeToFixSeconds.p50 data-value"
        assert (text == "—") == (p50 is None), f"{path}.timeToFixSeconds.p50 text {text!r}"
        for bucket, resolved in group["resolvedAfterReminders"].items():
            assert shown[f"{path}.resolvedAfterReminders.{bucket}"][0] == str(resolved)
    for group, uplift in stats["upliftVsHoldout"].items():
        assert float(shown[f"upliftVsHoldout.{group}"][1]) == uplift
    for reason, counts in stats["byReason"].items():
        assert shown[f"byReason.{reason}.episodes"][0] == str(counts["episodes"])
        assert shown[f"byReason.{reason}.resolved"][0] == str(counts["resolved"])
    # The funnel: each step's count and rate, per group, reason and platform, as /v1/stats.
    funnel = stats["funnel"]
    assert funnel["default"]["accepted"]["count"] > 0, "the fixture should accept asks"
    steps = ["episodes", "reminded", "opened", "asked", "shown", "accepted", "resolved"]
    checked = 0
    for prefix, entries in [("", {k: v for k, v in funnel.items() if k not in ("byReason", "byPlatform")}),
                            ("byReason.", funnel["byReason"]), ("byPlatform.", funnel["byPlatform"])]:
        for name, steps_of in entries.items():
            for step in steps:
                path = f"funnel.{prefix}{name}.{step}"
                assert shown[f"{path}.count"][0] == str(steps_of[step]["count"]), path
                if step != "episodes":
                    value = shown[f"{path}.rate"][1]
                    assert (float(value) if value is not None else None) == steps_of[step]["rate"], f"{path}.rate"
                checked += 1
    assert checked >= 7 * 4, "groups, a reason and two platforms"
    assert {"ios", "android"} <= set(funnel["byPlatform"]), funnel["byPlatform"].keys()
    for name in (k for k in funnel if k not in ("byReason", "byPlatform")):
        assert browser.find(f'figure[data-funnel="{name}"] svg.funnel-chart'), f"a funnel chart for {name}"
    # The channels: with no push sink every reminded episode took the fallback.
    assert stats["byChannel"]["fallback"]["episodes"] > 0 and stats["byChannel"]["push"]["episodes"] == 0
    for name, split in stats["byChannel"].items():
        assert shown[f"byChannel.{name}.episodes"][0] == str(split["episodes"]), name
        assert shown[f"byChannel.{name}.resolved"][0] == str(split["resolved"]), name
        value = shown[f"byChannel.{name}.resolutionRate"][1]
        assert (float(value) if value is not None else None) == split["resolutionRate"], name
    # Always kept: episodes by opening, and each horizon's gains and share, overall and by platform.
    for name, split in stats["byOpening"].items():
        assert shown[f"byOpening.{name}.episodes"][0] == str(split["episodes"]), name
        assert shown[f"byOpening.{name}.resolved"][0] == str(split["resolved"]), name
    kept = stats["alwaysKept"]
    assert kept["7"]["users"] == 2 and kept["7"]["kept"] == 1, kept
    for prefix, shares in [("alwaysKept.", kept)] + [(f"alwaysKept.byPlatform.{p}.", k) for p, k in kept["byPlatform"].items()]:
        for n in ("7", "30", "90"):
            assert shown[f"{prefix}{n}.users"][0] == str(shares[n]["users"]), f"{prefix}{n}"
            value = shown[f"{prefix}{n}.rate"][1]
            assert (float(value) if value is not None else None) == shares[n]["rate"], f"{prefix}{n}.rate"
    for name, split in stats["resolvedAfterAsk"].items():
        for side in ("accepted", "notAccepted"):
            assert shown[f"resolvedAfterAsk.{name}.{side}.episodes"][0] == str(split[side]["episodes"])
            assert shown[f"resolvedAfterAsk.{name}.{side}.resolved"][0] == str(split[side]["resolved"])
    bars = browser.find("svg.chart:not(.funnel-chart) rect.bar")
    assert len(bars) == sum(1 for g in stats["groups"] if g["resolutionRate"] is not None)

    # Another window asks the API again.
    browser.driver.execute_script(
        "const s = document.getElementById('window'); s.value = '7'; s.dispatchEvent(new Event('change'));"
    )
    browser.wait(lambda: browser.field("since") != since, "the 7-day window loads")
    since7, until7 = browser.field("since"), browser.field("until")
    delta = datetime.datetime.fromisoformat(until7.replace("Z", "+00:00")) - \
        datetime.datetime.fromisoformat(since7.replace("Z", "+00:00"))
    assert delta == datetime.timedelta(days=7)
    browser.assert_clean()


def test_dead_letters_replay_for_admin(daemon, browser):
    """Replay sends one dead letter back (the answer says replayed 1); a read token has no buttons."""
    browser.signed_in(daemon.tokens["admin"], "#/dead-letters")
    assert browser.find('[aria-current="page"][href="#/dead-letters"]')
    listed = daemon.get("/v1/dead-letters")["deadLetters"]
    assert listed, "the failing exec sink should have dead letters"
    browser.wait(lambda: browser.field("deadLetters.length") == str(len(listed)), "every dead letter is listed")
    rows = browser.find("tbody tr")
    assert len(rows) == len(listed)
    assert listed[0]["lastError"] in rows[0].text
    browser.find("button.replay")[0].click()
    browser.wait(lambda: browser.field("replayed") is not None, "the replay answer is shown")
    assert browser.field("replayed") == "1"
    assert "replayed 1" in browser.text("[role=status]:not([hidden])")
    browser.screenshot("dead-letters")
    browser.assert_clean()

    reader = Browser(daemon.base)
    try:
        reader.signed_in(daemon.tokens["read"], "#/dead-letters")
        reader.wait(lambda: reader.field("deadLetters.length") not in (None, "0"), "dead letters are listed")
        assert not reader.find("button.replay") and not reader.find("button.replay-all")
        reader.assert_clean()
    finally:
        reader.quit()


def test_user_page_shows_the_explanation(daemon, browser):
    """The user page lists the reasons /v1/users/{id}/explain gives, and its status and history."""
    user = "late-6"
    browser.signed_in(daemon.tokens["read"], f"#/users/{user}")
    browser.wait(lambda: browser.find(".reasons li"), "the explanation appears")
    explanation = daemon.get(f"/v1/users/{user}/explain", scope="read")
    shown = [e.text for e in browser.find(".reasons .reason-text")]
    assert shown == [reason["text"] for reason in explanation["reasons"]]
    assert [e.get_attribute("data-code") for e in browser.find(".reasons li")] == \
        [reason["code"] for reason in explanation["reasons"]]
    status = daemon.get(f"/v1/users/{user}", scope="read")
    assert browser.field("permissions.location") == status["permissions"]["location"]
    assert browser.field("locale") == status["locale"]
    assert browser.field("reportCount") == str(status["reportCount"])
    history = daemon.get(f"/v1/users/{user}/history?limit=50", scope="read")
    assert len(browser.find(".timeline > li")) == len(history["entries"]) + len(history["engagement"])
    assert browser.find('[aria-current="page"][href="#/users"]')

    # An unknown ID, through the lookup form.
    box = browser.find("#user-id")[0]
    box.clear()
    box.send_keys("nobody-here")
    browser.find("form[role=search] button")[0].click()
    browser.wait(lambda: browser.field("notFound"), "an unknown user is reported")
    assert "No such user" in browser.field("notFound")
    browser.assert_clean(expected_statuses=(401, 404))


def test_user_page_shows_the_last_reported_platform_and_app_version(daemon, browser):
    """The status shows the platform and app version of the user's last report."""
    browser.signed_in(daemon.tokens["read"], "#/users/late-8")
    browser.wait(lambda: browser.field("platform") is not None, "the status appears")
    status = daemon.get("/v1/users/late-8", scope="read")
    assert status.get("platform") == "iOS 18.1", f"GET /v1/users/late-8 has no platform: {sorted(status)}"
    assert status.get("appVersion") == "4.2.0", f"GET /v1/users/late-8 has no appVersion: {sorted(status)}"
    assert browser.field("platform") == "iOS 18.1"
    assert browser.field("appVersion") == "4.2.0"
    browser.assert_clean()


def test_user_page_shows_asks_and_engagement(daemon, browser):
    """An open episode's asks and what the app reported, in the status and in the timeline."""
    user, status = next(
        (f"late-{i}", s) for i in range(1, 37)
        for s in [daemon.get(f"/v1/users/late-{i}", scope="read")]
        if s["episode"] and s["episode"]["asksShown"] and s["episode"]["opened"])
    browser.signed_in(daemon.tokens["read"], f"#/users/{user}")
    browser.wait(lambda: browser.find(".timeline li.engagement"), "the engagement appears in the timeline")
    for key in ("opened", "asks", "asksShown", "asksAccepted"):
        assert browser.field(f"episode.{key}") == str(status["episode"][key]), key
    history = daemon.get(f"/v1/users/{user}/history?limit=50", scope="read")
    shown = [e.get_attribute("data-engagement") for e in browser.find(".timeline li.engagement")]
    assert shown == [item["type"] for item in history["engagement"]]
    assert {"asked", "askShown", "reminderOpened"} <= set(shown)
    browser.assert_clean()


def test_reminders_list_and_due_before_filter(daemon, browser):
    """The reminders page lists /v1/reminders; the due-before filter asks the API with it."""
    browser.signed_in(daemon.tokens["read"], "#/reminders")
    pending = daemon.get("/v1/reminders?limit=100", scope="read")["reminders"]
    assert pending, "the fixture should leave reminders pending"
    browser.wait(lambda: browser.field("reminders.length") == str(len(pending)), "every pending reminder is listed")
    links = [a.text for a in browser.find("tbody a")]
    assert links == [r["userID"] for r in pending]
    # Half an hour from now, in the browser's local time: the fresh users' reminders are later.
    browser.driver.execute_script(
        "const d = new Date(Date.now() + 1800e3); d.setMinutes(d.getMinutes() - d.getTimezoneOffset());"
        "document.getElementById('due-before').value = d.toISOString().slice(0, 16);"
    )
    browser.find("form.inline button[type=submit]")[0].click()
    soon = daemon.get(f"/v1/reminders?limit=100&dueBefore={now_iso(1800)}", scope="read")["reminders"]
    browser.wait(lambda: browser.field("reminders.length") == str(len(soon)), "the filter applies")
    assert len(soon) < len(pending)
    browser.find("form.inline button.secondary")[0].click()
    browser.wait(lambda: browser.field("reminders.length") == str(len(pending)), "clearing the filter lists all")
    browser.find("tbody a")[0].click()
    browser.wait(lambda: browser.find(".reasons li"), "a user link opens the user page")
    assert browser.text("#page-title") == f"User {pending[0]['userID']}"
    browser.assert_clean()


def test_forget_needs_the_typed_id(daemon, browser):
    """Forget is enabled only once the exact ID is typed, then the user is gone from the API."""
    user = "forget-me"
    daemon.report(user)
    browser.signed_in(daemon.tokens["admin"], f"#/users/{user}")
    browser.wait(lambda: browser.find("button.forget"), "the Forget button appears")
    browser.find("button.forget")[0].click()
    confirm = browser.find("form.confirm button[type=submit]")[0]
    box = browser.find("#forget-confirm")[0]
    assert not confirm.is_enabled()
    box.send_keys(user[:-1])
    assert not confirm.is_enabled()
    box.send_keys(user[-1])
    assert confirm.is_enabled()
    confirm.click()
    browser.wait(lambda: browser.field("forgotten"), "the page says the user was forgotten")
    assert daemon.request("GET", f"/v1/users/{user}")[0] == 404
    browser.assert_clean()


def test_wrong_token_brings_the_form_back_with_an_error(daemon, browser):
    """A refused token shows the form again with a visible alert; a good one then signs in."""
    browser.open()
    browser.sign_in("not-a-valid-token-at-all")
    browser.wait(lambda: browser.find("#login-error:not([hidden])"), "the form shows an error")
    alert = browser.find("#login-error")[0]
    assert alert.is_displayed() and alert.get_attribute("role") == "alert" and alert.text
    assert browser.find("#token"), "the form is back"
    assert browser.driver.execute_script("return sessionStorage.length") == 0, "a refused token is not kept"
    browser.sign_in(daemon.tokens["read"])
    browser.wait(lambda: browser.field("whoami.name") == "viewer", "a good token signs in")
    # A token refused later (here: replaced behind the page's back) brings the form back at
    # the overview's next refresh.
    browser.driver.execute_script("sessionStorage.setItem('remindd.token', 'revoked-token-revoked-token')")
    browser.wait(lambda: browser.find("#login-error:not([hidden])"), "a later 401 shows the form", timeout=12)
    assert not browser.find("#nav a"), "the navigation is gone with the credentials"
    browser.sign_in(daemon.tokens["read"])
    browser.wait(lambda: browser.field("whoami.name") == "viewer", "signing in again works")
    # Sign out clears the session.
    browser.find("#who button")[0].click()
    browser.wait(lambda: browser.find("#token"), "signing out shows the form")
    assert browser.driver.execute_script("return sessionStorage.length") == 0
    browser.assert_clean()


def test_every_page_renders_and_screenshots(daemon, browser):
    """Every page loads without an alert or console error; the screenshots are kept as artifacts."""
    browser.open()
    browser.wait(lambda: browser.find("#token"), "the token form appears")
    browser.screenshot("sign-in")
    browser.signed_in(daemon.tokens["admin"])
    pages = [("overview", "#/overview"), ("outcomes", "#/outcomes"), ("reminders", "#/reminders"),
             ("dead-letters", "#/dead-letters"), ("users", "#/users"), ("user", "#/users/late-7"),
             ("config", "#/config")]
    for name, route in pages:
        browser.go(route)
        browser.wait(lambda: browser.driver.execute_script("return location.hash") == route, f"{route} is current")
        browser.wait_page()
        if name == "user":
            browser.wait(lambda: browser.find(".timeline li"), "the history appears")
        assert not browser.find("main [role=alert]"), f"{name}: {browser.text('main [role=alert]')}"
        current = browser.find('nav [aria-current="page"]')
        assert len(current) == 1
        unlabelled = browser.driver.execute_script(
            "return [...document.querySelectorAll('input, select, textarea')]"
            ".filter(e => e.type !== 'hidden' && e.labels.length === 0).map(e => e.outerHTML)"
            ".concat([...document.querySelectorAll('button')].filter(b => !b.textContent.trim()).map(b => b.outerHTML))"
        )
        assert not unlabelled, f"{name}: controls without a label: {unlabelled}"
        assert browser.find("main h1"), f"{name} has no heading"
        browser.screenshot(name)
    reminders = daemon.get("/v1/reminders?limit=100")["reminders"]
    browser.go("#/reminders")
    browser.wait(lambda: browser.field("reminders.length") == str(len(reminders)), "every pending reminder is listed")
    config = daemon.get("/v1/config")
    browser.go("#/config")
    browser.wait(lambda: browser.find("pre.config"), "the configuration appears")
    assert json.loads(browser.find("pre.config")[0].text) == config
    for token in daemon.tokens.values():
        assert token not in browser.driver.page_source
    # The README's pictures are refreshed on request only, so a test run leaves the tree clean.
    if os.environ.get("CONSOLE_UPDATE_DOCS_IMAGES") == "1":
        docs = REPO / "docs" / "images"
        docs.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ARTIFACTS / "overview.png", docs / "console-overview.png")
        shutil.copyfile(ARTIFACTS / "outcomes.png", docs / "console-outcomes.png")
    browser.assert_clean()


def test_keyboard_follows_a_navigation_link(daemon, browser):
    """Tab reaches the navigation's links, Enter follows one, and focus moves to the page."""
    browser.signed_in(daemon.tokens["read"])
    keys = webdriver.ActionChains(browser.driver)
    visited = []
    for _ in range(12):
        keys.send_keys(Keys.TAB).perform()
        focused = browser.driver.switch_to.active_element
        if focused.tag_name == "a" and focused.get_attribute("data-page"):
            visited.append(focused.get_attribute("data-page"))
        if focused.get_attribute("data-page") == "outcomes":
            break
    assert "outcomes" in visited, f"Tab reached only {visited}"
    keys.send_keys(Keys.ENTER).perform()
    browser.wait(lambda: browser.driver.execute_script("return location.hash") == "#/outcomes", "Enter follows the link")
    browser.wait(lambda: browser.find('[aria-current="page"][href="#/outcomes"]'), "the link is marked current")
    assert browser.driver.switch_to.active_element.tag_name == "main", "focus moves to the new page"
    browser.wait(lambda: browser.find("svg.chart"), "the outcomes page loads")
    browser.assert_clean()


def test_first_load_size_and_time(daemon, browser):
    """Measures the first load: bytes of HTML and assets, and time until the users figure shows."""
    driver = browser.driver
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    # Records when the users figure first has text, from the document's own clock.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        new MutationObserver((_, observer) => {
            const e = document.querySelector('[data-field="users"]');
            if (e && e.textContent) { window.__usersShownAt = performance.now(); observer.disconnect(); }
        }).observe(document, {subtree: true, childList: true, characterData: true});
    """})
    browser.open()
    browser.wait(lambda: browser.find("#token"), "the token form appears")
    driver.execute_script("sessionStorage.setItem('remindd.token', arguments[0])", daemon.tokens["read"])
    driver.refresh()
    browser.wait(lambda: browser.field("users") not in (None, ""), "the users figure appears")
    shown_at = driver.execute_script("return window.__usersShownAt ?? performance.now()")
    entries = driver.execute_script(
        "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
        ".map(e => ({name: e.name, transfer: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize}))"
    )
    assets = [e for e in entries if "/ui/" in e["name"]]
    transferred = sum(e["transfer"] for e in assets)
    bodies = sum(e["decoded"] for e in assets)
    on_disk = sum(f.stat().st_size for f in CONSOLE_FILES.iterdir() if f.is_file())
    report = (
        f"console first load: {len(assets)} files from /ui/, {bodies} bytes of bodies "
        f"({transferred} bytes transferred with headers; all files in the binary: {on_disk} bytes); "
        f"users figure shown {shown_at:.0f} ms after navigation start\n"
        + "".join(f"  {e['name']} {e['decoded']} bytes\n" for e in assets)
    )
    print(report)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "first-load.txt").write_text(report)
    assert bodies < 80_000, "the console should stay small"
    assert {Path(e["name"].split("#")[0]).name for e in assets} >= {"app.js", "console.css", "api.js"}
    browser.assert_clean()


def test_console_response_headers(daemon):
    """CSP, nosniff and no-referrer on the page and its assets; assets have an ETag that gives 304."""
    for path, content_type in [("/ui/", "text/html"), ("/ui/app.js", "text/javascript"),
                               ("/ui/console.css", "text/css"), ("/ui/icon.svg", "image/svg+xml")]:
        # No token: the pages hold no data.
        status, headers, body = daemon.request("GET", path, scope=None)
        assert status == 200, f"GET {path}: {status}"
        assert headers.get("Content-Type", "").startswith(content_type), f"{path}: {headers.get('Content-Type')}"
        assert headers.get("Content-Security-Policy") == CSP, f"{path}: CSP {headers.get('Content-Security-Policy')!r}"
        assert headers.get("X-Content-Type-Options") == "nosniff", path
        assert headers.get("Referrer-Policy") == "no-referrer", path
        name = "index.html" if path == "/ui/" else path.removeprefix("/ui/")
        assert body == (CONSOLE_FILES / name).read_bytes(), f"{path} serves {name}"
        if path != "/ui/":
            etag = headers.get("ETag")
            assert etag, f"{path} has no ETag"
            status, again, _ = daemon.request("GET", path, scope=None, headers={"If-None-Match": etag})
            assert status == 304, f"{path} with If-None-Match: {status}"
            assert again.get("ETag") == etag
    status, headers, _ = daemon.request("GET", "/ui/no-such-file.js", scope=None)
    assert status == 404
    # The API itself still needs a token.
    assert daemon.request("GET", "/v1/status", scope=None)[0] == 401
    status, _, _ = daemon.request("POST", "/v1/dead-letters/replay", {}, scope="read")
    assert status == 403
