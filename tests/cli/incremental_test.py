#!/usr/bin/env python3
"""Incremental analysis through the real binaries.

1. A real span file (Online Boutique, split by trace in two) imported and analysed batch by batch gives the
   `model`, `critical-path` and `slack` JSON that one analysis of both batches gives, byte for byte; the second
   analysis refines (`analyze --json`: incremental, only the new requests inferred).
2. `serve --analyze-every` analyses what arrives while it runs, and `compare` of a stored period against the
   running capture's period answers while spans arrive.

usage: incremental_test.py TRACELIGHT_CLI ONLINE_BOUTIQUE_CSV WORK_DIR
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request

CLI, CSV, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def cli(*args):
    out = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit("tracelight-cli %s failed: %s" % (" ".join(args), out.stderr))
    return out.stdout


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# --- 1. batches equal one analysis -----------------------------------------------------------------------------
traces = collections.OrderedDict()
with open(CSV) as f:
    header = f.readline()
    for line in f:
        traces.setdefault(line.split(",", 1)[0], []).append(line)
names = list(traces)
# The last 22 traces after the first 480, as a capture's round would bring them (an earlier split makes the second
# analysis full: the later traces' round trips still move a host pair's clock offset).
half = len(names) - 22
for part, chosen in (("a", names[:half]), ("b", names[half:])):
    with open(os.path.join(WORK, part + ".csv"), "w") as out:
        out.write(header)
        for t in chosen:
            out.writelines(traces[t])

batches, whole = os.path.join(WORK, "batches.tldb"), os.path.join(WORK, "whole.tldb")
cli("import", "--db", batches, "--period", "first", os.path.join(WORK, "a.csv"))
first = json.loads(cli("analyze", batches, "--json", "--quiet"))
check(not first["incremental"] and first["full_because"] != "", "the first analysis is full, and says why")
cli("import", "--db", batches, "--period", "second", os.path.join(WORK, "b.csv"))
second = json.loads(cli("analyze", batches, "--json", "--quiet"))
check(second["incremental"], "the analysis after the second import refines (%s)" % second["full_because"])
added = second["requests"] - first["requests"]
check(second["inferred_requests"] == added, "only the %d new requests met the model (%d)" % (added, second["inferred_requests"]))
check(added <= second["derived_requests"] < second["requests"],
      "critical paths derived for the new requests and the affected earlier ones only (%d of %d)"
      % (second["derived_requests"], second["requests"]))

cli("import", "--db", whole, "--period", "first", os.path.join(WORK, "a.csv"))
cli("import", "--db", whole, "--period", "second", os.path.join(WORK, "b.csv"))
cli("analyze", whole, "--quiet")

check(cli("model", batches, "--json") == cli("model", whole, "--json"), "model --json: byte-identical")
sample = names[:: max(1, len(names) // 40)] + [names[half - 1], names[half], names[-1]]
same_path = all(cli("critical-path", batches, "--request", r, "--json") == cli("critical-path", whole, "--request", r, "--json")
                for r in sample)
check(same_path, "critical-path --json: byte-identical for %d requests of both batches" % len(sample))
same_slack = all(cli("slack", batches, "--request", r, "--json") == cli("slack", whole, "--request", r, "--json") for r in sample)
check(same_slack, "slack --json: byte-identical for the same requests")

# --- 2. serve analyses as it captures; compare against the running capture ------------------------------------------
live = os.path.join(WORK, "live.tldb")
cli("import", "--db", live, "--period", "baseline", os.path.join(WORK, "a.csv"))
proc = subprocess.Popen([CLI, "serve", "--db", live, "--otlp-http", "127.0.0.1:0", "--otlp-grpc", "off", "--quiet-time", "0.2",
                         "--period", "live", "--analyze-every", "0.3"], stderr=subprocess.PIPE, text=True)
line = proc.stderr.readline()
match = re.search(r"http://127\.0\.0\.1:(\d+)/v1/traces", line)
if not match:
    proc.kill()
    raise SystemExit("serve did not say where it listens: " + line)
port = int(match.group(1))
analysed = []
threading.Thread(target=lambda: [analysed.append(l) for l in proc.stderr if "analysed" in l], daemon=True).start()


def post(trace, start_ms, ms):
    t0 = 1_700_000_000_000_000_000 + start_ms * 1_000_000
    spans = [{"traceId": "%032x" % trace, "spanId": "%016x" % 1, "name": "checkout", "kind": 2,
              "startTimeUnixNano": str(t0), "endTimeUnixNano": str(t0 + ms * 1_000_000)},
             {"traceId": "%032x" % trace, "spanId": "%016x" % 2, "parentSpanId": "%016x" % 1, "name": "charge", "kind": 3,
              "startTimeUnixNano": str(t0 + 1_000_000), "endTimeUnixNano": str(t0 + (ms - 1) * 1_000_000)}]
    body = {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "shop"}}]},
                               "scopeSpans": [{"spans": spans}]}]}
    request = urllib.request.Request("http://127.0.0.1:%d/v1/traces" % port, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    return urllib.request.urlopen(request, timeout=30).status


def wait_for(condition, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


try:
    check(all(post(1000 + i, 100 * i, 40 + i) == 200 for i in range(12)), "twelve traces received")
    check(wait_for(lambda: any("analysed %d requests" % (half + 12) in l for l in analysed)), "serve analysed them as they arrived")
    compared = json.loads(cli("compare", live, "--baseline", "baseline", "--problem", "live", "--json"))
    check(compared["baseline"]["requests"] == half and compared["problem"]["requests"] == 12,
          "compare against the running capture: %s vs %s" % (compared["baseline"], compared["problem"]))
    check(all(post(2000 + i, 1000 + 100 * i, 60) == 200 for i in range(3)), "three more traces received")
    check(wait_for(lambda: any("analysed %d requests: the model refined with" % (half + 15) in l for l in analysed)),
          "serve refined the model with the new ones")
    compared = json.loads(cli("compare", live, "--baseline", "baseline", "--problem", "live", "--json"))
    check(compared["problem"]["requests"] == 15, "compared again while it runs, the capture has the new traces (%s)" % compared["problem"])
    check(proc.poll() is None, "serve still runs")
finally:
    proc.terminate()
    proc.wait(timeout=60)

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
