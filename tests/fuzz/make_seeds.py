#!/usr/bin/env python3
"""Writes the hostile seed inputs of issue 10 into tests/fuzz/seeds/<target>/, and small cuts of the
real trace files when ../shared/realdata is beside the checkout. The files are committed; run this
again only to change them:  python3 tests/fuzz/make_seeds.py
Each seed stays small (a few KiB): libFuzzer's longest mutation follows the longest seed, and
short inputs keep every target above a thousand executions a second."""
import json
import os
import pathlib

here = pathlib.Path(__file__).resolve().parent
seeds = here / "seeds"
realdata = here.parent.parent.parent / "shared" / "realdata"
written = []


def put(target, name, data):
    path = seeds / target / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    written.append(path)


def compact(value):
    return json.dumps(value, separators=(",", ":"))


# ---- events-csv ------------------------------------------------------------------------------------
header = "request,host,task,event,ts_us"
# Many children of one root: a root task that hands off to 100 tasks, each on its own host.
rows = [header, "r1,web,root,START,0"]
for i in range(100):
    rows.append(f"r1,web,root,CALL{i},{1 + i}")
    rows.append(f"r1,h{i},t{i},RECV,{2 + i}")
    rows.append(f"r1,h{i},t{i},REPLY,{3 + i}")
rows.append("r1,web,root,END,1000")
put("events_csv", "many-children.csv", "\n".join(rows) + "\n")
# Many attribute columns.
keys = [f"attr{i}" for i in range(300)]
put("events_csv", "many-attributes.csv",
    header + "," + ",".join(keys) + "\n"
    + "r1,c,t,A,1," + ",".join(f"v{i}" for i in range(300)) + "\n"
    + "r1,c,t,B,2," + ",".join("" if i % 2 else f"w{i}" for i in range(300)) + "\n")
# Line ends: CR only (classic Mac), mixed, and a UTF-8 byte-order mark before the header.
put("events_csv", "cr-only.csv", "\r".join([header, "r1,c,t,A,1", "r1,s,t,B,2", "r1,c,t,C,3"]) + "\r")
put("events_csv", "mixed-line-ends.csv", header + "\r\nr1,c,t,A,1\nr1,s,t,B,2\r\r\nr1,c,t,C,3")
put("events_csv", "bom.csv", "\ufeff" + header + ",seq\nr1,c,t,A,1,1\nr1,s,t,B,2,2\n")
# Latin-1 bytes (not UTF-8) in a host name and an attribute value.
put("events_csv", "latin1.csv", (header + ",city\nr1,caf\xe9,t,A,1,M\xfcnchen\nr1,s,t,B,2,\n").encode("latin-1"))
# Numbers at the edges: huge, negative, exponent, nanoseconds column, NaN.
put("events_csv", "edge-numbers.csv",
    header + "\nr1,c,t,A,1e300\nr1,c,t,B,-5\nr1,c,t,C,1.5e-3\nr2,c,t,A,nan\nr3,c,t,A,9223372036854775807\n")
put("events_csv", "ts-ns.csv", "request,host,task,event,ts_ns\nr1,c,t,A,1000\nr1,s,t,B,18446744073709551615\n")

# ---- events-jsonl ----------------------------------------------------------------------------------
line = {"request": "r1", "host": "c", "task": "t", "event": "A", "ts_us": 1, "attrs": {"b": "x"}}
second = {"request": "r1", "host": "s", "task": "t", "event": "B", "ts_us": 5.5, "seq": 2}
put("events_jsonl", "bom.jsonl", "\ufeff" + compact(line) + "\n" + compact(second) + "\n")
put("events_jsonl", "cr-only.jsonl", compact(line) + "\r" + compact(second) + "\r")
put("events_jsonl", "latin1.jsonl",
    ('{"request":"r1","host":"caf\xe9","task":"t","event":"A","ts_us":1,"attrs":{"city":"M\xfcnchen"}}\n'
     + compact(second) + "\n").encode("latin-1"))
put("events_jsonl", "many-attributes.jsonl",
    compact(dict(line, attrs={f"k{i}": f"v{i}" for i in range(300)})) + "\n" + compact(second) + "\n")
