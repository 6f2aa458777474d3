#!/usr/bin/env bash
# Runs the whole suite and ends with one plain summary line ("tests: N passed, N failed"),
# because `swift test` prints XCTest's "Executed 0 tests" after Swift Testing's real count.
#
# Without arguments the suite runs in six passes: everything else in parallel; then, one at a
# time, the suites that measure the daemon under a load of their own (the crash under 64
# clients, API latency with journald stopped, 2,000 idle connections), whose bounds would
# otherwise measure how busy the rest of the suite keeps two cores, and whose load would starve
# tests that have timeouts; then the end-to-end tests again against a state directory in two
# parts (REMINDD_TEST_STORAGE=parts, storage.parts 2) with the crash under load, and against
# PostgreSQL (REMINDD_TEST_STORAGE=postgres: each daemon on a database of its own) with its
# measuring suites one at a time. Tests of a single store's files skip in both.
# With arguments (a --filter, say) it is one pass with those arguments.
set -uo pipefail
log=$(mktemp)
# One PostgreSQL server for the whole run (the store's contract tests and the end-to-end pass
# on PostgreSQL each make databases of their own on it), stopped by its PID at the end.
pg_dir=$("$(dirname "$0")/pg-test-server.sh" start)
export REMINDD_TEST_PG_DIR="$pg_dir"
trap 'rm -f "$log"; "$(dirname "$0")/pg-test-server.sh" stop "$pg_dir"' EXIT
# At most four tests at a time: end-to-end tests each start a daemon (and on PostgreSQL share
# one server), and with every test on a thread of its own (the .ownThread trait) an unbounded
# run put 30 daemons on two cores at once, past the database's 5 s answer time. Four keeps the
# run as short as unbounded (measured: 94 s for the PostgreSQL pass either way).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=4
measuring="JournaldStallEndToEndTests|ConnectionLimitsEndToEndTests"
heavy="CrashUnderLoadTests|$measuring"
# What runs against the real binary (or a real daemon, for remindctl), on every backend.
backend_pass="RemindDaemonTests|RemindctlTests"
status=0
# One `swift test` run, its output added to the log; a failure fails the whole run.
pass() {
    swift test --skip-build "$@" 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}
if [ $# -eq 0 ]; then
    pass --skip "$heavy"
    pass --no-parallel --filter "$heavy"
    REMINDD_TEST_STORAGE=parts pass --filter "$backend_pass" --skip "$heavy|PostgresEndToEndTests"
    REMINDD_TEST_STORAGE=parts pass --no-parallel --filter CrashUnderLoadTests
    # PostgresEndToEndTests configure PostgreSQL themselves and ran in the first pass already;
    # their 2,000-user runs would load the server every other test of this pass shares.
    REMINDD_TEST_STORAGE=postgres pass --filter "$backend_pass" --skip "$heavy|PostgresEndToEndTests"
    REMINDD_TEST_STORAGE=postgres pass --no-parallel --filter "$measuring"
else
    pass "$@"
fi
total=0
for count in $(grep -Eo 'Test run with [0-9]+ tests?' "$log" | grep -Eo '[0-9]+'); do
    total=$((total + count))
done
failed=$(grep -E '^✘ Test .* failed after' "$log" | grep -vc '^✘ Test run with' || true)
echo "tests: $((total - failed)) passed, ${failed} failed"
exit "$status"
