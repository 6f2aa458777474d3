"""schemathesis hooks for scripts/fuzz-api.sh: the bulk route's NDJSON.

The request schema of `POST /v1/reports` is each line's, so a generated value goes on the wire
as one line. The answer is NDJSON too, which schemathesis does not read: `ndjson_answer_lines`
checks that it has one line per request line, numbered in order, each valid against the
document's `BulkReportAnswer`.
"""
import json

import jsonschema_rs
import schemathesis

BULK_PATH = "/v1/reports"


@schemathesis.serializer("application/x-ndjson")
def ndjson_line(ctx, value):
    if isinstance(value, bytes):
        return {"data": value}
    return {"data": (json.dumps(value) + "\n").encode()}


@schemathesis.check
def ndjson_answer_lines(ctx, response, case):
    if case.operation.path != BULK_PATH or response.status_code != 200:
        return None
    # Header names come as the server sent them or in lower case, depending on the transport.
    media = next((value for name, value in response.headers.items() if name.lower() == "content-type"), "")
    media = (media[0] if isinstance(media, list) else media).split(";")[0].strip()
    if media != "application/x-ndjson":
        raise AssertionError(f"a 200 of {BULK_PATH} is {media!r}, not application/x-ndjson")
    sent = case.body if isinstance(case.body, bytes) else (json.dumps(case.body) + "\n").encode()
    expected = sum(1 for line in sent.split(b"\n") if line.strip(b" \t\r"))
    lines = [line for line in response.content.decode().split("\n") if line.strip()]
    if len(lines) != expected:
        raise AssertionError(f"{expected} request lines were answered with {len(lines)} lines")
    raw = case.operation.schema.raw_schema
    schema = {"$ref": "#/components/schemas/BulkReportAnswer", "components": raw["components"]}
    validator = jsonschema_rs.Draft202012Validator(schema)
    for number, line in enumerate(lines, 1):
        answer = json.loads(line)
        if answer.get("line") != number:
            raise AssertionError(f"answer line {number} says line {answer.get('line')}")
        errors = [error.message for error in validator.iter_errors(answer)]
        if errors:
            raise AssertionError(f"answer line {number} does not match BulkReportAnswer: {errors[0]}")
    return None
