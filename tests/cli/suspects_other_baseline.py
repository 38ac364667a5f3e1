#!/usr/bin/env python3
# The development set's Online Boutique faults, each against the minutes of other faults of the same day as the
# baseline instead of the normal minute (docs/concepts/suspects.md, "Another baseline"): how much the ranking
# depends on the baseline being clean. A measurement, not a test.
# Usage: suspects_other_baseline.py TRACELIGHT_CLI REALDATA_DIR [BASELINES_PER_FAULT] [SEED]
import os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suspects_devset import faults, suspects
cli, root = sys.argv[1], sys.argv[2]
per = int(sys.argv[3]) if len(sys.argv) > 3 else 3
random.seed(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
ob = [f for f in faults(root) if f[0] == 'OB']
first = n = 0
for system, when, svc, kind, fault, normal in ob:
    for other in random.sample([g for g in ob if g[2] != svc], per):
        ranked = suspects(cli, other[4], fault)
        rank = ranked.index(svc) + 1 if svc in ranked else None
        n += 1; first += rank == 1
        print(when, svc, kind, 'against', other[1], other[2], 'rank', rank, 'top', ranked[:3], flush=True)
print(f'injected service first in {first} of {n} comparisons')
