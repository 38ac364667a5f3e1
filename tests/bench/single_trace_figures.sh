#!/usr/bin/env bash
# The single-trace figures (issues 11 and 41), in one run: for generated Jaeger traces of 1,000 / 10,000 /
# 100,000 spans, the time and peak memory to parse the file with RapidJSON alone, to import it, analyse it
# and query its critical path (from the cache), the direct `critical-path FILE` from a cold cache (import,
# analysis and query in one command), and Jaeger UI's transform and criticalPathForTrace under node.
#   single_trace_figures.sh BUILD_DIR WORK_DIR [SPANS...]
set -euo pipefail
build=$(realpath "$1"); work=$2; shift 2
sizes=("${@:-1000 10000 100000}")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work" && cd "$work"
cli="$build/app/tracelight-cli"
g++ -O2 -std=c++20 "$here/parse_only.cpp" -o parse_only
measure() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }
printf "%8s %9s | %-14s | %-14s | %-14s | %-14s | %-14s | %-14s\n" spans file_MB "parse s/MB" "import s/MB" "analyze s/MB" "crit-path s/MB" \
    "direct s/MB" "JaegerUI s/MB"
for n in ${sizes[@]}; do
    python3 "$here/make_single_trace.py" "$n" "t$n.json"
    id=$(python3 -c "import json;print(json.load(open('t$n.json'))['data'][0]['traceID'])")
    rm -f "d$n.tldb"
    read -r ps pm < <(measure ./parse_only "t$n.json")
    read -r is im < <(measure "$cli" import --db "d$n.tldb" "t$n.json")
    read -r as am < <(measure "$cli" analyze "d$n.tldb")
    read -r cs cm < <(measure "$cli" critical-path "d$n.tldb" --request "$id" --json)
    rm -f "t$n.json.tldb" "t$n.json.tldb-wal" "t$n.json.tldb-shm"
    read -r ds dm < <(measure "$cli" critical-path "t$n.json" --json)
    read -r js jm < <(ulimit -s unlimited; measure node --stack-size=200000 "$here/jaeger_ui_critical_path.js" "t$n.json")
    mb() { echo "scale=0; $1/1024" | bc; }
    printf "%8s %9.1f | %5.2f / %5s | %5.2f / %5s | %5.2f / %5s | %5.2f / %5s | %5.2f / %5s | %5.2f / %5s\n" "$n" \
        "$(echo "scale=1; $(stat -c %s "t$n.json")/1048576" | bc)" "$ps" "$(mb "$pm")" "$is" "$(mb "$im")" "$as" "$(mb "$am")" \
        "$cs" "$(mb "$cm")" "$ds" "$(mb "$dm")" "$js" "$(mb "$jm")"
done
