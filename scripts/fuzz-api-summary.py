"""Counts what a schemathesis run did, from its NDJSON report (scripts/fuzz-api.sh).

Prints "N requests, S server errors, V schema violations, O other failures": requests are the
HTTP exchanges recorded, server errors the 5xx answers (and failed not_a_server_error checks),
schema violations the failed response_schema_conformance checks, other failures every other
failed check (status code or content type not in the document) plus exchanges that got no
answer at all (the daemon closed the connection or crashed).
"""

import json
import sys

requests = server_errors = schema_violations = other = 0
failed_checks = {}
with open(sys.argv[1], encoding="utf-8") as report:
    for line in report:
        event = json.loads(line)
        finished = event.get("ScenarioFinished")
        if not finished:
            continue
        recorder = finished.get("recorder") or {}
        for interaction in (recorder.get("interactions") or {}).values():
            requests += 1
            response = interaction.get("response")
            if response is None:
                other += 1
            elif response.get("status_code", 0) >= 500:
                server_errors += 1
        for checks in (recorder.get("checks") or {}).values():
            for check in checks:
                if check.get("status") != "failure":
                    continue
                name = check.get("name")
                failed_checks[name] = failed_checks.get(name, 0) + 1
                if name == "response_schema_conformance":
                    schema_violations += 1
                elif name != "not_a_server_error":
                    other += 1

server_errors = max(server_errors, failed_checks.get("not_a_server_error", 0))
print(f"{requests} requests, {server_errors} server errors, {schema_violations} schema violations, "
      f"{other} other failures")
for name, count in sorted(failed_checks.items()):
    print(f"fuzz-api:   failed check {name}: {count}", file=sys.stderr)
