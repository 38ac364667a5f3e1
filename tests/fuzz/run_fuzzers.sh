#!/usr/bin/env bash
# Builds the importer fuzz targets with clang (libFuzzer + ASan + UBSan) and runs each for a bounded
# time on a seed corpus of real and hand-made files. Fails on any crash or sanitizer report.
# Usage: run_fuzzers.sh SOURCE_DIR BUILD_DIR [SECONDS_PER_TARGET]
set -euo pipefail
src=$1 build=$2 seconds=${3:-15}
shared=$(cd "$src/.." && pwd)/shared/realdata
CC=clang CXX=clang++ cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTRACELIGHT_BUILD_GUI=OFF -DTRACELIGHT_BUILD_TESTS=OFF -DTRACELIGHT_BUILD_FUZZ=ON >/dev/null
cmake --build "$build" --target fuzz_targets >/dev/null
corpus=$build/corpus
rm -rf "$corpus" && mkdir -p "$corpus"/{events_csv,events_jsonl,otlp_json,jaeger_json,zipkin_json,spans_csv,auto}
cp "$src"/tests/fuzz/seeds/*.csv "$corpus/events_csv/"
cp "$src"/tests/fuzz/seeds/*.jsonl "$corpus/events_jsonl/"
if [ -d "$shared" ]; then
    cp "$shared"/otlp/* "$corpus/otlp_json/"
    cp "$shared"/jaeger/*.json "$corpus/jaeger_json/"
    for f in "$shared"/zipkin/*.json; do [ "$(stat -c %s "$f")" -lt 20000 ] && cp "$f" "$corpus/zipkin_json/"; done
    head -200 "$shared"/nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv > "$corpus/spans_csv/nezha.csv"
fi
cp "$src"/tests/fuzz/seeds/* "$corpus/auto/"
status=0
for target in events_csv events_jsonl otlp_json jaeger_json zipkin_json spans_csv auto; do
    log=$build/fuzz_$target.log
    if "$build/tests/fuzz/fuzz_$target" "$corpus/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1; then
        echo "fuzz_$target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') runs, no crash"
    else
        echo "fuzz_$target: FAILED"; tail -30 "$log"; status=1
    fi
done
exit $status
