#!/usr/bin/env python3
"""One Jaeger JSON trace of N spans for the single-trace figures (issue 11): nested RPCs among 16
services, each a client span whose one child is the server span on the callee, trips out and back of
different lengths, some local (database) leaves; every child inside its parent; siblings run one after
another or, in some parents, two at a time. Deterministic for a seed.

    make_single_trace.py SPANS OUT.json [--seed N]
"""
import json
import random
import sys


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    total, path = int(args[0]), args[1]
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 7
    rng = random.Random(seed)
    services = ["frontend", "auth", "cart", "catalog", "checkout", "currency", "email", "payment", "shipping",
                "recommend", "ads", "search", "inventory", "pricing", "profile", "notify"]
    ops = {s: [f"{s}.op{k}" for k in range(6)] for s in services}

    # Shape, breadth first: a server span gets 1-4 children, each an RPC (client + server: 2 spans) or a
    # local leaf (1 span), until the budget is spent.
    spans = []  # dicts: id, parent, service, op, kind, children
    def new(parent, service, op, kind):
        s = {"id": len(spans), "parent": parent, "service": service, "op": op, "kind": kind, "children": []}
        spans.append(s)
        if parent is not None:
            spans[parent]["children"].append(s["id"])
        return s["id"]
    queue = [new(None, "frontend", "frontend.Recv", "server")]
    head = 0
    while len(spans) < total and head < len(queue):
        parent = queue[head]
        head += 1
        for _ in range(rng.randint(1, 4)):
            if len(spans) >= total:
                break
            caller = spans[parent]["service"]
            if len(spans) + 2 <= total and rng.random() < 0.8:
                callee = rng.choice([s for s in services if s != caller])
                client = new(parent, caller, "call " + callee, "client")
                queue.append(new(client, callee, rng.choice(ops[callee]), "server"))
            else:
                new(parent, caller, "db." + rng.choice(["get", "put", "scan"]), "internal")

    # Times, bottom up (iteratively: the tree can be deep): a span's duration covers its own work and its
    # children; an RPC's client adds a trip out and a trip back of different lengths.
    dur, offset = [0] * len(spans), [0] * len(spans)  # offset: start relative to the parent's start
    order = []
    stack = [0]
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(spans[v]["children"])
    parallel = [rng.random() < 0.3 for _ in spans]
    for v in reversed(order):
        s = spans[v]
        if s["kind"] == "client":
            (server,) = s["children"]
            out, back = rng.randint(50, 600), rng.randint(20, 900)
            offset[server] = out
            dur[v] = out + dur[server] + back
            continue
        t = rng.randint(10, 200)  # own work before the first child
        kids = s["children"]
        i = 0
        while i < len(kids):
            group = kids[i:i + (2 if parallel[v] else 1)]
            longest = 0
            for c in group:
                offset[c] = t + rng.randint(0, 30)
                longest = max(longest, offset[c] - t + dur[c])
            t += longest + rng.randint(5, 100)
            i += len(group)
        if not kids:
            t += rng.randint(100, 3000)
        dur[v] = t + rng.randint(10, 200)
    start = [0] * len(spans)
    start[0] = 1700000000000000
    for v in order:
        for c in spans[v]["children"]:
            start[c] = start[v] + offset[c]

    processes = {f"p{k}": {"serviceName": s, "tags": [{"key": "hostname", "type": "string", "value": f"{s}-host"}]}
                 for k, s in enumerate(services)}
    pid = {s: f"p{k}" for k, s in enumerate(services)}
    trace_id = "%032x" % rng.getrandbits(128)
    out_spans = []
    for s in spans:
        refs = [] if s["parent"] is None else [{"refType": "CHILD_OF", "traceID": trace_id, "spanID": "%016x" % (s["parent"] + 1)}]
        out_spans.append({"traceID": trace_id, "spanID": "%016x" % (s["id"] + 1), "operationName": s["op"], "references": refs,
                          "startTime": start[s["id"]], "duration": dur[s["id"]], "processID": pid[s["service"]],
                          "tags": [{"key": "span.kind", "type": "string", "value": s["kind"]}], "logs": []})
    with open(path, "w") as f:
        json.dump({"data": [{"traceID": trace_id, "spans": out_spans, "processes": processes}]}, f)


if __name__ == "__main__":
    main()
