#!/usr/bin/env python3
"""The live capture's load figure: tracelight-cli serve on loopback, fed by SENDERS keep-alive connections that
post OTLP/HTTP JSON bodies of SPANS_PER_BODY spans (traces of 10 spans) as fast as they are answered, for at most
SECONDS. Reports the spans acknowledged per second until the first 429 (or over the whole run when none came),
the receiver's peak memory, the latency of a one-span probe request sent every 0.2 s meanwhile (is it still
responsive?), whether every acknowledged span is in the database (`info --json`), and, as the baseline, the
import rate of the same spans from one OTLP JSON file.

usage: serve_load.py TRACELIGHT_CLI WORK_DIR [SECONDS=20] [SENDERS=4] [SPANS_PER_BODY=500]
"""
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

CLI, WORK = sys.argv[1], sys.argv[2]
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 20
SENDERS = int(sys.argv[4]) if len(sys.argv) > 4 else 4
PER_BODY = int(sys.argv[5]) if len(sys.argv) > 5 else 500
SPANS_PER_TRACE = 10


def spans_of(first_trace, count):
    out = []
    for i in range(count):
        trace = first_trace + i // SPANS_PER_TRACE
        k = i % SPANS_PER_TRACE + 1
        t0 = 1_700_000_000_000_000_000 + trace * 1_000_000
        span = {"traceId": "%032x" % trace, "spanId": "%016x" % k, "name": "op%d" % (k % 5), "kind": 2 if k == 1 else 3,
                "startTimeUnixNano": str(t0 + k * 1000), "endTimeUnixNano": str(t0 + 500_000 - k),
                "attributes": [{"key": "http.route", "value": {"stringValue": "/item/%d" % (k % 7)}}]}
        if k != 1:
            span["parentSpanId"] = "%016x" % 1
        out.append(span)
    return out


def request_of(spans):
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "shop"}}]},
                               "scopeSpans": [{"spans": spans}]}]}


def peak_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    db = os.path.join(WORK, "load.tldb")
    proc = subprocess.Popen([CLI, "serve", "--db", db, "--otlp-http", "127.0.0.1:0", "--otlp-grpc", "127.0.0.1:0", "--quiet-time", "1"],
                            stderr=subprocess.PIPE, text=True)
    match = re.search(r"127\.0\.0\.1:(\d+)/v1/traces", proc.stderr.readline())
    if not match:
        raise SystemExit("serve did not say where it listens")
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    port = int(match.group(1))

    # One body made before the clock starts; each request is it with other trace ids (a bytes replace), so that
    # the senders spend their time sending.
    traces_per_body = PER_BODY // SPANS_PER_TRACE
    marker = b"f" * 24
    template = json.dumps(request_of(spans_of(0, PER_BODY))).encode().replace(b"0" * 24, marker)
    lock = threading.Lock()
    acked = [0] * SENDERS
    sent = []  # every acknowledged body, for the file baseline
    first_429 = [None]
    stop = threading.Event()
    begin = time.monotonic()

    def sender(k):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        n = 0
        while not stop.is_set():
            payload = template.replace(marker, b"%016x%08x" % (k + 1, n))
            n += 1
            try:
                conn.request("POST", "/v1/traces", payload, {"Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
            except Exception:  # noqa: BLE001 - reconnect and go on
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                continue
            now = time.monotonic() - begin
            if resp.status == 200:
                with lock:
                    acked[k] += PER_BODY
                    sent.append(payload)
            elif resp.status == 429:
                with lock:
                    if first_429[0] is None:
                        first_429[0] = (now, sum(acked))
                time.sleep(float(resp.getheader("Retry-After", "1")))
        conn.close()

    probes = []

    def prober():
        trace = 9_000_000_000
        while not stop.is_set():
            trace += 1
            payload = json.dumps(request_of(spans_of(trace, 1))).encode()
            t = time.monotonic()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("POST", "/v1/traces", payload, {"Content-Type": "application/json"})
                status = conn.getresponse().status
                conn.close()
            except Exception:  # noqa: BLE001
                status = 0
            probes.append((time.monotonic() - t, status))
            time.sleep(0.2)

    threads = [threading.Thread(target=sender, args=(k,)) for k in range(SENDERS)] + [threading.Thread(target=prober)]
    for t in threads:
        t.start()
    time.sleep(SECONDS)
    stop.set()
    for t in threads:
        t.join(60)
    elapsed = time.monotonic() - begin
    peak = peak_kib(proc.pid)
    proc.send_signal(2)
    proc.wait(120)
    total = sum(acked)
    got = json.loads(subprocess.run([CLI, "info", db, "--json"], capture_output=True, text=True, check=True).stdout)
    if first_429[0]:
        rate = first_429[0][1] / first_429[0][0] if first_429[0][0] > 0 else 0
        rate_text = "%.0f spans/s until the first 429 at %.1f s" % (rate, first_429[0][0])
    else:
        rate_text = "%.0f spans/s sustained, no 429 in %.0f s" % (total / elapsed, elapsed)
    lat = sorted(p[0] for p in probes)
    probe_text = "probe p50 %.0f ms, max %.0f ms, %d of %d answered 200" % (
        1000 * lat[len(lat) // 2], 1000 * lat[-1], sum(1 for p in probes if p[1] == 200), len(probes)) if lat else "no probes"
    print("serve: %d spans acknowledged in %.1f s by %d senders (%d spans a body): %s; peak %d KiB; %s" % (
        total, elapsed, SENDERS, PER_BODY, rate_text, peak, probe_text))
    print("database: %d spans counted (%d acknowledged + %d probe spans)%s" % (
        got["spans"], total, sum(1 for p in probes if p[1] == 200),
        "" if got["spans"] >= total else "  LOST SPANS"))

    # The baseline: the same spans imported from a file of the same requests, one a line (the Collector's file
    # exporter writes OTLP JSON so).
    path = os.path.join(WORK, "same-spans.jsonl")
    with open(path, "wb") as f:
        for payload in sent:
            f.write(payload + b"\n")
    del sent[:]
    file_db = os.path.join(WORK, "file.tldb")
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", CLI, "import", "--db", file_db, path], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("the file import failed: " + out.stderr)
    seconds, kib = out.stderr.strip().splitlines()[-1].split()
    print("import of the same %d spans from a file (%.0f MB): %s s, %.0f spans/s, peak %s KiB" % (
        total, os.path.getsize(path) / 1e6, seconds, total / float(seconds), kib))
    return 0 if got["spans"] >= total else 1


if __name__ == "__main__":
    sys.exit(main())
