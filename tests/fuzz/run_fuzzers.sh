#!/usr/bin/env bash
# Builds the importer fuzz targets with clang (libFuzzer + ASan + UBSan) and runs each for a bounded
# time on the seed corpus in tests/fuzz/seeds (hostile inputs and small cuts of real files; see its
# README). Fails on any crash, hang, sanitizer report, or a temporary file left behind; prints each
# target's executions per second.
# A fixed -seed makes a CI run repeatable: the same mutations in the same order, as far as time allows.
# Usage: run_fuzzers.sh SOURCE_DIR BUILD_DIR [SECONDS_PER_TARGET]
set -euo pipefail
src=$1 build=$2 seconds=${3:-60}
seeds=$src/tests/fuzz/seeds
CC=clang CXX=clang++ cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTRACELIGHT_BUILD_GUI=OFF -DTRACELIGHT_BUILD_TESTS=OFF -DTRACELIGHT_BUILD_FUZZ=ON >/dev/null
cmake --build "$build" --target fuzz_targets >/dev/null
targets=(events_csv events_jsonl otlp_json otlp_protobuf jaeger_json zipkin_json spans_csv auto otlp_receive)
corpus=$build/corpus
rm -rf "$corpus" "$build/artifacts" && mkdir -p "$build/artifacts"
for target in "${targets[@]}"; do mkdir -p "$corpus/$target"; done
cp "$seeds"/*.csv "$corpus/events_csv/"
cp "$seeds"/*.jsonl "$corpus/events_jsonl/"
# The receiver's decoding: each OTLP seed behind its first byte, which chooses the encoding (0: protobuf, 1: JSON).
for f in "$seeds/otlp_protobuf"/*; do [ -f "$f" ] && { printf '\x00'; cat "$f"; } >"$corpus/otlp_receive/pb-$(basename "$f")"; done
for f in "$seeds/otlp_json"/*; do [ -f "$f" ] && { printf '\x01'; cat "$f"; } >"$corpus/otlp_receive/json-$(basename "$f")"; done
for f in "$seeds/otlp_json"/*; do [ -f "$f" ] && { printf '\x03'; gzip -c "$f"; } >"$corpus/otlp_receive/gz-$(basename "$f")"; done
for target in "${targets[@]}"; do
    [ "$target" = otlp_receive ] && continue  # its seeds are made above; auto does not read requests
    [ -d "$seeds/$target" ] && cp "$seeds/$target"/* "$corpus/$target/"
    # auto detects the format itself: every seed, under its target's name (names repeat across targets).
    for f in "$seeds"/*.* "$seeds/$target"/*; do [ -f "$f" ] && cp "$f" "$corpus/auto/$target-$(basename "$f")"; done
done
# The harness must leave no file behind: it gets a temporary directory of its own, which must stay empty.
# (It feeds the importer through an in-memory file; a real temporary file only where memfd is missing.)
tmp=$build/tmp
rm -rf "$tmp" && mkdir -p "$tmp"
# A UBSan report is a failure too (by default UBSan prints and carries on, and libFuzzer with it).
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$src/tests/sanitizers/ubsan.supp${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
status=0
rm -f "$build/summary.txt"  # the lines below, kept for a passing run (CTest shows output only on failure)
TIMEFORMAT='%3U %3S'  # the target's own CPU time: on a busy machine wall-clock exec/s says little
# -entropic=0: with entropic scheduling (libFuzzer's default) half the CPU went to its bookkeeping
# (InputCorpus::UpdateFeatureFrequency, perf on fuzz_auto), which halved the inputs tried per second.
for target in "${targets[@]}"; do
    log=$build/fuzz_$target.log
    if cpu=$( { time TMPDIR=$tmp "$build/tests/fuzz/fuzz_$target" "$corpus/$target" -max_total_time="$seconds" -timeout=10 -seed=1 -entropic=0 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" >"$log" 2>&1; } 2>&1 ); then
        runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
        rate=$(grep -m1 -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$')
        per_cpu=$(echo "$cpu" | awk -v runs="$runs" '{ t = $1 + $2; printf "%d", (t > 0 ? runs / t : 0) }')
        imported=$(grep -m1 -o '[0-9]* of [0-9]* inputs imported' "$log" || true)
        echo "fuzz_$target: $runs runs in ${seconds}s: $rate exec/s, $per_cpu per CPU second, $imported; no crash" \
            | tee -a "$build/summary.txt"
    else
        echo "fuzz_$target: FAILED (log: $log)"; tail -40 "$log"; status=1
    fi
done
left=$(ls -A "$tmp")
if [ -n "$left" ]; then
    echo "fuzz harness left files behind:"; echo "$left"; status=1
fi
exit $status
