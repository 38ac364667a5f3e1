#!/usr/bin/env python3
"""tracelight-cli serve under faults, over loopback only: a malformed protobuf body, a truncated gzip body, a
100 MB body, a client that never finishes its body, 1,000 concurrent connections, SIGTERM, and kill -9 in the
middle of a stream of requests. Each must be a clear answer or a bounded wait, never a crash, and every
acknowledged span must be in the database (`info --json` counts it) even after kill -9.

usage: serve_faults.py TRACELIGHT_CLI WORK_DIR
"""
import gzip
import http.client
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

CLI, WORK = sys.argv[1], sys.argv[2]
failures = []
passed = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    (passed if ok else failures).append(what)


def start(db, *extra):
    proc = subprocess.Popen([CLI, "serve", "--db", db, "--otlp-http", "127.0.0.1:0", "--otlp-grpc", "127.0.0.1:0", *extra],
                            stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/v1/traces", line)
    if not match:
        proc.kill()
        raise SystemExit("serve did not say where it listens: " + line)
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    return proc, int(match.group(1))


def info(db):
    out = subprocess.run([CLI, "info", db, "--json"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise SystemExit("info failed: " + out.stderr)
    return json.loads(out.stdout)


def body(trace, spans=1, start_span=1):
    """An OTLP JSON request: `spans` spans of one trace (a root and its children)."""
    t0 = 1_700_000_000_000_000_000 + trace * 1_000_000
    items = []
    for k in range(start_span, start_span + spans):
        item = {"traceId": "%032x" % trace, "spanId": "%016x" % k, "name": "op%d" % (k % 5), "kind": 2,
                "startTimeUnixNano": str(t0 + k * 1000), "endTimeUnixNano": str(t0 + 500_000 - k),
                "attributes": [{"key": "n", "value": {"intValue": str(k)}}]}
        if k != 1:
            item["parentSpanId"] = "%016x" % 1
        items.append(item)
    doc = {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]},
                              "scopeSpans": [{"spans": items}]}]}
    return json.dumps(doc).encode()


def post(port, data, content_type="application/json", encoding=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": content_type}
    if encoding:
        headers["Content-Encoding"] = encoding
    conn.request("POST", "/v1/traces", body=data, headers=headers)
    response = conn.getresponse()
    result = (response.status, dict(response.getheaders()), response.read())
    conn.close()
    return result


def raw(port, head, then=b"", wait=30):
    """Sends a request head (and a start of its body), then reads the answer; the status and the seconds it took."""
    began = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=wait)
    s.sendall(head + then)
    answer = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
            if b"\r\n\r\n" in answer:
                break
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    status = int(answer[9:12]) if answer.startswith(b"HTTP/1.1 ") else 0
    return status, time.monotonic() - began


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))

    db = os.path.join(WORK, "faults.tldb")
    proc, port = start(db, "--quiet-time", "0.5", "--read-timeout", "1", "--max-body", "4")

    status, _, reply = post(port, b"\x0a\xff\xff\xff\x0f not protobuf", "application/x-protobuf")
    check(status == 400, "a malformed protobuf body is answered 400 (%d)" % status)
    packed = gzip.compress(body(1))
    status, _, reply = post(port, packed[: len(packed) // 2], encoding="gzip")
    check(status == 400 and b"truncated gzip" in reply, "a truncated gzip body is answered 400 naming it (%d %r)" % (status, reply[:80]))

    # 100 MB announced: refused at the head while the client is still sending.
    head = b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: 104857600\r\n\r\n"
    status, took = raw(port, head, b"\0" * 65536)
    check(status == 413, "a 100 MB body is answered 413 (%d, %.1f s)" % (status, took))

    status, took = raw(port, b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n",
                       b'{"resourceSpans": [')
    check(status == 408 and took < 6, "a client that never finishes its body is answered 408 in bounded time (%d, %.1f s)" % (status, took))

    # 1,000 connections open at once, each sending a trace when all are connected.
    n = 1000
    results = [None] * n
    barrier = threading.Barrier(n, timeout=120)

    def one(i):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=120)
            data = body(10_000 + i)
            barrier.wait()
            s.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(data) + data)
            answer = b""
            while b"\r\n" not in answer:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
            s.close()
            results[i] = int(answer[9:12]) if answer.startswith(b"HTTP/1.1 ") else 0
        except Exception as e:  # noqa: BLE001 - counted as a failure below
            results[i] = repr(e)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    ok = sum(1 for r in results if r == 200)
    check(ok == n, "1,000 concurrent connections are all answered 200 (%d; others: %s)" %
          (ok, sorted({str(r) for r in results if r != 200})[:5]))

    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = "hung"
    check(code == 0, "SIGTERM stops serve cleanly (exit %s)" % code)
    got = info(db)
    check(got["requests"] == n and got["spans"] == n, "after SIGTERM every trace is a request (%d requests, %d spans)" %
          (got["requests"], got["spans"]))

    # kill -9 in the middle of a stream of requests: every acknowledged span is in the database.
    killed = os.path.join(WORK, "killed.tldb")
    proc, port = start(killed, "--quiet-time", "60")
    acknowledged = [0] * 8
    stop = threading.Event()

    def sender(k):
        trace = 1_000_000 * (k + 1)
        while not stop.is_set():
            trace += 1
            try:
                status, _, _ = post(port, body(trace, spans=50), timeout=10)
            except Exception:  # noqa: BLE001 - the server is gone
                return
            if status == 200:
                acknowledged[k] += 50

    senders = [threading.Thread(target=sender, args=(k,)) for k in range(8)]
    for t in senders:
        t.start()
    time.sleep(2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stop.set()
    for t in senders:
        t.join(30)
    acked = sum(acknowledged)
    got = info(killed)
    check(acked > 0 and got["spans"] >= acked, "after kill -9, info counts every acknowledged span (%d acknowledged, %d counted)" %
          (acked, got["spans"]))
    # The next run stores what the killed one left open.
    proc, port = start(killed, "--quiet-time", "0.2")
    proc.send_signal(signal.SIGINT)
    code = proc.wait(60)
    after = info(killed)
    check(code == 0 and after["spans"] == got["spans"] and after["requests"] * 50 == after["spans"],
          "the next run stores the open traces (exit %s, %d requests, %d spans)" % (code, after["requests"], after["spans"]))

    print("%d passed, %d failed" % (len(passed), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
