#!/usr/bin/env bash
# Fuzzes RemindCore's decoders of hostile input (a report body, a user file, a user ID) with
# libFuzzer and AddressSanitizer for SECONDS (default 60), starting from the seed corpus in
# Fuzz/corpus/. Ends with one line: "fuzz-core: N runs in S s, C crashes"; exits non-zero on a
# crash, with the input that caused it saved under the build directory.
#
#   scripts/fuzz-core.sh [SECONDS]
#
# The target is Fuzz/FuzzCore.swift compiled into RemindCore itself by swiftc (RemindCore is
# pure Foundation, so it needs no package build); `swift build` cannot pass -sanitize=fuzzer to
# one target only. The binary is rebuilt only when a source is newer. Environment:
# FUZZ_BUILD_DIR (default .build/fuzz), SWIFTC (default swiftc on PATH, else /opt/swift).
set -euo pipefail
seconds=${1:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$top/.build/fuzz}
swiftc=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
binary=$build/remind-core-fuzz
mkdir -p "$build/corpus" "$build/artifacts"

mapfile -t sources < <(find "$top/Sources/RemindCore" "$top/Fuzz" -name '*.swift' | sort)
if [ ! -x "$binary" ] || [ -n "$(find "${sources[@]}" -newer "$binary" | head -1)" ]; then
    echo "fuzz-core: building $binary" >&2
    # -O: several times the runs per second of a debug build; -g keeps crash reports readable.
    # The linker's warnings about sanitizer symbols are noise: shown only when it fails.
    "$swiftc" -sanitize=fuzzer,address -parse-as-library -module-name RemindCore -package-name remindd -O -g \
        "${sources[@]}" -o "$binary.tmp" >"$build/build.log" 2>&1 || { cat "$build/build.log" >&2; exit 1; }
    mv "$binary.tmp" "$binary"
fi

log=$build/fuzz.log
status=0
# Swift's own crash backtracer runs under ASan and trips it; libFuzzer's report is enough.
export SWIFT_BACKTRACE=enable=no
# New inputs go to the build directory's corpus, never into the seeds in the repository.
# Leak detection is off: the Swift runtime's lazily filled caches look like leaks to it.
"$binary" "$build/corpus" "$top/Fuzz/corpus" -max_total_time="$seconds" -timeout=10 -max_len=16384 \
    -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$build/artifacts/" >"$log" 2>&1 || status=$?
runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
elapsed=$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -Eo '[0-9]+ second' | grep -Eo '[0-9]+' ||
    echo "$seconds")
crashes=0
if [ "$status" -ne 0 ]; then
    crashes=1
    grep -E 'ERROR|Fatal error|Test unit written|SUMMARY|^    #[0-9]+ ' "$log" | head -40 >&2
fi
echo "fuzz-core: $runs runs in $elapsed s, $crashes crashes (corpus $(find "$build/corpus" -type f | wc -l) inputs)"
exit "$status"