children = [{"request": "r1", "host": "web", "task": "root", "event": "START", "ts_us": 0}]
for i in range(60):
    children.append({"request": "r1", "host": "web", "task": "root", "event": f"CALL{i}", "ts_us": 1 + i})
    children.append({"request": "r1", "host": f"h{i}", "task": f"t{i}", "event": "RECV", "ts_us": 2 + i})
put("events_jsonl", "many-children.jsonl", "\n".join(compact(c) for c in children) + "\n")
put("events_jsonl", "odd-values.jsonl",
    '{"request":1,"host":null,"task":["t"],"event":{"e":1},"ts_us":"1"}\n'
    '{"request":"r1","host":"c","task":"t","event":"A","ts_us":1e400,"attrs":{"n":1,"b":true,"o":{"x":1}}}\n'
    '{"request":"r1","host":"c","task":"t","event":"\\u0000\\ud800","ts_us":2}\n')

# ---- zipkin-json -----------------------------------------------------------------------------------
def zipkin(span_id, parent=None, ts=1000, duration=10, name="op", service="svc", **extra):
    span = {"traceId": "t1", "id": span_id, "name": name, "timestamp": ts, "duration": duration,
            "localEndpoint": {"serviceName": service}}
    if parent:
        span["parentId"] = parent
    span.update(extra)
    return span


put("zipkin_json", "self-parent.json", compact([zipkin("a", "a"), zipkin("b", "a", ts=1002, duration=2)]))
put("zipkin_json", "parent-cycle.json", compact([zipkin("a", "b"), zipkin("b", "a", ts=1002, duration=2)]))
put("zipkin_json", "timestamp-1e20.json",
    "[" + compact(zipkin("a"))[:-1].replace('"timestamp":1000', '"timestamp":1e20') + "},"
    + compact(zipkin("b", "a", ts=1002, duration=2)) + "]")
put("zipkin_json", "huge-duration.json",
    compact([zipkin("a", duration=9223372036854775807), zipkin("b", "a", ts=1002, duration=18446744073709551615),
             zipkin("c", "a", ts=1003, duration=-5)]).replace('"duration":-5', '"duration":1e308'))
put("zipkin_json", "many-children.json",
    compact([zipkin("root", duration=500)] + [zipkin(f"c{i}", "root", ts=1001 + i, duration=1, name=f"call{i % 7}")
                                               for i in range(60)]))
put("zipkin_json", "shared-no-timestamp.json",
    compact([zipkin("a", kind="CLIENT"), zipkin("a", kind="SERVER", shared=True, ts=990),
             {"traceId": "t1", "id": "c", "parentId": "a", "name": "untimed"}]))
put("zipkin_json", "latin1.json",
    ('[{"traceId":"t1","id":"a","name":"caf\xe9","timestamp":1,"duration":2,'
     '"localEndpoint":{"serviceName":"M\xfcnchen"},"tags":{"k":"\xe9"}}]').encode("latin-1"))

# ---- jaeger-json -----------------------------------------------------------------------------------
def jaeger(span_id, parent=None, start=1000, duration=10, name="op", process="p1"):
    span = {"traceID": "t1", "spanID": span_id, "operationName": name, "startTime": start, "duration": duration,
            "processID": process, "tags": [], "logs": [], "references": []}
    if parent:
        span["references"] = [{"refType": "CHILD_OF", "traceID": "t1", "spanID": parent}]
    return span


def jaeger_doc(spans):
    return compact({"data": [{"traceID": "t1", "spans": spans,
                              "processes": {"p1": {"serviceName": "svc", "tags": []}}}]})


put("jaeger_json", "self-parent.json", jaeger_doc([jaeger("a", "a"), jaeger("b", "a", start=1002, duration=2)]))
put("jaeger_json", "huge-duration.json",
    jaeger_doc([jaeger("a", duration=9223372036854775807), jaeger("b", "a", start=1002, duration=18446744073709551615)]))
put("jaeger_json", "many-children.json",
    jaeger_doc([jaeger("root", duration=500)] + [jaeger(f"c{i}", "root", start=1001 + i, duration=1, name=f"call{i % 7}")
                                                 for i in range(50)]))
put("jaeger_json", "missing-process.json",
    compact({"data": {"traceID": "t1", "spans": [jaeger("a", process="nope")], "processes": {}}}))

