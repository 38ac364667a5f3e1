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
for cmd in import info; do
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

"$cli" info "$work/missing.tldb" >/dev/null 2>&1; [ $? -eq 1 ]; check "missing database exits 1" $?
"$cli" import --db "$work/x.tldb" >/dev/null 2>&1; [ $? -eq 2 ]; check "import without inputs is a usage error" $?

echo "cli smoke: $passed passed, $failures failed"
[ $failures -eq 0 ]
