#!/usr/bin/env bash
# End-to-end checks of tracelight-cli through the real binaries.
# Usage: cli_smoke_test.sh TRACELIGHT_CLI TRACELIGHT_SAMPLE WORKDIR
set -u
cli=$1 sample=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
failures=0 passed=0
check() {  # check NAME CONDITION-EXIT-STATUS
    if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else echo "FAIL: $1"; failures=$((failures + 1)); fi
}

# Every command has --help.
for cmd in import info analyze model critical-path slack breakdown; do
    "$cli" "$cmd" --help | grep -q "Usage: tracelight-cli $cmd"; check "$cmd --help" $?
done
"$cli" --help | grep -q "Commands:"; check "--help" $?
"$cli" bogus >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown command exits 2" $?

# 100,000 generated requests: info reports exactly what the generator wrote.
expected=$("$sample" --requests 100000 --seed 3 --out "$work/big.csv" --summary)
"$cli" import --quiet --period big --db "$work/big.tldb" "$work/big.csv"; check "import 100k" $?
actual=$("$cli" info "$work/big.tldb" --json)
want=$(echo "$expected" | sed 's/}$/,"periods":[{"name":"big","requests":100000}]}/')
[ "$actual" = "$want" ]; check "info --json counts (got $actual, want $want)" $?

# The same events as JSON lines, without seq, land with the same counts.
"$sample" --requests 500 --seed 4 --format jsonl --no-seq --out "$work/small.jsonl" > /dev/null
"$cli" import --quiet --db "$work/j.tldb" "$work/small.jsonl"; check "import jsonl (auto)" $?
"$cli" info "$work/j.tldb" --json | grep -q '"requests":500,'; check "jsonl request count" $?
"$cli" info "$work/j.tldb" --json | grep -q '"name":"small"'; check "default period named after file" $?

# A malformed file fails with file:line and leaves the database as it was.
before=$("$cli" info "$work/big.tldb" --json)
printf 'request,host,task,event,ts_us\nnew-1,h,t,A,1\nnew-1,h,t,B,later\n' > "$work/bad.csv"
err=$("$cli" import --db "$work/big.tldb" "$work/bad.csv" 2>&1 >/dev/null); status=$?
[ $status -eq 1 ]; check "bad import exits 1" $?
echo "$err" | grep -q "bad.csv:3: ts_us 'later' is not a number"; check "error names file:line ($err)" $?
[ "$(echo "$err" | wc -l)" -eq 1 ]; check "error is one line" $?
[ "$("$cli" info "$work/big.tldb" --json)" = "$before" ]; check "database unchanged after failed import" $?

# A database from a newer version is refused, not reinterpreted.
cp "$work/j.tldb" "$work/newer.tldb"
if command -v sqlite3 >/dev/null; then
    sqlite3 "$work/newer.tldb" "UPDATE meta SET value='42' WHERE key='schema_version'"
    err=$("$cli" info "$work/newer.tldb" --json 2>&1); status=$?
    [ $status -eq 1 ] && echo "$err" | grep -q "newer Tracelight"; check "newer schema refused ($err)" $?
fi

