#!/usr/bin/env bash
# Fuzzes the HTTP API of the real remindd binary from openapi.yaml with schemathesis: every
# operation gets generated valid and invalid requests, and every answer is checked for a 5xx,
# a status code the document does not list, a content type it does not list, and a body its
# schema does not allow (and more, below). Ends with one line such as
# "fuzz-api: 3300 requests, 0 server errors, 0 schema violations, 0 other failures" and exits
# non-zero on any finding, or when the daemon died or did not stop cleanly.
#
#   scripts/fuzz-api.sh [REMINDD_BINARY] [EXAMPLES_PER_OPERATION]
#
# EXAMPLES_PER_OPERATION (default 200, or $FUZZ_API_EXAMPLES) caps the fuzzing phase's cases
# per operation; 200 gives about 3,000 requests in two minutes against a debug build. One
# worker (FUZZ_API_WORKERS): with two, one worker re-creates the user `u-42` that another has
# just deleted, and the use-after-free check reports a false positive.
# FUZZ_API_SEED (default 7) fixes the generated cases; FUZZ_API_CHECKS picks schemathesis
# checks (by default all, as schemathesis has them: `--checks all` would also turn on what
# fuzz-api.toml turns off for one route); FUZZ_API_KEEP=1 keeps the temp directory.
#
# The daemon runs on a temp state directory with a TCP listener on 127.0.0.1 and a free port
# (schemathesis speaks HTTP over TCP only), with a bearer token. schemathesis is installed in a
# virtualenv under .build (SCHEMATHESIS_VENV) at a pinned version, so a clean machine gets the
# same checks.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$(cd "$top" && swift build --show-bin-path)/remindd}
examples=${2:-${FUZZ_API_EXAMPLES:-200}}
version=4.32.5
venv=${SCHEMATHESIS_VENV:-$top/.build/schemathesis-venv}

[ -x "$binary" ] || { echo "fuzz-api: no remindd binary at $binary; run swift build first" >&2; exit 2; }
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$version"; then
    echo "fuzz-api: installing schemathesis $version in $venv" >&2
    python3 -m venv "$venv" ||
        { echo "fuzz-api: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2; exit 2; }
    "$venv/bin/pip" install -q "schemathesis==$version" ||
        { sleep 5; "$venv/bin/pip" install -q "schemathesis==$version"; }
fi

work=$(mktemp -d /tmp/remindd-fuzz-api-XXXXXX)
pid=
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        wait "$pid" 2>/dev/null || true
    fi
    [ -n "${FUZZ_API_KEEP:-}" ] && { echo "fuzz-api: kept $work" >&2; return; }
    rm -rf "$work"
}
trap cleanup EXIT

# A free port: bound by the kernel's choice, then released for the daemon to take.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
printf '%s\n' "$token" >"$work/token"
cat >"$work/remindd.json" <<EOF
{"listen":{"tcp":"127.0.0.1:$port","tokenFile":"$work/token"},
 "sinks":[{"type":"file","path":"$work/events.jsonl"}]}
EOF
# No NOTIFY_SOCKET and no journal: readiness is polled below, logs go to a file.
env -u NOTIFY_SOCKET -u LISTEN_FDS -u REMINDD_CONFIG "$binary" --config "$work/remindd.json" \
    --state-directory "$work/state" --socket "$work/r.sock" >"$work/remindd.log" 2>&1 &
pid=$!

# Ready once /v1/status answers 200 on the TCP port (bounded: 60 s).
url=http://127.0.0.1:$port
for _ in $(seq 600); do
    kill -0 "$pid" 2>/dev/null || { echo "fuzz-api: remindd exited at start:" >&2; cat "$work/remindd.log" >&2; exit 1; }
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$url/v1/status" || true)
    [ "$code" = 200 ] && break
    sleep 0.1
done
[ "$code" = 200 ] || { echo "fuzz-api: remindd did not answer on $url" >&2; exit 1; }

status=0
# Every check but positive_data_acceptance: the daemon rightly refuses some requests no schema
# can rule out (an observedAt more than 300 s ahead, a time zone that is not in the IANA
# database), and the document says so in words. The others: no 5xx; status codes, content
# types, headers and bodies as documented; invalid input refused; a deleted user gone; no
# answer without the token.
# Phases: examples (the document's own), coverage (boundary and invalid values for every
# parameter), fuzzing (EXAMPLES_PER_OPERATION random cases each), stateful (sequences).
# Run from the temp directory, without an example database, so that nothing is left in the
# repository and the seed alone decides the cases.
# The bulk route's NDJSON is read and written by scripts/fuzz_api_hooks.py, and
# scripts/fuzz-api.toml says why its negative cases are answered 200.
(cd "$work" && PYTHONPATH="$top/scripts" SCHEMATHESIS_HOOKS=fuzz_api_hooks \
    "$venv/bin/schemathesis" --config-file "$top/scripts/fuzz-api.toml" run "$top/openapi.yaml" --url "$url" \
    -H "Authorization: Bearer $token" \
    ${FUZZ_API_CHECKS:+--checks "$FUZZ_API_CHECKS"} --exclude-checks positive_data_acceptance \
    --max-examples "$examples" --workers "${FUZZ_API_WORKERS:-1}" --seed "${FUZZ_API_SEED:-7}" --no-color \
    --suppress-health-check too_slow,filter_too_much \
    --generation-database none \
    --report ndjson --report-ndjson-path "$work/events.ndjson") >"$work/schemathesis.log" 2>&1 || status=$?

# The daemon must still be there: a crash under fuzzing is the worst finding.
alive=yes
kill -0 "$pid" 2>/dev/null || alive=no
summary=$(python3 "$top/scripts/fuzz-api-summary.py" "$work/events.ndjson") || summary="no report from schemathesis"
if [ "$status" -ne 0 ] || [ "$alive" = no ] || [[ "$summary" != *" 0 server errors, 0 schema violations, 0 other"* ]]; then
    tail -n 80 "$work/schemathesis.log" >&2
    [ "$alive" = no ] && { echo "fuzz-api: remindd died during the run:" >&2; tail -n 30 "$work/remindd.log" >&2; }
    echo "fuzz-api: $summary (schemathesis exit $status, daemon alive: $alive)"
    exit 1
fi
kill "$pid"
wait "$pid" || { echo "fuzz-api: remindd did not exit cleanly on SIGTERM" >&2; exit 1; }
pid=
echo "fuzz-api: $summary"
