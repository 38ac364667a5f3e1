#!/usr/bin/env python3
# The labelled faults of the development set (docs/concepts/suspects.md): each fault's minutes against its
# system's normal minute through import, compare --json; the injected service should be the first suspect.
# Usage: suspects_devset.py TRACELIGHT_CLI REALDATA_DIR MIN_FIRST
import json, os, subprocess, sys, glob, tempfile
def faults(root):
    out = []
    for system, pat in (('OB', 'nezha-onlineboutique'), ('TT', 'nezha-trainticket')):
        d = f'{root}/{pat}'
        lab = glob.glob(f'{d}/labels/*fault_list.json')[0]
        L = json.load(open(lab))
        items = [f for v in L.values() for f in v] if isinstance(L, dict) else L
        for f in items:
            if f.get('inject_type') in ('return', 'exception'): continue
            t = f['inject_time'].split(' ')[1]
            hh, mm = int(t[:2]), int(t[3:5])
            ms = [f'{d}/fault/{(hh + (mm+k)//60):02d}_{(mm+k)%60:02d}_trace.csv' for k in range(3)]
            ms = [m for m in ms if os.path.exists(m)][:2]
            if not ms: continue
            m1, m2 = ms[0], ms[-1]
            svc = '-'.join(f['inject_pod'].split('-')[:-2]) if f['inject_pod'].count('-') >= 2 else f['inject_pod']
            out.append((system, f'{hh:02d}_{mm:02d}', svc, f['inject_type'], [m for m in (m1, m2) if os.path.exists(m)], glob.glob(f'{d}/normal/*_trace.csv')))
    return out
def suspects(cli, normal, fault):
    """The services compare --json names, first first, for the fault files against the normal ones."""
    with tempfile.TemporaryDirectory() as tmp:
        db = f'{tmp}/x.tldb'
        subprocess.run([cli, 'import', '--quiet', '--db', db, '--period', 'normal'] + normal, check=True, capture_output=True)
        subprocess.run([cli, 'import', '--quiet', '--db', db, '--period', 'fault'] + fault, check=True, capture_output=True)
        r = subprocess.run([cli, 'compare', db, '--baseline', 'normal', '--problem', 'fault', '--json'], capture_output=True, text=True)
        if r.returncode: sys.exit(f'compare failed: {r.stderr}')
        return [s['service'] for s in json.loads(r.stdout)['suspects']]
if __name__ == '__main__':
    cli, root, least = sys.argv[1], sys.argv[2], int(sys.argv[3])
    top1 = top3 = n = 0
    for system, when, svc, kind, fault, normal in faults(root):
        ranked = suspects(cli, normal, fault)
        rank = ranked.index(svc) + 1 if svc in ranked else None
        n += 1; top1 += rank == 1; top3 += bool(rank and rank <= 3)
        print(system, when, svc, kind, 'rank', rank, 'top', ranked[:3], flush=True)
    print(f'injected service first in {top1} of {n} faults, among the first three in {top3}')
    sys.exit(0 if n >= 19 and top1 >= least else 1)
