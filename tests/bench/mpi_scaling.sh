#!/usr/bin/env bash
# Distributed analysis, 1 rank against 2 ranks, beside the bare SQLite C-API scan of the events table
# (BM_BareEventScan) measured in the same run, each analyse on its own copy of one database.
#   tests/bench/mpi_scaling.sh BUILD_DIR [REQUESTS]     (BUILD_DIR configured with -DTRACELIGHT_BUILD_BENCH=ON)
# Prints wall seconds and peak memory of each run (GNU time) and the ratios to the bare scan.
set -euo pipefail
build=$(cd "$1" && pwd) requests=${2:-200000}
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
"$build/samples/tracelight-sample" --requests "$requests" --seed 3 --out "$work/s.csv"
"$build/app/tracelight-cli" import --quiet --format events-csv --db "$work/a.tldb" "$work/s.csv"
for f in one two; do cp "$work/a.tldb" "$work/$f.tldb"; done
scan=$(TRACELIGHT_BENCH_DB="$work/a.tldb" "$build/tests/tracelight_bench" --benchmark_filter=BM_BareEventScan \
       --benchmark_format=json 2>/dev/null | python3 -c 'import json,sys; b=json.load(sys.stdin)["benchmarks"][0]; print(b["real_time"])')
timed() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }
read -r one oneKb < <(timed mpirun -np 1 "$build/app/tracelight-batch" analyze --quiet --threads 1 "$work/one.tldb")
read -r two twoKb < <(timed mpirun -np 2 --oversubscribe "$build/app/tracelight-batch" analyze --quiet --threads 1 "$work/two.tldb")
python3 - "$requests" "$scan" "$one" "$oneKb" "$two" "$twoKb" <<'PY'
import sys
n, scan, one, oneKb, two, twoKb = sys.argv[1], *map(float, sys.argv[2:])
print(f"{n} requests: bare event scan {scan:.2f} s")
print(f"  1 rank : {one:.2f} s ({one/scan:.1f}x the scan), {oneKb/1024:.0f} MiB")
print(f"  2 ranks: {two:.2f} s ({two/scan:.1f}x the scan), {twoKb/1024:.0f} MiB per rank; speed-up {one/two:.2f}x")
PY