# Analysis of a handcrafted request with a known answer (one host, so no skew correction):
#   main [0,10] -> w1 [12,40] -> fin [42,50];  main -> w2 [10,30] -> fin.  w1 ends last, so fin waits
#   for it; blind waits 10->12 and 40->42; w2 may grow until fin's start (42): slack 12.
printf 'request,host,task,event,ts_us\nr1,c,main,A,0\nr1,c,main,B,10\nr1,c,w1,S,12\nr1,c,w1,E,40\nr1,c,w2,S,10\nr1,c,w2,E,30\nr1,c,fin,F,42\nr1,c,fin,G,50\n' > "$work/hand.csv"
"$cli" import --quiet --db "$work/hand.tldb" "$work/hand.csv"
"$cli" analyze --quiet --support-floor 1 "$work/hand.tldb"; check "analyze exits 0" $?
got=$("$cli" critical-path "$work/hand.tldb" --request r1 --json --support-floor 1)
want='{"request":"r1","latency_us":50,"blind_us":4,"path":[{"segment":{"task":"main","start":"A","end":"B"},"start_us":0,"duration_us":10},{"segment":{"task":"w1","start":"S","end":"E"},"start_us":12,"duration_us":28},{"segment":{"task":"fin","start":"F","end":"G"},"start_us":42,"duration_us":8}],"blind":[{"start_us":10,"duration_us":2},{"start_us":40,"duration_us":2}]}'
[ "$got" = "$want" ]; check "critical-path --json (got $got)" $?
got=$("$cli" slack "$work/hand.tldb" --request r1 --json --support-floor 1)
echo "$got" | grep -q '{"segment":{"task":"w2","start":"S","end":"E"},"duration_us":20,"slack_us":12}'; check "slack of w2 is 12 ($got)" $?
echo "$got" | grep -q '{"segment":{"task":"w1","start":"S","end":"E"},"duration_us":28,"slack_us":0}'; check "critical w1 has no slack" $?
"$cli" model "$work/hand.tldb" --json --support-floor 1 | grep -q '"kind":"happens_before","a":{"task":"w2","start":"S","end":"E"},"b":{"task":"fin","start":"F","end":"G"},"support":1,"confirmed":true'
check "model lists w2 -> fin" $?
"$cli" critical-path "$work/hand.tldb" --request nope --json --support-floor 1 >/dev/null 2>&1; [ $? -eq 1 ]; check "unknown request exits 1" $?
# The same shape at today's epoch with nanosecond decimals: latency and blind time exact to the ns
# (a double of absolute microseconds holds only 0.25 us). Blind: 10.001->12.003 and 40.007->42.010.
T=1700000000123456
printf 'request,host,task,event,ts_us\nr1,c,main,A,%s.789\nr1,c,main,B,%s.790\nr1,c,w1,S,%s.792\nr1,c,w1,E,%s.796\nr1,c,w2,S,%s.791\nr1,c,w2,E,%s.793\nr1,c,fin,F,%s.799\nr1,c,fin,G,%s.806\n' \
    $T $((T + 10)) $((T + 12)) $((T + 40)) $((T + 10)) $((T + 30)) $((T + 42)) $((T + 50)) > "$work/ns.csv"
"$cli" import --quiet --db "$work/ns.tldb" "$work/ns.csv"
got=$("$cli" critical-path "$work/ns.tldb" --request r1 --json --support-floor 1 --quiet)
echo "$got" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["latency_us"] == 50.017, d["latency_us"]
assert d["blind_us"] == 4.005, d["blind_us"]
assert [b["duration_us"] for b in d["blind"]] == [2.002, 2.003], d["blind"]
'; check "critical-path exact to the ns ($got)" $?
# model/critical-path analyse on demand when results are missing or stale (other parameters).
"$cli" critical-path "$work/j.tldb" --request req-7 --json --quiet | grep -q '"latency_us":'; check "critical-path analyses on demand" $?

# breakdown: critical times (with blind) add up to the mean latency, per the contract.
got=$("$cli" breakdown "$work/j.tldb" --by browser --json)
echo "$got" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["requests"] == 500, d["requests"]
total = sum(c["critical_us"] for c in d["categories"])
assert abs(total - d["mean_latency_us"]) < 1e-3 * d["mean_latency_us"], (total, d["mean_latency_us"])
assert d["categories"][-1]["name"] == "blind"
assert sum(s["requests"] for s in d["strata"]) == 500
assert d["outliers"]["segments"], "no outlier ranking"
'; check "breakdown --json adds up ($got)" $?
"$cli" breakdown "$work/j.tldb" --period nope --json >/dev/null 2>&1; [ $? -eq 1 ]; check "breakdown of an unknown period exits 1" $?

"$cli" info "$work/missing.tldb" >/dev/null 2>&1; [ $? -eq 1 ]; check "missing database exits 1" $?
"$cli" import --db "$work/x.tldb" >/dev/null 2>&1; [ $? -eq 2 ]; check "import without inputs is a usage error" $?

echo "cli smoke: $passed passed, $failures failed"
[ $failures -eq 0 ]
