#!/usr/bin/env python3
"""The hostile-input campaign of issue 43 as a test suite: a generator for each family of hostile input and
each fault, run through the real tracelight-cli, asserting what the README promises.

For every case: the exit status; on a refusal one error line naming the file and the place (line or byte);
the peak resident memory of the tracelight-cli process (getrusage of the child) under 1 GiB plus the one
per-field limit (64 MiB); and the database unchanged (an existing database keeps its bytes, a new path
leaves no file behind).

Usage: hostile.py TRACELIGHT_CLI WORKDIR [--size small|full] [--only NAME] [--verbose]
  small (the CTest run, label `full`): inputs just past the limit (65 MiB fields), small imports for the faults.
  full  (run by hand, not by CI): the issue's sizes (500 MB and 1.1 GB fields, a 300 MB operation name,
        imports of a few hundred MB cut by signals).
"""
import argparse
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

LIMIT = 64 << 20  # the one limit on a line or field of every format (kMaxJsonValueBytes)
MEMORY_BOUND_KIB = (1 << 20) + (LIMIT >> 10)  # 1 GiB plus the per-field limit, in KiB as ru_maxrss gives it
HEADER = "request,host,task,event,ts_us,note\n"

failures = []
passed = 0
verbose = False


def check(name, ok, detail=""):
    global passed
    if ok:
        passed += 1
        if verbose:
            print(f"ok: {name}" + (f": {detail}" if detail else ""), flush=True)
    else:
        failures.append(name)
        print(f"FAIL: {name}" + (f": {detail}" if detail else ""), flush=True)


class Run:
    def __init__(self, status, out, err, peak_kib, seconds):
        self.status, self.out, self.err, self.peak_kib, self.seconds = status, out, err, peak_kib, seconds

    def __repr__(self):
        return f"exit {self.status}, {self.peak_kib >> 10} MiB peak, {self.seconds:.1f} s, stderr {self.err.strip()[:300]!r}"


