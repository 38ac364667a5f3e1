#!/usr/bin/env bash
# tracelight-sample --workload storage end to end: files, truth, bad options, import as two periods, analyze,
# and the bundled storage.tldb.
# Usage: storage_sample_test.sh TRACELIGHT_SAMPLE TRACELIGHT_CLI WORKDIR BUNDLED_DB
set -u
sample=$1 cli=$2 work=$3 bundled=$4
rm -rf "$work" && mkdir -p "$work"
failures=0 passed=0
check() {  # check NAME CONDITION-EXIT-STATUS
    if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else echo "FAIL: $1"; failures=$((failures + 1)); fi
}

summary=$("$sample" --workload storage --change small-io --requests 400 --seed 4 --out-dir "$work" --summary); check "storage runs" $?
echo "$summary" | grep -q '"requests":800' ; check "summary counts both periods: $summary" $?
for f in baseline.csv problem.csv truth.csv; do [ -s "$work/$f" ]; check "$f written" $?; done
[ "$(head -1 "$work/baseline.csv")" = "request,host,task,event,ts_us,seq,op,size,client" ]; check "events-csv header" $?
[ "$(head -1 "$work/truth.csv")" = "request,period,affected,change" ]; check "truth header" $?
[ "$(($(wc -l < "$work/truth.csv") - 1))" -eq 800 ]; check "one truth row a request" $?
! grep -q "^baseline-[0-9]*,baseline,1," "$work/truth.csv"; check "no baseline request affected" $?
affected=$(grep -c ",problem,1,small-io$" "$work/truth.csv"); [ "$affected" -gt 0 ]; check "some problem requests affected ($affected)" $?
# Every affected request is a small WRITE with a read-modify-write; no other request has one.
small=$(awk -F, '$7 == "WRITE" && $8 < 65536 {print $1}' "$work/problem.csv" | sort)
truth=$(awk -F, '$3 == 1 {print $1}' "$work/truth.csv" | sort)
[ -n "$small" ] && [ "$small" = "$truth" ]; check "affected = small writes" $?
rmw=$(awk -F, '$4 == "RMW_READ" {print $1}' "$work/problem.csv" | sort)
[ "$rmw" = "$truth" ]; check "affected = requests with RMW_READ" $?
! grep -q RMW_READ "$work/baseline.csv"; check "no RMW in the baseline" $?

# An --out-dir that does not exist yet is made, parents included.
"$sample" --workload storage --requests 10 --seed 4 --out-dir "$work/new/deeper" >/dev/null; check "--out-dir is created" $?
[ -s "$work/new/deeper/truth.csv" ]; check "files in the created --out-dir" $?

# Same seed, same files; the page-load default is unchanged.
mkdir -p "$work/again"
"$sample" --workload storage --change small-io --requests 400 --seed 4 --out-dir "$work/again" >/dev/null
cmp -s "$work/problem.csv" "$work/again/problem.csv" && cmp -s "$work/truth.csv" "$work/again/truth.csv"; check "deterministic" $?
"$sample" --requests 10 --out "$work/pageload.csv" && head -1 "$work/pageload.csv" | grep -q "^request,host,task,event,ts_us,seq"
check "page-load default" $?

# Bad options: one line, exit 2.
err=$("$sample" --workload storage --change spin-2ms --out-dir "$work" 2>&1); status=$?
[ $status -eq 2 ] && [ "$err" = "tracelight-sample: unknown change spin-2ms" ]; check "unknown change: $err" $?
err=$("$sample" --workload disk --out "$work/x.csv" 2>&1); status=$?
[ $status -eq 2 ] && [ "$err" = "tracelight-sample: unknown workload disk" ]; check "unknown workload: $err" $?
err=$("$sample" --change spin-1ms --out "$work/x.csv" 2>&1); status=$?
[ $status -eq 2 ] && echo "$err" | grep -q "need --workload storage"; check "--change without storage: $err" $?
: > "$work/a-file"
err=$("$sample" --workload storage --change none --out-dir "$work/a-file/dir" 2>&1); status=$?
[ $status -eq 1 ] && echo "$err" | grep -q "cannot make $work/a-file/dir"; check "a directory that cannot be made: $err" $?

# Imported as two periods and analysed.
"$cli" import --quiet --format events-csv --period baseline --db "$work/s.tldb" "$work/baseline.csv"; check "import baseline" $?
"$cli" import --quiet --format events-csv --period problem --db "$work/s.tldb" "$work/problem.csv"; check "import problem" $?
"$cli" analyze --quiet "$work/s.tldb"; check "analyze" $?
info=$("$cli" info --json "$work/s.tldb")
echo "$info" | grep -q '{"name":"baseline","requests":400}' && echo "$info" | grep -q '{"name":"problem","requests":400}'
check "two periods: $info" $?

# The bundled database: both periods, analysed.
info=$("$cli" info --json "$bundled")
echo "$info" | grep -q '{"name":"baseline","requests":5000}' && echo "$info" | grep -q '{"name":"problem","requests":5000}'
check "bundled storage.tldb: $info" $?
"$cli" critical-path --json --request problem-1 "$bundled" | grep -q '"path"'; check "bundled is analysed" $?

echo "$passed passed, $failures failed"
[ $failures -eq 0 ]
