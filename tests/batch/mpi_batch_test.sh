#!/usr/bin/env bash
# The MPI run's results equal the single process's, row by row: N generated page loads imported once,
# analysed by `tracelight-cli analyze` in one copy and by `mpirun -np RANKS tracelight-batch analyze` in
# another; every table the analysis writes is compared.
#   mpi_batch_test.sh CLI SAMPLE BATCH MPIEXEC WORKDIR REQUESTS RANKS
set -euo pipefail
cli=$1 sample=$2 batch=$3 mpiexec=$4 work=$5 requests=$6 ranks=$7
rm -rf "$work" && mkdir -p "$work" && cd "$work"
# OpenMPI refuses root unless told (CI containers run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# No network interfaces to probe for a run on one machine.
export OMPI_MCA_btl=self,vader OMPI_MCA_plm=isolated OMPI_MCA_btl_vader_single_copy_mechanism=none

"$sample" --requests "$requests" --seed 21 --out sample.csv
"$cli" import --quiet --format events-csv --db single.tldb sample.csv
rm sample.csv  # 600 MB, no longer needed: CI's disk must still hold the sanitizer build after this test
# Span requests too (known links, per-trace operations): a Jaeger trace in the same database.
jaeger="$(dirname "$0")/../../../shared/realdata/jaeger/TraceStatistics__testTrace.json"
[ -f "$jaeger" ] && "$cli" import --quiet --db single.tldb "$jaeger"
cp single.tldb distributed.tldb
"$cli" analyze --quiet single.tldb
"$mpiexec" -np "$ranks" --oversubscribe "$batch" analyze distributed.tldb

status=0
compare() {
    local what=$1 sql=$2
    sqlite3 single.tldb "$sql" > expected.txt
    sqlite3 distributed.tldb "$sql" > got.txt
    local rows
    rows=$(wc -l < expected.txt)
    if cmp -s expected.txt got.txt; then
        echo "same: $what ($rows rows)"
    else
        echo "DIFFERENT: $what ($rows rows expected, $(wc -l < got.txt) got); first difference:"
        diff expected.txt got.txt | head -4
        status=1
    fi
    [ "$rows" -gt 0 ] || { echo "no rows: $what"; status=1; }
}
compare "request results" "SELECT request_id, latency_ns, blind_ns, hex(data) FROM request_analysis ORDER BY request_id"
compare "request start and latency" "SELECT id, start_ns, latency_ns FROM requests ORDER BY id"
compare "clock offsets" "SELECT * FROM clock_offsets ORDER BY host_id"
compare "clock pairs" "SELECT * FROM clock_pairs ORDER BY client_host_id, server_host_id"
compare "model, its types and segment statistics" "SELECT name, analysis_version, params, hex(data) FROM results ORDER BY name"
[ "$(sqlite3 distributed.tldb 'SELECT COUNT(*) FROM request_analysis')" -ge "$requests" ] || { echo "too few results"; status=1; }
# A database no rank can open: a failed run, and one line naming the file (not one per rank).
if out=$("$mpiexec" -np "$ranks" --oversubscribe "$batch" analyze missing.tldb 2>&1); then
    echo "a missing database was accepted"; status=1
fi
[ "$(grep -c '^tracelight-batch: missing.tldb: no such database' <<< "$out")" = 1 ] || { echo "not one error line: $out"; status=1; }
# A passing run leaves nothing behind (the two databases are 680 MB); a failing one keeps them to look at.
[ $status -eq 0 ] && rm -f single.tldb distributed.tldb expected.txt got.txt
exit $status