# ---- otlp-json -------------------------------------------------------------------------------------
def otlp_span(span_id, parent="", start=1_000_000, end=2_000_000, name="op"):
    return {"traceId": "5B8EFFF798038103D269B633813FC60C", "spanId": span_id, "parentSpanId": parent, "name": name,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(end), "kind": 2}


def otlp_doc(spans):
    return compact({"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]},
                                       "scopeSpans": [{"scope": {"name": "lib"}, "spans": spans}]}]})


put("otlp_json", "self-parent.json", otlp_doc([otlp_span("AA", "AA"), otlp_span("BB", "AA", 1_100_000, 1_200_000)]))
put("otlp_json", "huge-duration.json",
    otlp_doc([otlp_span("AA", "", 0, 18446744073709551615), otlp_span("BB", "AA", 5, 10**30)]))
put("otlp_json", "many-children.json",
    otlp_doc([otlp_span("R0", "", 0, 10_000_000)] + [otlp_span(f"C{i}", "R0", 1000 * i, 1000 * i + 500, f"call{i % 7}")
                                                      for i in range(50)]))
put("otlp_json", "end-before-start.json", otlp_doc([otlp_span("AA", "", 2_000_000, 1_000_000)]))

# ---- otlp-protobuf ---------------------------------------------------------------------------------
# A minimal protobuf writer for the few OTLP fields the seeds use (opentelemetry/proto/trace/v1/trace.proto).
def pb_varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def pb_field(number, wire, payload):
    key = pb_varint(number << 3 | wire)
    if wire == 2:
        return key + pb_varint(len(payload)) + payload
    if wire == 1:
        return key + payload.to_bytes(8, "little")
    return key + pb_varint(payload)


def pb_kv(key, value):
    return pb_field(1, 2, key.encode()) + pb_field(2, 2, pb_field(1, 2, value.encode()))  # AnyValue.string_value


def pb_span(span_id, parent=b"", start=1_000_000, end=2_000_000, name="op", events=(), links=()):
    body = pb_field(1, 2, bytes.fromhex("5b8efff798038103d269b633813fc60c")) + pb_field(2, 2, span_id)
    if parent:
        body += pb_field(4, 2, parent)
    body += pb_field(5, 2, name.encode()) + pb_field(6, 0, 2) + pb_field(7, 1, start) + pb_field(8, 1, end)
    body += pb_field(9, 2, pb_kv("http.method", "GET"))
    for event_name, t in events:
        body += pb_field(11, 2, pb_field(1, 1, t) + pb_field(2, 2, event_name.encode()))
    for linked in links:
        body += pb_field(13, 2, pb_field(1, 2, bytes.fromhex("5b8efff798038103d269b633813fc60c")) + pb_field(2, 2, linked))
    return body


def pb_traces(spans):
    resource = pb_field(1, 2, pb_kv("service.name", "svc"))
    scope = pb_field(1, 2, pb_field(1, 2, b"lib")) + b"".join(pb_field(2, 2, s) for s in spans)
    return pb_field(1, 2, pb_field(1, 2, resource) + pb_field(2, 2, scope))


def pb_frames(*messages):
    return b"".join(len(m).to_bytes(4, "big") + m for m in messages)


pb_tree = [pb_span(b"\x0a", events=[("retry", 1_200_000), ("retry", 1_300_000)]),
           pb_span(b"\x0b", b"\x0a", 1_100_000, 1_500_000, "child", links=[b"\x0a"])]
put("otlp_protobuf", "trace.pb", pb_traces(pb_tree))
put("otlp_protobuf", "frames.pb", pb_frames(pb_traces(pb_tree[:1]), pb_traces(pb_tree[1:])))
put("otlp_protobuf", "truncated.pb", pb_traces(pb_tree)[:-7])
put("otlp_protobuf", "self-parent.pb", pb_traces([pb_span(b"\x0a", b"\x0a")]))
put("otlp_protobuf", "huge-duration.pb", pb_traces([pb_span(b"\x0a", b"", 0, 2**64 - 1), pb_span(b"\x0b", b"\x0a", 5, 2**63)]))
put("otlp_protobuf", "many-children.pb",
    pb_traces([pb_span(b"\x01", b"", 0, 10_000_000)] +
              [pb_span(bytes([2, i]), b"\x01", 1000 * i, 1000 * i + 500, f"call{i % 7}") for i in range(50)]))

