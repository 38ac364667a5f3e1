#!/usr/bin/env python3
# False alarms: random splits of each system's normal minute (by trace) through import, compare --json; a split
# should name no suspect (docs/concepts/suspects.md). The baseline is the first part: a half, or a third against
# the other two thirds. A measurement, not a test.
# Usage: suspects_splits.py TRACELIGHT_CLI REALDATA_DIR [SPLITS] [BASELINE_SHARE]
import csv, glob, os, random, subprocess, sys, tempfile, json
cli, root = sys.argv[1], sys.argv[2]
splits = int(sys.argv[3]) if len(sys.argv) > 3 else 20
share = float(sys.argv[4]) if len(sys.argv) > 4 else 0.5
for system in ('nezha-onlineboutique', 'nezha-trainticket'):
    path = glob.glob(f'{root}/{system}/normal/*_trace.csv')[0]
    lines = open(path).read().splitlines()
    header, rows = lines[0], lines[1:]
    traces = sorted({r.split(',', 1)[0] for r in rows})
    alarms = []
    for seed in range(1, splits + 1):
        picked = random.Random(seed).sample(traces, round(len(traces) * share))
        base = set(picked)
        with tempfile.TemporaryDirectory() as tmp:
            a, b, db = f'{tmp}/a.csv', f'{tmp}/b.csv', f'{tmp}/x.tldb'
            with open(a, 'w') as fa, open(b, 'w') as fb:
                fa.write(header + '\n'); fb.write(header + '\n')
                for r in rows: (fa if r.split(',', 1)[0] in base else fb).write(r + '\n')
            subprocess.run([cli, 'import', '--quiet', '--db', db, '--period', 'normal', a], check=True, capture_output=True)
            subprocess.run([cli, 'import', '--quiet', '--db', db, '--period', 'fault', b], check=True, capture_output=True)
            r = subprocess.run([cli, 'compare', db, '--baseline', 'normal', '--problem', 'fault', '--json'], capture_output=True, text=True, check=True)
            named = [s['service'] for s in json.loads(r.stdout)['suspects']]
            if named: alarms.append((seed, named[:3]))
    print(f'{system} baseline share {share:.2f}: a suspect in {len(alarms)} of {splits} splits', alarms, flush=True)
