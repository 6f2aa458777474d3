#!/usr/bin/env bash
# Runs the whole suite and ends with one plain summary line ("tests: N passed, N failed"),
# because `swift test` prints XCTest's "Executed 0 tests" after Swift Testing's real count.
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
total=$(grep -Eo 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
failed=$(grep -E '^✘ Test .* failed after' "$log" | grep -vc '^✘ Test run with' || true)
echo "tests: $((total - failed)) passed, ${failed} failed"
exit "$status"
