#!/usr/bin/env bash
# Tracelight's one build helper, for a fresh Debian 12 machine.
#   bash build.sh run       install what is missing, build, open the app on the bundled sample
#                           (with no display: render the main window to build/screenshots/ instead)
#   bash build.sh test      install what is missing, build, run the quick suite: every test but the
#                           long checks labelled `full` (docs/dev/testing.md)
#   bash build.sh test-all  the same, then the long checks (fuzzing, real files through every tab, MPI),
#                           then the asan mode below; what CI runs (.ci/run)
#   bash build.sh asan      install what is missing, build the asan preset (AddressSanitizer + UBSan, Debug)
#                           into build-asan/ and run its tests (all but the fuzz step, which has its own
#                           sanitizers, the accuracy scores, which test results, not memory, and the first-use
#                           run under Xvfb, which drives the real app with its own timing); any
#                           sanitizer report fails the test that raised it
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
mode=${1:-run}
build_dir=${TRACELIGHT_BUILD_DIR:-build}

packages=(cmake ninja-build g++ pkg-config qt6-base-dev qt6-svg-dev libgl-dev libqcustomplot-dev libsqlite3-dev
          libboost-graph-dev libboost-dev libgraphviz-dev libgtest-dev libgmock-dev sqlite3 clang libclang-rt-14-dev
          libcli11-dev rapidjson-dev libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc golang-github-google-pprof-dev zlib1g-dev
          libopenmpi-dev openmpi-bin python3 xvfb xdotool x11-apps)

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

configure_and_build() {
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACELIGHT_BUILD_TESTS=ON >/dev/null
    cmake --build "$build_dir"
}

asan_build_and_test() {
    cmake --preset asan >/dev/null
    cmake --build build-asan
    ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -LE "fuzz|accuracy|xdisplay"
}

case "$mode" in
run)
    install_missing
    configure_and_build
    sample="$build_dir/samples/pageload.tldb"
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
        exec "$build_dir/app/tracelight" "$sample"
    fi
    mkdir -p "$build_dir/screenshots"
    echo "No display found: rendering the main window to $build_dir/screenshots/main-window.png instead."
    QT_QPA_PLATFORM=offscreen "$build_dir/app/tracelight" --screenshot "$build_dir/screenshots/main-window.png" "$sample"
    ;;
test)
    install_missing
    configure_and_build
    ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" -LE full
    ;;
test-all)
    install_missing
    configure_and_build
    ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
    asan_build_and_test
    ;;
asan)
    install_missing
    asan_build_and_test
    ;;
*)
    echo "usage: bash build.sh run|test|test-all|asan" >&2
    exit 2
    ;;
esac
