#!/usr/bin/env bash
# Re-renders every picture in docs/images/ from a build of Tracelight.
#
#   bash docs/images/render.sh [BUILD_DIR [REALDATA_DIR]]
#
# BUILD_DIR defaults to build/ and REALDATA_DIR to ../shared/realdata, both relative to the repository root.
# The databases are made in a temporary directory: copies of the bundled samples, a storage sample with the
# small-io change (tracelight-sample), the Online Boutique and GenAI real data imported and analysed, and a
# small generated set traced in bursts; neither the build nor the real data is written to. Each picture
# replaces the file of the same name only once it has been written.
#
# Sizes: every picture of the main window (tracelight --screenshot) and of the render command is 1280x860, and
# so are the Bottlenecks view (the sample's, its strata, Online Boutique's), the Compare workspace and the profile
# diff, drawn by view tests at that size. The others are a test's own fixture at the size the test fixes: the
# profile tables 1300x700, and the dialogs at their own default size (period manager 760x520, bottleneck types
# 900x380, clock adjustments 1180x600).
#
# Needs: bash, python3, coreutils; Qt's offscreen platform, and Xvfb, xdotool and xwd for the two first-use
# pictures, taken of a real window. About a minute on 2 cores.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(realpath "${1:-$root/build}")
realdata=$(realpath "${2:-$root/../shared/realdata}")
out="$root/docs/images"

