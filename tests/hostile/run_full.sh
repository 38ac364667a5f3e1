#!/usr/bin/env bash
# The hostile-input campaign of issue 43 at the issue's sizes (not run by CI): fields of 500 MB and 1.1 GB, a
# 300 MB-class operation name, imports of 8 million rows cut by kill -9 and by signals. Needs about 4 GB of
# free disk in WORKDIR and takes several minutes. Every case asserts its exit status, one error line naming
# the file and the place, the peak memory of tracelight-cli under 1 GiB + 64 MiB (the one per-field limit),
# and the database unchanged.
# Usage: run_full.sh TRACELIGHT_CLI [WORKDIR [--verbose] [--only STEP]]  (--verbose: every check, with its peak memory)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/hostile.py" "$1" "${2:-${TMPDIR:-/tmp}/tracelight-hostile-full}" --size full "${@:3}"