# ---- spans-csv (Nezha's columns) -------------------------------------------------------------------
nezha = "TraceID,SpanID,ParentID,PodName,OperationName,StartTimeUnixNano,EndTimeUnixNano,Duration"
rows = [nezha, "t1,root0,root,frontend-579b9bff58-t2dbm,Recv.,1000000,9000000,8000"]
for i in range(100):
    rows.append(f"t1,c{i},root0,cart-5d4b8-x{i % 3},Get{i % 5},{1000000 + 1000 * i},{1000500 + 1000 * i},0.5")
put("spans_csv", "many-children.csv", "\n".join(rows) + "\n")
put("spans_csv", "self-parent.csv", nezha + "\nt1,a,a,frontend-1-2,Recv.,1000,2000,1\nt1,b,a,cart-1-2,Get,1100,1200,0.1\n")
put("spans_csv", "huge-duration.csv",
    nezha + "\nt1,a,root,frontend-1-2,Recv.,0,18446744073709551615,18446744073709551\n"
    "t1,b,a,cart-1-2,Get,1e30,-1,9223372036854775807\n")
put("spans_csv", "cr-only.csv", "\r".join([nezha, "t1,a,root,frontend-1-2,Recv.,1000,2000,1", "t1,b,a,cart-1-2,Get,1100,1200,0.1"]))
put("spans_csv", "many-attributes.csv",
    nezha + "," + ",".join(f"x{i}" for i in range(200)) + "\n"
    + "t1,a,root,frontend-1-2,Recv.,1000,2000,1," + ",".join(f"v{i}" for i in range(200)) + "\n")
put("spans_csv", "latin1.csv", (nezha + "\nt1,a,root,caf\xe9-1-2,R\xe9cv,1000,2000,1\n").encode("latin-1"))

# ---- issue 43: times at the 64-bit limits, truncated and unterminated inputs ------------------------
limits = [9223372036854775807, 9223372036854775808, 18446744073709551616, -9223372036854775808, -9223372036854775809]
put("zipkin_json", "limit-durations.json",
    compact([zipkin("a", duration=50)] + [zipkin(f"d{i}", "a", ts=1001 + i, duration=v) for i, v in enumerate(limits)]))
put("jaeger_json", "limit-durations.json",
    jaeger_doc([jaeger("a", duration=50)] + [jaeger(f"d{i}", "a", start=1001 + i, duration=v) for i, v in enumerate(limits)]))
put("zipkin_json", "limit-timestamp.json", compact([zipkin("a", ts=9223372036854775807)]))
put("events_csv", "unterminated-quote.csv", header + ',note\nr1,h,t,A,1,"open\nr1,h,t,B,2,x\n')
put("events_jsonl", "truncated.jsonl", '{"request":"r","host":"h","task":"t","event":"e","ts_us":1}\n{"request":"r","ho')

# ---- small cuts of the real files (their licences: see seeds/README.md) -----------------------------
if realdata.is_dir():
    for name in ["envoy.json", "skew.json", "messaging.json"]:
        put("zipkin_json", "real-" + name, (realdata / "zipkin" / name).read_bytes())
    for name in ["TraceStatistics__testTraceNormal.json", "TraceStatistics__traceWithOverlappingChildren.json"]:
        put("jaeger_json", "real-" + name, (realdata / "jaeger" / name).read_bytes())
    for name in ["opentelemetry-proto_examples_trace.json", "otlp2jaeger-in.json"]:
        put("otlp_json", "real-" + name, (realdata / "otlp" / name).read_bytes())
    # The first trace of Nezha's normal minute, whole (its rows are together at the top of the file).
    lines = (realdata / "nezha-onlineboutique" / "normal" / "2022-08-23_17_00_trace.csv").read_text().splitlines()
    first = lines[1].split(",")[0]
    cut = [lines[0]] + [l for l in lines[1:200] if l.startswith(first + ",")]
    put("spans_csv", "real-nezha-one-trace.csv", "\n".join(cut[:40]) + "\n")

for path in written:
    print(f"{path.relative_to(here)}: {path.stat().st_size} bytes")
