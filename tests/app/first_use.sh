#!/usr/bin/env bash
# A first use of the app as a new user meets it: a real window on a virtual X display (Xvfb), driven with the
# keyboard by xdotool, with fresh settings. It opens a raw Jaeger file and then an Online Boutique span CSV with
# File › Open (typing each path into the file dialog), adds the two minutes of a currencyservice network delay
# to the Online Boutique database as period "fault" with File › Import Traces (Ctrl+I, "Add to", the period's
# name), visits every tab with Ctrl+1 … Ctrl+7 and writes a screenshot of each, 1280x860, into OUT_DIR:
#
#   welcome.png, jaeger-<tab>.png, onlineboutique-<tab>.png   (<tab>: waterfall graph aggregates compare profile
#                                                               bottlenecks bursts)
#
# Fails when the window does not open a file (its title does not name the new database), when a tab's picture
# is blank or the same as the previous tab's, when a tab widens the window past the screen, or when the app
# does not quit cleanly with Ctrl+Q.
# Exits 77 (skipped) without Xvfb, xdotool or xwd.
#
# Usage: first_use.sh TRACELIGHT REALDATA_DIR OUT_DIR
set -uo pipefail
app=$1 realdata=$2 out=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for tool in Xvfb xdotool xwd python3; do
    command -v "$tool" >/dev/null || { echo "first_use.sh: no $tool: skipped"; exit 77; }
done
jaeger_src="$realdata/jaeger/TraceTimelineViewer__genaiTestTrace.json"
ob_src="$realdata/nezha-onlineboutique/normal/2022-08-23_17_00_trace.csv"
fault_src=("$realdata/nezha-onlineboutique/fault/05_27_trace.csv" "$realdata/nezha-onlineboutique/fault/05_28_trace.csv")
for f in "$jaeger_src" "$ob_src" "${fault_src[@]}"; do [ -f "$f" ] || { echo "first_use.sh: no $f: skipped"; exit 77; }; done

work=$(mktemp -d "${TMPDIR:-/tmp}/tracelight-first-use.XXXXXX")
mkdir -p "$out" "$work/home" "$work/traces" "$work/runtime"
chmod 700 "$work/runtime"
# The files are copied: opening a trace file makes its database beside it.
cp "$jaeger_src" "$ob_src" "$work/traces/"
mkdir -p "$work/traces/fault"
cp "${fault_src[@]}" "$work/traces/fault/"
jaeger="$work/traces/$(basename "$jaeger_src")"
ob="$work/traces/$(basename "$ob_src")"

fail() { echo "first_use.sh: $*" >&2; [ -s "$work/app.log" ] && sed 's/^/  app: /' "$work/app.log" >&2; exit 1; }