app="$build/app/tracelight"
cli="$build/app/tracelight-cli"
tests="$build/tests"
ob="$realdata/nezha-onlineboutique"
genai="$realdata/jaeger/TraceTimelineViewer__genaiTestTrace.json"
async="$realdata/jaeger/TraceStatistics__traceWithOverlappingChildrenLongerThanParent.json"
for f in "$app" "$cli" "$build/samples/tracelight-sample" "$tests/MainWindowTest" "$tests/BottlenecksViewTest" \
         "$tests/ProfileViewTest" "$tests/CompareWorkspaceTest" "$build/samples/pageload.tldb" "$build/samples/storage.tldb" \
         "$ob/normal/2022-08-23_17_00_trace.csv" "$genai" "$async"; do
    [ -e "$f" ] || { echo "render.sh: missing $f" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/tracelight-images.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Offscreen, and the view tests' remembered settings (the Compare threshold, say) kept out of the user's.
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$work/config" XDG_RUNTIME_DIR="$work/runtime"
mkdir -p "$work/config" "$work/runtime" "$work/png"
chmod 700 "$work/runtime"
size=1280x860

# place NAME: move a picture written into $work/png into docs/images.
place() {
    [ -s "$work/png/$1" ] || { echo "render.sh: $1 was not written" >&2; exit 1; }
    mv -f "$work/png/$1" "$out/$1"
    echo "wrote docs/images/$1"
}
# shot NAME DB [OPTION...]: the main window, 1280x860. (Qt's offscreen warnings go to a log, shown on failure.)
shot() {
    local name=$1 db=$2
    shift 2
    timeout 300 "$app" --screenshot "$work/png/$name" --size "$size" "$@" "$db" >"$work/app.log" 2>&1 ||
        { cat "$work/app.log" >&2; echo "render.sh: tracelight --screenshot $name failed" >&2; exit 1; }
    place "$name"
}
# render NAME VIEW DB [OPTION...]: tracelight-cli render (the waterfall of the slowest request, or the graph), 1280x860.
render() {
    local name=$1 view=$2 db=$3
    shift 3
    timeout 300 "$cli" render "$view" "$db" --out "$work/png/$name" --size "$size" "$@" >"$work/app.log" 2>&1 ||
        { cat "$work/app.log" >&2; echo "render.sh: tracelight-cli render $view failed" >&2; exit 1; }
    place "$name"
}
# copy DB NAME: a copy of a database into $work (with its write-ahead log, if any).
copy() {
    cp "$1" "$work/$2"
    [ ! -e "$1-wal" ] || cp "$1-wal" "$work/$2-wal"
}
# A view test's picture: the test program, its filter, then VAR=VALUE settings.
viewtest() {
    local program=$1 filter=$2
    shift 2
    env "$@" timeout 600 "$tests/$program" --gtest_filter="$filter" --gtest_brief=1 >"$work/test.log" 2>&1 ||
        { cat "$work/test.log" >&2; echo "render.sh: $program $filter failed" >&2; exit 1; }
}

# ---- the databases ----
echo "making the databases in $work"
copy "$build/samples/pageload.tldb" pageload.tldb   # 20,000 page loads, period sample
copy "$build/samples/storage.tldb" storage.tldb     # periods baseline and problem (metadata-other-node)
# A storage sample whose change (small-io: half the WRITEs small, with a read-modify-write) an attribute
# separates, for the regression tree; made as the build makes the bundled one.
mkdir "$work/small-io"
"$build/samples/tracelight-sample" --workload storage --change small-io --requests 5000 --seed 7 \
    --out-dir "$work/small-io" >/dev/null
for period in baseline problem; do
    "$cli" import --quiet --format events-csv --period $period --db "$work/small-io.tldb" "$work/small-io/$period.csv" >/dev/null
done
# Online Boutique: the fault-free minute (normal), the currencyservice network delay of 05:27 (net-delay)
# and the shippingservice CPU contention of 07:26 (cpu), each fault with the minute after it. Short period
# names: the request table's Period column shows about ten characters.
"$cli" import --quiet --db "$work/ob.tldb" --period normal "$ob/normal/2022-08-23_17_00_trace.csv" >/dev/null
"$cli" import --quiet --db "$work/ob.tldb" --period net-delay "$ob/fault/05_27_trace.csv" "$ob/fault/05_28_trace.csv" \
    >/dev/null
copy "$work/ob.tldb" ob-net.tldb
"$cli" import --quiet --db "$work/ob.tldb" --period cpu "$ob/fault/07_26_trace.csv" "$ob/fault/07_27_trace.csv" >/dev/null
# The GenAI Jaeger trace (one request, 57 spans).
"$cli" import --quiet --db "$work/genai.tldb" --period genai "$genai" >/dev/null
# A Jaeger UI fixture whose children outlive their parent (work it did not wait for).
"$cli" import --quiet --db "$work/async.tldb" --period async "$async" >/dev/null
# A set traced in coordinated bursts: requests start only while (wall-clock ms & 0x3c0) == 0x3c0, i.e. 64 ms
# windows every 1,024 ms, over two minutes; each request is a web task that calls a cache, then a database.
python3 - "$work/bursty.csv" <<'EOF'
import random, sys
random.seed(1)  # its first window holds six requests
mask, epoch_ms = 0x3C0, 1793491200000  # 2026-11-01 00:00 UTC
rows, n = [], 0
while n < 800:
    ms = epoch_ms + random.randrange(120000)
    if ms & mask != mask:
        continue
    t = ms * 1000 + random.randrange(1000)          # µs
    r = f"b{n}"
    cache = random.uniform(80, 300)
    db = random.lognormvariate(7.6, 0.6)             # about 2 ms, with a tail
    web = random.uniform(300, 900)
    ev = [("web-1", "web", "W_START", t), ("web-1", "web", "CACHE_CALL", t + 100)]
    ev += [("cache-1", "cache", "GET", t + 220), ("cache-1", "cache", "REPLY", t + 220 + cache)]
    ev += [("web-1", "web", "CACHE_DONE", t + 340 + cache), ("web-1", "web", "DB_CALL", t + 400 + cache)]
    ev += [("db-1", "db", "QUERY", t + 520 + cache), ("db-1", "db", "ROWS", t + 520 + cache + db)]
    ev += [("web-1", "web", "DB_DONE", t + 640 + cache + db)]
    ev += [("web-1", "web", "W_END", t + 640 + cache + db + web)]
    rows += [f"{r},{h},{task},{e},{us:.3f}" for h, task, e, us in ev]
    n += 1
with open(sys.argv[1], "w") as f:
    f.write("request,host,task,event,ts_us\n" + "\n".join(rows) + "\n")
EOF
"$cli" import --quiet --db "$work/bursty.tldb" --period bursty "$work/bursty.csv" >/dev/null
for db in small-io ob ob-net genai async bursty; do "$cli" analyze --quiet "$work/$db.tldb" >/dev/null; done

# ---- the bundled page-load sample ----
shot main-window.png "$work/pageload.tldb"
render waterfall-slowest.png waterfall "$work/pageload.tldb"
render dependency-graph.png graph "$work/pageload.tldb"   # the causal model and its convergence plot
shot aggregates-breakdown.png "$work/pageload.tldb" --tab breakdown
shot aggregates-outliers.png "$work/pageload.tldb" --tab outliers
shot aggregates-scatter.png "$work/pageload.tldb" --tab scatter
shot aggregates-slack.png "$work/pageload.tldb" --tab slack
# The Bottlenecks view alone (BottlenecksViewTest), 1280x860.
viewtest BottlenecksViewTest 'BottlenecksView.RenderForTheReadme' BOTTLENECKS_PNG="$work/png/bottlenecks-sample.png" \
    BOTTLENECKS_DB="$work/pageload.tldb" BOTTLENECKS_WIDTH=1280 BOTTLENECKS_HEIGHT=860
place bottlenecks-sample.png
# The same sliced by browser: the five browsers' strata side by side, 1280x860. (The test's own two-stratum
# fixture, 150 generated requests at 1400x850, is STRATA_PNG of BottlenecksView.StrataSideBySide.)
viewtest BottlenecksViewTest 'BottlenecksView.RenderForTheReadme' BOTTLENECKS_PNG="$work/png/bottlenecks-strata.png" \
    BOTTLENECKS_DB="$work/pageload.tldb" BOTTLENECKS_SLICE=browser BOTTLENECKS_WIDTH=1280 BOTTLENECKS_HEIGHT=860
place bottlenecks-strata.png
# The profile tab's tables with the sandwich of CACHE_MISS->CACHE_REPLY, on the test's generated page loads;
# the test sizes the view 1300x700.
viewtest ProfileViewTest 'ProfileView.TopFramesSandwichMenuAndExports' PROFILE_TABLES_PNG="$work/png/profile-sandwich.png"
place profile-sandwich.png

# ---- dialogs (MainWindowTest), each at its own default size ----
viewtest MainWindowTest 'PeriodManager.DefinesRenamesAndDeletesPeriods' PERIODS_PNG="$work/png/period-manager.png"
place period-manager.png
viewtest MainWindowTest 'BottleneckRulesEditor.EditsRulesAndRefusesBadPatterns' RULES_PNG="$work/png/bottleneck-types-editor.png"
place bottleneck-types-editor.png
# The clock adjustments of the normal minute and one fault period (ob-net): there frontend -> adservice is moved.
viewtest MainWindowTest 'ClockAdjustmentsDialog.ListsEachHostPairsDecisionAndFiltersByHost' \
    CLOCKS_DB="$work/ob-net.tldb" CLOCKS_PNG="$work/png/clock-adjustments-onlineboutique.png"
place clock-adjustments-onlineboutique.png

# ---- the storage sample ----
shot compare-ranked-storage.png "$work/storage.tldb" --tab compare
# One entry's views (CompareWorkspaceTest, which sizes the workspace 1280x860 and writes PREFIX-side, -diff,
# -c2, -timeline, -overtime, -lanes, -lanes-local, -timeline-local and -tree). The bundled sample's entry 1, its top
# structural mutation, for the diff; the small-io sample's entry 1 for the tree, which splits on size (no
# entry of the bundled sample has a tree that separates its requests on a meaningful attribute).
viewtest CompareWorkspaceTest 'CompareWorkspace.RendersTheFlowGraphsOfAnyDatabase' COMPARE_DB="$work/storage.tldb" \
    COMPARE_BASE=baseline COMPARE_PROBLEM=problem COMPARE_ENTRY=1 COMPARE_OUT="$work/png/storage1"
mv "$work/png/storage1-diff.png" "$work/png/compare-diff-storage.png"
place compare-diff-storage.png
viewtest CompareWorkspaceTest 'CompareWorkspace.RendersTheFlowGraphsOfAnyDatabase' COMPARE_DB="$work/small-io.tldb" \
    COMPARE_BASE=baseline COMPARE_PROBLEM=problem COMPARE_ENTRY=1 COMPARE_OUT="$work/png/small-io1"
mv "$work/png/small-io1-tree.png" "$work/png/compare-tree-storage.png"
place compare-tree-storage.png

# ---- Online Boutique ----
shot temporal-context-strip-onlineboutique.png "$work/ob.tldb" --waterfall-mode spans
shot breakdown-aa-onlineboutique.png "$work/ob.tldb" --tab breakdown
shot compare-side-by-side-onlineboutique.png "$work/ob.tldb" --tab compare --compare-view side-by-side
# Entry 1 of normal vs net-delay (its red edges through CurrencyService), workspace 1280x860.
viewtest CompareWorkspaceTest 'CompareWorkspace.RendersTheFlowGraphsOfAnyDatabase' COMPARE_DB="$work/ob.tldb" \
    COMPARE_BASE=normal COMPARE_PROBLEM=net-delay COMPARE_ENTRY=1 COMPARE_OUT="$work/png/ob1"
# (The side-by-side pane is the whole window's picture above.)
mv "$work/png/ob1-c2.png" "$work/png/compare-c2-onlineboutique.png"
mv "$work/png/ob1-timeline.png" "$work/png/compare-timeline-onlineboutique.png"
mv "$work/png/ob1-overtime.png" "$work/png/compare-over-time-onlineboutique.png"
mv "$work/png/ob1-lanes.png" "$work/png/compare-swim-lanes-onlineboutique.png"
for name in c2 timeline over-time swim-lanes; do place "compare-$name-onlineboutique.png"; done
# Profile diffs against the normal minute (ProfileViewTest sizes the view 1280x860).
viewtest ProfileViewTest 'ProfileView.RendersADiffOfAnyDatabase' PROFILE_DIFF_DB="$work/ob.tldb" PROFILE_DIFF_BASE=normal \
    PROFILE_DIFF_TARGET=net-delay PROFILE_DIFF_OUT="$work/png/profile-diff-onlineboutique.png"
place profile-diff-onlineboutique.png
viewtest ProfileViewTest 'ProfileView.RendersADiffOfAnyDatabase' PROFILE_DIFF_DB="$work/ob.tldb" PROFILE_DIFF_BASE=normal \
    PROFILE_DIFF_TARGET=cpu PROFILE_DIFF_OUT="$work/png/profile-diff-onlineboutique-cpu.png"
place profile-diff-onlineboutique-cpu.png

# ---- the GenAI Jaeger trace ----
shot span-tree-genai.png "$work/genai.tldb" --waterfall-mode spans
shot span-tree-async.png "$work/async.tldb" --waterfall-mode spans
shot service-map-genai.png "$work/genai.tldb" --tab graph --graph-mode services

# ---- bursts ----
shot bursts.png "$work/bursty.tldb" --tab bursts

# ---- a first use, in a real window under Xvfb (tests/app/first_use.sh): the empty window, a raw Jaeger file
# opened with File › Open, and the Online Boutique minute opened the same way with the currencyservice delay's
# two minutes added by File › Import Traces: the pictures of each tab as a user first sees it ----
bash "$root/tests/app/first_use.sh" "$app" "$realdata" "$work/first-use" >"$work/first-use.log" 2>&1 ||
    { cat "$work/first-use.log" >&2; echo "render.sh: the first-use run failed" >&2; exit 1; }
mv "$work/first-use/welcome.png" "$work/png/first-use-welcome.png"
place first-use-welcome.png
mv "$work/first-use/jaeger-waterfall.png" "$work/png/first-use-jaeger.png"
place first-use-jaeger.png
for tab in waterfall:span-tree graph:service-map compare:compare-ranked profile:profile-flame bottlenecks:bottlenecks; do
    mv "$work/first-use/onlineboutique-${tab%%:*}.png" "$work/png/${tab#*:}-onlineboutique.png"
    place "${tab#*:}-onlineboutique.png"
done

echo "done: $(find "$out" -maxdepth 1 -name "*.png" | wc -l) pictures in docs/images"
