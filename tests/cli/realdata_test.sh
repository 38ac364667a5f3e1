#!/usr/bin/env bash
# Every real span file in ../shared/realdata, end to end, as a user takes it: imported into a database of
# its own, analysed, its slowest request's critical path read from the cache (and the same, with its slack,
# from the file read into memory), its waterfall and service map drawn by the CLI, and the app opened on it
# offscreen with the span tree shown. The Online Boutique
# minute (CSV, with a fault period) is opened on every tab of the app. Fails naming the file and the step.
#   realdata_test.sh CLI APP REALDATA_DIR WORK_DIR
set -uo pipefail
cli=$1 app=$2 realdata=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export QT_QPA_PLATFORM=offscreen
failures=0
fail() { echo "FAIL $1: $2"; failures=$((failures + 1)); }
step() {  # step FILE WHAT COMMAND...: runs the command, its output kept in WHAT.log beside the database
    local file=$1 what=$2; shift 2
    if ! "$@" > "$what.log" 2>&1; then fail "$file" "$what: $(tail -n 3 "$what.log" | tr '\n' ' ')"; return 1; fi
}
nonempty_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

mapfile -d '' files < <(find "$realdata" -type f \( -name '*.json' -o -name '*.json.txt' \) -not -path '*/labels/*' -print0 | sort -z)
[ "${#files[@]}" -gt 0 ] || { echo "no span files under $realdata"; exit 1; }
count=0
for file in "${files[@]}"; do
    # Named by its path under realdata: two files of one name in different folders keep apart.
    name=$(realpath --relative-to="$realdata" "$file" | tr '/ ' '__'); db="$name.tldb"; count=$((count + 1))
    step "$name" import "$cli" import --db "$db" "$file" || continue
    step "$name" analyze "$cli" analyze "$db" || continue
    request=$(sqlite3 "$db" "SELECT name FROM requests ORDER BY latency_ns DESC LIMIT 1" 2>/dev/null)
    [ -n "$request" ] || { fail "$name" "no request to look at"; continue; }
    step "$name" critical-path bash -c '"$1" critical-path "$2" --request "$3" --json > "$4"' _ "$cli" "$db" "$request" "$name.path.json" || continue
    python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["path"]' "$name.path.json" 2>/dev/null \
        || fail "$name" "critical-path: no path in $(head -c 200 "$name.path.json")"
    # The file itself, read into memory (no database of its own beside the copy): the same path and slack.
    mkdir -p files && cp "$file" "files/$name" && rm -f "files/$name.tldb"
    if step "$name" critical-path-file bash -c '"$1" critical-path "$2" --request "$3" --json > "$4"' _ "$cli" "files/$name" "$request" "$name.filepath.json"; then
        cmp -s "$name.path.json" "$name.filepath.json" || fail "$name" "critical-path of the file differs from its database's"
        [ ! -e "files/$name.tldb" ] || fail "$name" "critical-path of the file wrote a database"
    fi
    if step "$name" slack bash -c '"$1" slack "$2" --request "$3" > "$4" && "$1" slack "$5" --request "$3" > "$6"' _ "$cli" "$db" "$request" \
            "$name.slack.json" "files/$name" "$name.fileslack.json"; then
        cmp -s "$name.slack.json" "$name.fileslack.json" || fail "$name" "slack of the file differs from its database's"
    fi
    step "$name" waterfall "$cli" render waterfall "$db" --request "$request" --out "$name.waterfall.png" && \
        { nonempty_png "$name.waterfall.png" || fail "$name" "waterfall: no PNG"; }
    step "$name" service-map "$cli" render graph "$db" --services --out "$name.services.png" && \
        { nonempty_png "$name.services.png" || fail "$name" "service map: no PNG"; }
    step "$name" app timeout 120 "$app" --screenshot "$name.app.png" --tab waterfall --waterfall-mode spans "$db" && \
        { nonempty_png "$name.app.png" || fail "$name" "app: no PNG"; }
done
echo "$count span files"

ob="$realdata/nezha-onlineboutique"
if [ -d "$ob" ]; then
    db=ob.tldb
    if step onlineboutique import "$cli" import --db "$db" "$ob/normal/2022-08-23_17_00_trace.csv" --period normal &&
       step onlineboutique import-fault "$cli" import --db "$db" "$ob/fault/05_27_trace.csv" --period fault &&
       step onlineboutique analyze "$cli" analyze "$db"; then
        for tab in waterfall graph compare profile bottlenecks bursts breakdown outliers scatter slack whatif; do
            step onlineboutique "tab-$tab" timeout 120 "$app" --screenshot "ob.$tab.png" --tab "$tab" "$db" && \
                { nonempty_png "ob.$tab.png" || fail onlineboutique "tab $tab: no PNG"; }
        done
    fi
fi
[ "$failures" -eq 0 ] && echo "every real file imported, analysed and opened" || echo "failed steps: $failures"
[ "$failures" -eq 0 ]