# A display of our own: Xvfb picks a free number and writes it to a file descriptor.
exec {displayfd}<> <(:)
Xvfb -displayfd "$displayfd" -screen 0 1280x860x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb=$!
read -r -t 10 display <&"$displayfd" || fail "Xvfb did not start"
app_pid=
cleanup() {
    [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null
    kill "$xvfb" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
export DISPLAY=":$display" HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_CACHE_HOME="$work/home/.cache" \
       XDG_DATA_HOME="$work/home/.local/share" XDG_RUNTIME_DIR="$work/runtime" QT_QPA_PLATFORM=xcb

# window_named REGEX: the id of the visible window whose title matches, waiting up to 60 s.
window_named() {
    local id
    for _ in $(seq 1 120); do
        id=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -1)
        [ -n "$id" ] && { echo "$id"; return 0; }
        sleep 0.5
    done
    return 1
}
# shot NAME: the screen, once two dumps a second apart are the same (the background work is done), as NAME.
shot() {
    local previous="" now
    for _ in $(seq 1 90); do
        xwd -root -silent >"$work/screen.xwd" || fail "xwd failed"
        now=$(md5sum <"$work/screen.xwd")
        [ "$now" = "$previous" ] && break
        previous=$now
        sleep 1
    done
    local colours
    colours=$(python3 "$here/xwd2png.py" "$work/screen.xwd" "$out/$1") || fail "cannot convert $1"
    [ "$colours" -ge 40 ] || fail "$1 looks blank ($colours colours)"
    echo "wrote $out/$1 ($colours colours)"
}
# open_file PATH: File › Open (Ctrl+O), the path typed into the dialog, Return; the window's title then names
# the database made for it.
open_file() {
    xdotool windowfocus --sync "$main" key --clearmodifiers ctrl+o
    local dialog
    dialog=$(window_named '^Open a database or a trace file$') || fail "Ctrl+O opened no file dialog"
    xdotool windowfocus --sync "$dialog"
    sleep 0.3
    xdotool type --delay 2 "$1"
    xdotool key Return
    window_named "^$(basename "$1" | sed 's/[.]/[.]/g')[.]tldb — Tracelight\$" >/dev/null ||
        fail "the window did not open $1 (title: $(xdotool getwindowname "$main"))"
}
tabs=(waterfall graph aggregates compare profile bottlenecks bursts)
# visit PREFIX: every tab in turn, a screenshot of each; no two neighbours alike.
visit() {
    local previous=""
    for i in "${!tabs[@]}"; do
        xdotool windowfocus --sync "$main" key --clearmodifiers "ctrl+$((i + 1))"
        shot "$1-${tabs[$i]}.png"
        # A window wider than the screen is cut off on the right: what it shows must fit in 1280 pixels.
        local width
        width=$(xdotool getwindowgeometry "$main" | sed -n 's/.*Geometry: \([0-9]*\)x.*/\1/p')
        [ "$width" -le 1280 ] || fail "the ${tabs[$i]} tab widened the window to $width pixels"
        local sum
        sum=$(md5sum <"$out/$1-${tabs[$i]}.png")
        [ "$sum" != "$previous" ] || fail "$1-${tabs[$i]}.png is the same picture as the tab before it"
        previous=$sum
    done
}

"$app" >"$work/app.log" 2>&1 &
app_pid=$!
main=$(window_named '^Tracelight$') || fail "no main window"
xdotool windowsize --sync "$main" 1280 860 windowmove --sync "$main" 0 0
shot welcome.png

open_file "$jaeger"
[ -f "$jaeger.tldb" ] || fail "no database beside $jaeger"
visit jaeger

open_file "$ob"
[ -f "$ob.tldb" ] || fail "no database beside $ob"
# File › Import Traces: both fault minutes at once (quoted names in the dialog), added to the open database.
xdotool windowfocus --sync "$main" key --clearmodifiers ctrl+i
dialog=$(window_named '^Import traces$') || fail "Ctrl+I opened no file dialog"
xdotool windowfocus --sync "$dialog"
sleep 0.3
xdotool type --delay 2 "$work/traces/fault/"
xdotool key Return
sleep 0.5
xdotool type --delay 2 '"05_27_trace.csv" "05_28_trace.csv"'
xdotool key Return
sleep 1
question=$(window_named '^Import traces$') || fail "no question whether to add or make a new database"
xdotool windowfocus --sync "$question" key --clearmodifiers alt+a
sleep 1
period=$(window_named '^Import traces$') || fail "no question for the period's name"
xdotool windowfocus --sync "$period" key --clearmodifiers ctrl+a
xdotool type --delay 2 fault
xdotool key Return
# The import has landed when the database lists the period (read by the command-line tool beside the app); the
# analysis and the tabs' work follow, which each screenshot waits out.
cli="$(dirname "$app")/tracelight-cli"
imported=
for _ in $(seq 1 240); do
    "$cli" info "$ob.tldb" 2>/dev/null | grep -Eq '^ +fault +788 requests' && { imported=1; break; }
    sleep 0.5
done
[ -n "$imported" ] || fail "the fault minutes were not added to $ob.tldb ($("$cli" info "$ob.tldb" 2>&1 | tr '\n' ' '))"
visit onlineboutique

xdotool windowfocus --sync "$main" key --clearmodifiers ctrl+q
for _ in $(seq 1 40); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.25; done
kill -0 "$app_pid" 2>/dev/null && fail "Ctrl+Q did not quit"
wait "$app_pid"
status=$?
app_pid=
[ "$status" -eq 0 ] || fail "the app exited with $status"
echo "first use: both files opened, the fault minutes added, every tab drawn"