def run(args, stdin=None, signal_when=None, sig=None, timeout=900):
    """Runs tracelight-cli; its peak RSS comes from wait4's rusage (this child only). signal_when: a function
    polled until true, then sig is sent."""
    started = time.monotonic()
    proc = subprocess.Popen(args, stdin=stdin if stdin is not None else subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    out, err = [], []
    readers = [threading.Thread(target=lambda s=s, b=b: b.append(s.read())) for s, b in ((proc.stdout, out), (proc.stderr, err))]
    for r in readers:
        r.start()
    deadline = started + timeout
    while True:  # reaped here only (Popen.poll would take the child's rusage with it)
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if signal_when is not None and signal_when():
            os.kill(proc.pid, sig)
            signal_when = None
        if time.monotonic() > deadline:
            os.kill(proc.pid, signal.SIGKILL)
        time.sleep(0.01)
    proc.returncode = os.waitstatus_to_exitcode(status)
    for r in readers:
        r.join()
    return Run(proc.returncode, b"".join(out).decode("utf-8", "replace"), b"".join(err).decode("utf-8", "replace"),
               usage.ru_maxrss, time.monotonic() - started)


def files_of(db):
    return sorted(p for p in (db, db + "-wal", db + "-shm", db + "-journal") if os.path.exists(p))


def snapshot(db):
    out = {}
    for p in files_of(db):
        with open(p, "rb") as f:
            out[p] = f.read()
    return out


def one_error_line(r, *fragments):
    lines = [l for l in r.err.splitlines() if l.strip()]
    return len(lines) == 1 and all(re.search(f, lines[0]) for f in fragments)


# ---- generators: each family of hostile input ------------------------------------------------------------

def write_big(path, head, size, tail, fill=b"x", line=None):
    """head + size bytes of fill (or of `line` repeated) + tail, written in 1 MiB blocks."""
    with open(path, "wb") as f:
        f.write(head)
        block = (line * (max(1, (1 << 20) // len(line)))) if line else fill * (1 << 20)
        left = size
        while left > 0:
            f.write(block[:left])
            left -= min(left, len(block))
        f.write(tail)
    return path


def gen_csv_field(work, size):  # issue 43.1/2: one huge field in an events CSV
    return write_big(f"{work}/field.csv", (HEADER + "r1,h1,t1,E1,1700000000000000,").encode(), size, b"\n"), "field.csv:2:"


def gen_csv_multiline_field(work, size):  # a quoted field over many short lines: the joined record is bounded too
    return write_big(f"{work}/multiline.csv", (HEADER + 'r1,h1,t1,E1,1700000000000000,"').encode(), size, b'"\n',
                     line=b"y" * 99 + b"\n"), "multiline.csv:2:"


def gen_spans_csv_operation(work, size):  # a huge operation name in a span CSV
    head = ("TraceID,SpanID,ParentID,OperationName,StartTimeUnixNano,EndTimeUnixNano\n"
            "t1,s1,root,").encode()
    return write_big(f"{work}/operation.csv", head, size, b",1700000000000000000,1700000000000001000\n", fill=b"o"), "operation.csv:2:"


def gen_jsonl_line(work, size):  # an events-jsonl line longer than the limit
    head = b'{"request":"r","host":"h","task":"t","event":"e","ts_us":1}\n{"request":"r","host":"h","task":"t","event":"f","ts_us":2,"attrs":{"big":"'
    return write_big(f"{work}/line.jsonl", head, size, b'"}}\n'), "line.jsonl:2:"


def gen_zipkin_value(work, size):  # one JSON string value longer than the limit
    head = b'[{"traceId":"z","id":"a","name":"'
    return write_big(f"{work}/value.json", head, size, b'","timestamp":1,"duration":5}]\n', fill=b"n"), r"value.json: byte \d+"


def gen_jaeger_bare(work, size):  # a bare Jaeger trace object (read whole) larger than the limit
    head = b'{"traceID":"t","spans":[{"traceID":"t","spanID":"s","operationName":"'
    return write_big(f"{work}/bare.json", head, size, b'","startTime":1,"duration":1}]}\n', fill=b"j"), r"bare.json:\d+: "


def gen_otlp_line(work, size):  # the collector's one-request-per-line file with a line past the limit
    first = b'{"resourceSpans":[]}\n'
    head = first + b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"s","name":"'
    return write_big(f"{work}/lines.otlp.json", head, size, b'"}]}]}]}\n', fill=b"p"), "lines.otlp.json:2:"


BIG_FAMILIES = [gen_csv_field, gen_csv_multiline_field, gen_spans_csv_operation, gen_jsonl_line, gen_zipkin_value,
                gen_jaeger_bare, gen_otlp_line]

# Small malformed inputs of every format (the campaign's truncated, malformed and absurd values): each is
# refused with one line naming the file and the place, or imported (with warnings where it says so).
SMALL = [
    ("truncated.csv", HEADER + 'r1,h1,t1,E1,17000,"open\n', "refuse", r"truncated.csv:2:"),
    ("absurd-ts.csv", HEADER + "r1,h1,t1,E1,1e300,x\n", "refuse", r"absurd-ts.csv:2:"),
    ("nul.csv", HEADER + "r1,h1,t1,E1,1700000000000000,a\x00b\n", "import", None),
    ("truncated.jsonl", '{"request":"r","host":"h","task":"t","event":"e","ts_us":1}\n{"request":"r","ho', "refuse", r"truncated.jsonl:2:"),
    ("deep.jsonl", "[" * 100000 + "\n", "refuse", r"deep.jsonl"),
    ("truncated-zipkin.json", '[{"traceId":"z","id":"a","name":"x","timestamp":1,"dur', "refuse", r"truncated-zipkin.json: byte \d+"),
    ("ts-1e30.json", '[{"traceId":"z","id":"a","name":"x","timestamp":1e30,"duration":5}]', "refuse", r"ts-1e30.json.*out of range"),
]
for value in ("9223372036854775807", "9223372036854775808", "18446744073709551616", "-9223372036854775808",
              "-9223372036854775809", "1e30", "-1"):
    zipkin = ('[{"traceId":"z","id":"a","name":"x","timestamp":1700000000000000,"duration":50,"localEndpoint":{"serviceName":"s"}},'
              '{"traceId":"z","id":"b","parentId":"a","name":"y","timestamp":1700000000000010,"duration":%s,"localEndpoint":{"serviceName":"s"}}]' % value)
    jaeger = ('{"data":[{"traceID":"j","spans":[{"traceID":"j","spanID":"r","operationName":"root","startTime":1700000000000000,"duration":50,"processID":"p"},'
              '{"traceID":"j","spanID":"c","operationName":"child","startTime":1700000000000010,"duration":%s,'
              '"references":[{"refType":"CHILD_OF","spanID":"r"}],"processID":"p"}],"processes":{"p":{"serviceName":"s"}}}]}' % value)
    trace = f"t{len(SMALL)}"  # a trace of its own: one that imports does not clash with the next
    SMALL.append((f"zipkin-duration{value}.json", zipkin.replace('"traceId":"z"', f'"traceId":"z{trace}"'), "refuse-or-warn", r"span b"))
    SMALL.append((f"jaeger-duration{value}.json", jaeger.replace('"j"', f'"j{trace}"'), "refuse-or-warn", r"span c"))


def events_csv(path, rows, prefix="r"):
    """An ordinary events CSV of `rows` rows (requests of 4 events, named prefix + number): input for the faults."""
    with open(path, "w") as f:
        f.write(HEADER)
        for i in range(rows // 4):
            t = 1700000000000000 + i * 10
            r = f"{prefix}{i}"
            f.write(f"{r},client,main,START,{t},n\n{r},server,main,RECV,{t + 1},\n"
                    f"{r},server,main,SEND,{t + 2},\n{r},client,main,DONE,{t + 3},\n")
    return path


# ---- the checks -------------------------------------------------------------------------------------------

def existing_db(cli, work, name):
    db = f"{work}/{name}.tldb"
    for p in files_of(db):
        os.remove(p)
    r = run([cli, "import", "--quiet", "--db", db, events_csv(f"{work}/{name}-base.csv", 40, prefix="base")])
    assert r.status == 0, f"cannot make the base database: {r}"
    return db


def hostile_big_inputs(cli, work, size):
    db = existing_db(cli, work, "big")
    for gen in BIG_FAMILIES:
        path, place = gen(work, size)
        before = snapshot(db)
        r = run([cli, "import", "--db", db, path])
        name = f"{gen.__name__[4:]} ({os.path.getsize(path) >> 20} MiB)"
        check(f"{name}: refused, exit 1", r.status == 1, r)
        check(f"{name}: one error line naming the file and place, and the limit", one_error_line(r, place, "64 MiB"), r)
        check(f"{name}: peak memory under 1 GiB + 64 MiB", r.peak_kib < MEMORY_BOUND_KIB, r)
        check(f"{name}: database unchanged", snapshot(db) == before)
        # Into a new path: nothing left behind.
        fresh = f"{work}/fresh-{gen.__name__}.tldb"
        r = run([cli, "import", "--db", fresh, path])
        check(f"{name} into a new path: refused, no file left", r.status == 1 and not files_of(fresh), (r, files_of(fresh)))
        os.remove(path)


def hostile_small_inputs(cli, work):
    db = existing_db(cli, work, "small")
    for name, content, expect, place in SMALL:
        path = f"{work}/{name}"
        with open(path, "w") as f:
            f.write(content)
        before = snapshot(db)
        r = run([cli, "import", "--db", db, path])
        if expect == "refuse":
            check(f"{name}: refused with one line naming file and place", r.status == 1 and one_error_line(r, place), r)
            check(f"{name}: database unchanged", snapshot(db) == before)
        elif expect == "import":
            check(f"{name}: imported", r.status == 0, r)
        else:
            refused = r.status == 1 and one_error_line(r, re.escape(name), "out of range")
            warned = r.status == 0 and re.search(place, r.err) is not None
            check(f"{name}: refused (out of range) or warned about ({place})", refused or warned, r)
            if refused:
                check(f"{name}: database unchanged", snapshot(db) == before)
        check(f"{name}: peak memory under the bound", r.peak_kib < MEMORY_BOUND_KIB, r)


def fault_kill9_then_info(cli, work, rows):  # issue 43.3
    big = events_csv(f"{work}/kill9.csv", rows)
    db = f"{work}/kill9.tldb"
    for attempt in range(5):
        for p in files_of(db):
            os.remove(p)
        r = run([cli, "import", "--quiet", "--db", db, big], signal_when=lambda: os.path.exists(db + "-journal") and
                os.path.getsize(db) > 2000000, sig=signal.SIGKILL)
        if r.status == -signal.SIGKILL and os.path.exists(db + "-journal"):
            break
    else:
        check("kill -9 mid-import left a hot journal (the fault could not be made)", False, r)
        return
    info = run([cli, "info", "--json", db])
    check("info after kill -9: recovers the journal (exit 0, 0 requests)", info.status == 0 and '"requests":0' in info.out, info)
    check("info after kill -9: journal rolled back", not os.path.exists(db + "-journal"))
    check("info after kill -9: sound", run([cli, "info", "--check", db]).status == 0)


def fault_signals(cli, work, rows):  # issue 43.4
    big = events_csv(f"{work}/signal.csv", rows)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        db = f"{work}/signal-{sig.name}.tldb"
        r = run([cli, "import", "--quiet", "--db", db, big], signal_when=lambda: os.path.exists(db), sig=sig)
        if r.status == 0:
            check(f"{sig.name} arrived before the import ended", False, r)
            continue
        check(f"{sig.name} during an import into a new path: exit 128+{int(sig)}", r.status == 128 + int(sig), r)
        check(f"{sig.name}: one line saying it was cancelled", one_error_line(r, "cancelled"), r)
        check(f"{sig.name}: nothing left behind", not files_of(db), files_of(db))
        # Through a pipe that stays open: the signal is not held up by a read that waits for more.
        db = f"{work}/signal-pipe-{sig.name}.tldb"
        rfd, wfd = os.pipe()
        os.write(wfd, HEADER.encode() + b"r1,h,t,A,1700000000000000,\n")
        r = run([cli, "import", "--quiet", "--db", db, "-"], stdin=rfd, signal_when=lambda: os.path.exists(db), sig=sig, timeout=30)
        os.close(rfd)
        os.close(wfd)
        check(f"{sig.name} while reading a pipe: exit 128+{int(sig)}, nothing left", r.status == 128 + int(sig) and not files_of(db),
              (r, files_of(db)))
    # Into an existing database: it keeps what it had.
    db = existing_db(cli, work, "signal-existing")
    r = run([cli, "import", "--quiet", "--db", db, big], signal_when=lambda: os.path.exists(db + "-journal") or os.path.exists(db + "-wal"),
            sig=signal.SIGINT)
    info = run([cli, "info", "--json", db])
    check("SIGINT during an import into an existing database: exit 130, it keeps its content",
          r.status == 130 and info.status == 0 and '"requests":10,' in info.out, (r, info))


def fault_threads(cli, work):  # issue 43.6
    db = existing_db(cli, work, "threads")
    limit = 4 * (os.cpu_count() or 1)
    r = run([cli, "analyze", "--threads", "100000", db], timeout=60)
    check("--threads 100000: refused with one line naming the limit", r.status == 2 and one_error_line(r, "--threads", str(limit)), r)
    r = run([cli, "analyze", "--quiet", "--threads", str(limit), db], timeout=120)
    check(f"--threads {limit} (the limit): accepted", r.status == 0, r)


def fault_pipes(cli, work):  # issue 43.7
    content = open(events_csv(f"{work}/pipe-src.csv", 40), "rb").read()
    cases = {
        "stdin (-)": lambda db: ["bash", "-c", f'"$0" import --quiet --db "$1" - < "$2"', cli, db, f"{work}/pipe-src.csv"],
        "a pipe into -": lambda db: ["bash", "-c", f'cat "$2" | "$0" import --quiet --db "$1" -', cli, db, f"{work}/pipe-src.csv"],
        "/dev/stdin": lambda db: ["bash", "-c", f'cat "$2" | "$0" import --quiet --db "$1" /dev/stdin', cli, db, f"{work}/pipe-src.csv"],
        "process substitution": lambda db: ["bash", "-c", f'"$0" import --quiet --db "$1" <(cat "$2")', cli, db, f"{work}/pipe-src.csv"],
    }
    for name, command in cases.items():
        db = f"{work}/pipe-{len(name)}.tldb"
        for p in files_of(db):
            os.remove(p)
        r = run(command(db))
        info = run([cli, "info", "--json", db])
        check(f"import from {name}", r.status == 0 and '"requests":10,' in info.out, (r, info))
    fifo = f"{work}/events.fifo"
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: open(fifo, "wb").write(content))
    writer.start()
    db = f"{work}/pipe-fifo.tldb"
    r = run([cli, "import", "--quiet", "--db", db, fifo])
    unblock = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a writer still waiting (the FIFO not read) goes on
    writer.join()
    os.close(unblock)
    check("import from a FIFO", r.status == 0 and '"requests":10,' in run([cli, "info", "--json", db]).out, r)
    # A bad pipe is named in the error as the user named it, and a new database is not left behind.
    db = f"{work}/pipe-bad.tldb"
    r = run(["bash", "-c", 'printf "request,host,task,event,ts_us\\nr1,h,t,A,soon\\n" | "$0" import --db "$1" -', cli, db])
    check("a bad pipe: one line naming stdin and the line", r.status == 1 and one_error_line(r, r"^tracelight-cli: -:2: ") and not files_of(db), r)
    # Streamed: a pipe with one huge field is refused at the limit, memory bounded.
    r = run(["bash", "-c", 'python3 -c "import sys; sys.stdout.write(\'request,host,task,event,ts_us\\nr1,h,t,A,\' + \'1\' * (70 << 20) + \'\\n\')" | "$0" import --db "$1" -',
             cli, f"{work}/pipe-big.tldb"])
    check("a pipe with a field past the limit: refused naming stdin and line 2", r.status == 1 and one_error_line(r, r"^tracelight-cli: -:2: .*64 MiB"), r)


def fault_missing_directory(cli, work):  # issue 43.8
    r = run([cli, "import", "--db", f"{work}/no/such/dir/x.tldb", events_csv(f"{work}/md.csv", 8)])
    check("a missing parent directory is reported as such", r.status == 1 and one_error_line(r, "no such directory") and
          "read-only" not in r.err, r)


def fault_only_import_creates(cli, work):  # issue 43.9
    zero = f"{work}/zero.tldb"
    open(zero, "wb").close()
    notables = f"{work}/notables.tldb"
    if os.path.exists(notables):
        os.remove(notables)
    con = sqlite3.connect(notables)
    con.execute("CREATE TABLE x(y)")
    con.execute("DROP TABLE x")
    con.commit()
    con.close()
    for path in (zero, notables):
        for command in (["analyze"], ["model", "--json"], ["critical-path", "--request", "r1", "--json"], ["breakdown", "--json"],
                        ["period", "list"], ["info"]):
            before = snapshot(path)
            args = [cli, command[0], path] + command[1:]
            r = run(args)
            name = f"{' '.join(command)} on {os.path.basename(path)}"
            # critical-path also takes a trace file: a 0-byte one is "empty file, nothing to import".
            want = "not a Tracelight database|empty file" if command[0] == "critical-path" else "not a Tracelight database"
            check(f"{name}: refused as not a Tracelight database", r.status != 0 and one_error_line(r, want), r)
            check(f"{name}: file unchanged", snapshot(path) == before, files_of(path))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cli")
    parser.add_argument("work")
    parser.add_argument("--size", choices=["small", "full"], default="small")
    parser.add_argument("--only")
    parser.add_argument("--verbose", action="store_true", help="print every check that passes too, with its run")
    a = parser.parse_args()
    global verbose
    verbose = a.verbose
    cli = os.path.abspath(a.cli)
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    full = a.size == "full"
    sizes = [500 << 20, (1 << 30) + (100 << 20)] if full else [LIMIT + (1 << 20)]
    rows = 8_000_000 if full else 400_000
    steps = {
        "big": lambda: [hostile_big_inputs(cli, work, s) for s in sizes],
        "small": lambda: hostile_small_inputs(cli, work),
        "kill9": lambda: fault_kill9_then_info(cli, work, rows),
        "signals": lambda: fault_signals(cli, work, rows),
        "threads": lambda: fault_threads(cli, work),
        "pipes": lambda: fault_pipes(cli, work),
        "missing-directory": lambda: fault_missing_directory(cli, work),
        "only-import-creates": lambda: fault_only_import_creates(cli, work),
    }
    for name, step in steps.items():
        if a.only and name != a.only:
            continue
        started = time.monotonic()
        step()
        print(f"{name}: done in {time.monotonic() - started:.1f} s", flush=True)
    print(f"{passed} passed, {len(failures)} failed")
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
