#!/usr/bin/env python3
"""Large, shape-extreme inputs for measuring the importers (not run by the tests).

  make_large_inputs.py children N OUT.json   one Jaeger trace: a root span with N children
  make_large_inputs.py columns N ROWS OUT.csv events-csv with N attribute columns and ROWS rows
  make_large_inputs.py chain N OUT.json       one Jaeger trace: a chain of N nested spans, hosts alternating

  /usr/bin/time -v tracelight-cli import --db x.tldb OUT.json
"""
import sys


def children(n, out):
    with open(out, "w") as f:
        f.write('{"data":[{"traceID":"t1","processes":{"p1":{"serviceName":"web"}},"spans":[\n')
        f.write('{"traceID":"t1","spanID":"root","operationName":"GET","startTime":1000000,"duration":%d,'
                '"processID":"p1","references":[]}' % (n * 10 + 100))
        for i in range(n):
            f.write(',\n{"traceID":"t1","spanID":"c%d","operationName":"work","startTime":%d,"duration":5,'
                    '"processID":"p1","references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"root"}]}'
                    % (i, 1000010 + i * 10))
        f.write("\n]}]}\n")


def chain(n, out):
    with open(out, "w") as f:
        f.write('{"data":[{"traceID":"t1","processes":{"a":{"serviceName":"a"},"b":{"serviceName":"b"}},"spans":[\n')
        for i in range(n):
            ref = '[]' if i == 0 else '[{"refType":"CHILD_OF","traceID":"t1","spanID":"s%d"}]' % (i - 1)
            f.write('%s{"traceID":"t1","spanID":"s%d","operationName":"call","startTime":%d,"duration":%d,'
                    '"processID":"%s","references":%s}' % ("," if i else "", i, 1000000 + i, 2 * (n - i) + 1,
                                                         "ab"[i % 2], ref))
            f.write("\n")
        f.write("]}]}\n")


def columns(n, rows, out):
    with open(out, "w") as f:
        f.write("request,host,task,event,ts_us," + ",".join("a%d" % i for i in range(n)) + "\n")
        for r in range(rows):
            f.write("r%d,h,t,e%d,%d," % (r // 2, r, 1000 + r) + ",".join(str((i + r) % 7) for i in range(n)) + "\n")


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "children":
        children(int(sys.argv[2]), sys.argv[3])
    elif kind == "chain":
        chain(int(sys.argv[2]), sys.argv[3])
    elif kind == "columns":
        columns(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(__doc__)
