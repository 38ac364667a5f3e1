#!/usr/bin/env python3
"""The real OpenTelemetry JS SDK sends generated traces to `tracelight-cli serve`, over OTLP/HTTP JSON and
OTLP/HTTP protobuf; every span it sent must be in the database with its attributes, events and links.
The SDK is installed by npm into the build directory on first use; without node or npm (or without the npm
registry) the test is skipped (exit 77).

usage: otel_sdk_e2e.py TRACELIGHT_CLI WORK_DIR NPM_DIR
"""
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading

CLI, WORK, NPM_DIR = sys.argv[1], sys.argv[2], sys.argv[3]
HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGES = ["@opentelemetry/api@1", "@opentelemetry/sdk-trace-base@1", "@opentelemetry/resources@1",
            "@opentelemetry/exporter-trace-otlp-http@0.57", "@opentelemetry/exporter-trace-otlp-proto@0.57",
            "@opentelemetry/exporter-trace-otlp-grpc@0.57"]
TRACES = 200


def skip(why):
    print("skipped: " + why)
    sys.exit(77)


def setup():
    if not shutil.which("node") or not shutil.which("npm"):
        skip("node or npm is not installed")
    marker = os.path.join(NPM_DIR, "node_modules", "@opentelemetry", "exporter-trace-otlp-grpc")
    if not os.path.isdir(marker):
        os.makedirs(NPM_DIR, exist_ok=True)
        if not os.path.exists(os.path.join(NPM_DIR, "package.json")):
            with open(os.path.join(NPM_DIR, "package.json"), "w") as f:
                f.write('{"name": "tracelight-otel-e2e", "private": true}\n')
        try:
            done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", *PACKAGES], cwd=NPM_DIR,
                                  capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            skip("npm install did not finish within 300 s (no registry reachable?)")
        if done.returncode != 0:
            skip("npm could not install the OpenTelemetry SDK: " + done.stderr.strip().splitlines()[-1:][0] if done.stderr.strip() else "npm failed")
    shutil.copy(os.path.join(HERE, "otel_sdk_send.mjs"), os.path.join(NPM_DIR, "otel_sdk_send.mjs"))


def varints(blob):
    """The unsigned LEB128 varints of a span's packed tags, events or links (core/src/store/PackedSpanParts.h)."""
    value, shift, at = 0, 0, 0
    while at < len(blob):
        byte = blob[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            yield value, at
            value, shift = 0, 0


def unpack_links(blob):
    out, at = [], 0
    while at < len(blob):
        size, used = next(varints(blob[at:]))
        out.append(blob[at + used:at + used + size].decode())
        at += used + size
    return out


def stored_spans(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    label = dict(con.execute("SELECT id, text FROM label_text"))
    spans = {}
    for req, idx, span_id, parent, op, tags, events, links in con.execute(
            "SELECT request_id, idx, span_id, parent, operation_id, tags, events, links FROM spans"):
        numbers = [v for v, _ in varints(tags or b"")]  # its own tags: key, value
        event_numbers = [v for v, _ in varints(events or b"")]  # name, event-model name, time delta
        spans[(req, idx)] = {"spanId": span_id, "parent": parent, "name": label[op],
                             "attributes": {label[numbers[k]]: label[numbers[k + 1]] for k in range(0, len(numbers), 2)},
                             "events": [label[event_numbers[k]] for k in range(0, len(event_numbers), 3)],
                             "links": unpack_links(links or b"")}
    by_id = {}
    for (req, idx), s in spans.items():
        s["parentId"] = spans[(req, s["parent"])]["spanId"] if s["parent"] >= 0 else ""
        by_id[s["spanId"]] = s
    con.close()
    return by_id


def main():
    setup()
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    db = os.path.join(WORK, "live.tldb")
    serve = subprocess.Popen([CLI, "serve", "--db", db, "--otlp-http", "127.0.0.1:0", "--otlp-grpc", "127.0.0.1:0", "--quiet-time", "0.5"],
                             stderr=subprocess.PIPE, text=True)
    match = re.search(r"http://(127\.0\.0\.1:\d+)/v1/traces, OTLP/gRPC on (127\.0\.0\.1:\d+)", serve.stderr.readline())
    if not match:
        serve.kill()
        print("serve did not start")
        return 1
    threading.Thread(target=lambda: [sys.stderr.write(line) for line in serve.stderr], daemon=True).start()
    urls = {"http": "http://%s/v1/traces" % match.group(1), "grpc": "http://%s" % match.group(2)}
    urls["proto"] = urls["http"]
    sent = []
    for protocol in ("http", "proto", "grpc"):
        url = urls[protocol]
        out = os.path.join(WORK, "sent-%s.jsonl" % protocol)
        run = subprocess.run(["node", "otel_sdk_send.mjs", protocol, url, str(TRACES), out], cwd=NPM_DIR,
                             capture_output=True, text=True, timeout=300)
        print(run.stdout.strip(), run.stderr.strip())
        if run.returncode != 0:
            serve.kill()
            return 1
        sent += [json.loads(line) for line in open(out) if line.strip()]
    serve.send_signal(signal.SIGTERM)
    code = serve.wait(60)
    stored = stored_spans(db)
    info = json.loads(subprocess.run([CLI, "info", db, "--json"], capture_output=True, text=True).stdout)
    failures = []
    for s in sent:
        got = stored.get(s["spanId"])
        if got is None:
            failures.append("span %s (%s) is not stored" % (s["spanId"], s["name"]))
            continue
        for key, value in s["attributes"].items():
            if got["attributes"].get(key) != value:
                failures.append("span %s: attribute %s is %r, sent %r" % (s["spanId"], key, got["attributes"].get(key), value))
        if got["name"] != s["name"] or got["parentId"] != s["parentId"] or got["events"] != s["events"] or got["links"] != s["links"]:
            failures.append("span %s: stored %r, sent %r" % (s["spanId"], got, s))
    checks = [(code == 0, "serve stopped cleanly on SIGTERM (exit %s)" % code),
              (not failures, "every span sent is stored with its attributes, events and links (%d sent; %s)" % (len(sent), failures[:3])),
              (info["spans"] == len(sent) and info["requests"] == 3 * TRACES,
               "info counts %d requests and %d spans (expected %d and %d)" % (info["requests"], info["spans"], 3 * TRACES, len(sent)))]
    for ok, what in checks:
        print(("ok   " if ok else "FAIL ") + what)
    bad = sum(1 for ok, _ in checks if not ok)
    print("%d passed, %d failed" % (len(checks) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
