#!/usr/bin/env python3
"""Spectroscope's Table 3 against the storage generator's truth, through `tracelight-cli compare --json`.

usage: storage_table3.py [CHANGES] [SEEDS] [REQUESTS] [WORKDIR]   (comma-separated lists; REQUESTS per period)
An entry is relevant when most of its problem-period requests are affected per truth.csv and it shows the
change as the paper's section 8 asks: a spin loop's entry is a response-time mutation with a red edge into the
storage write's commit (WR_COMMIT or MD_WR_COMMIT), a structural change's entry has a precursor. Top-10 is the
share of the first ten entries that are relevant, fp the share of all entries that are not, coverage the
share of the affected problem requests inside relevant entries, flagged the entries per category. Each run's line
lists its false entries (kind, category, counts, p-values, red edges); the last lines pool each change and size over
the seeds as Table 3 does (top-10 and false positives over every entry of every run, the range of coverage).
A measurement (tests/samples/StorageTable3Test.cpp asserts it): run from the build tree's parent (paths
below), results in the README. TABLE3_ARGS adds compare options (e.g. TABLE3_ARGS=--bh)."""
import csv, itertools, json, os, re, subprocess, sys
build = os.environ.get('TRACELIGHT_BUILD', 'build')
S = os.path.join(build, 'samples/tracelight-sample'); C = os.path.join(build, 'app/tracelight-cli')
changes = sys.argv[1].split(',') if len(sys.argv) > 1 else ['spin-500us','spin-1ms','metadata-other-node','small-io','extra-locks','none','spin-100us']
seeds = [int(x) for x in (sys.argv[2].split(',') if len(sys.argv) > 2 else ['1','2','3'])]
sizes = sys.argv[3].split(',') if len(sys.argv) > 3 else ['1000']
work = sys.argv[4] if len(sys.argv) > 4 else '/tmp/tracelight-table3'
pooled = {}
for n, ch, seed in itertools.product(sizes, changes, seeds):
    d = os.path.join(work, f'{ch}-{seed}-{n}')
    db = d + '.tldb'
    if not os.path.exists(db):
        os.makedirs(d, exist_ok=True)
        subprocess.run([S,'--workload','storage','--change',ch,'--seed',str(seed),'--requests',n,'--out-dir',d], check=True, capture_output=True)
        subprocess.run([C,'import','--quiet','--period','baseline','--db',db,d+'/baseline.csv'], check=True)
        subprocess.run([C,'import','--quiet','--period','problem','--db',db,d+'/problem.csv'], check=True)
    extra = os.environ.get('TABLE3_ARGS', '').split()
    out = subprocess.run([C,'compare',db,'--baseline','baseline','--problem','problem','--json'] + extra, capture_output=True, text=True)
    js = json.loads(out.stdout)
    txt = subprocess.run([C,'compare',db,'--baseline','baseline','--problem','problem'] + extra, capture_output=True, text=True).stdout
    cats = int(re.search(r'(\d+) categories', txt).group(1))
    truth = {r['request']: r for r in csv.DictReader(open(d+'/truth.csv'))}
    affected = {k for k,r in truth.items() if r['period']=='problem' and r['affected']=='1'}
    ents = js['entries']
    rel = []
    false = []
    for e in ents:
        pr = e['problem_requests']
        a = sum(1 for x in pr if x in affected)
        shows = True
        if ch.startswith('spin-'):
            shows = e['kind'] == 'response_time' and any(x['to'] in ('nfs:WR_COMMIT', 'nfs:MD_WR_COMMIT') for x in e['changed_edges'])
        elif ch != 'none':
            shows = e['kind'] == 'structural' and len(e['precursors']) > 0
        rel.append(len(pr) > 0 and a / len(pr) > 0.5 and shows)
        if not rel[-1]:
            red = ','.join(x['from'].split(':')[-1] + '>' + x['to'].split(':')[-1] for x in e['changed_edges'][:3])
            false.append(f"    false: {e['kind']} category {e['category']} {e['root']} {e['baseline_count']}/{e['problem_count']} requests, "
                         f"{a} affected, p {e['p_value']:.3g} (raw {e['p_value_raw']:.3g}), {len(e['precursors'])} precursors, red [{red}]")
    top = rel[:10]
    top10 = sum(top)/len(top) if top else float('nan')
    fp = (len(rel)-sum(rel))/len(rel) if rel else 0
    cov_set = set()
    for e, r in zip(ents, rel):
        if r: cov_set.update(x for x in e['problem_requests'] if x in affected)
    cov = len(cov_set)/len(affected) if affected else float('nan')
    aa = js['aa']
    kinds = ''.join('S' if e['kind']=='structural' else 'R' for e in ents[:10])
    p = pooled.setdefault((ch, n), [0, 0, 0, 0, [], 0, 0])
    p[0] += len(top); p[1] += sum(top); p[2] += len(rel); p[3] += len(rel) - sum(rel); p[4].append(cov)
    p[5] += aa['mutations']; p[6] += aa['categories_tested']
    print(f"{ch:20s} n {n} seed {seed}: entries {len(ents):3d}/{cats:3d} cats  top10 {top10:.2f}  fp {fp:.2f}  cov {cov:.2f}  flagged {len(ents)/cats:.2f}  aa {aa['mutations']}/{aa['categories_tested']}  affected {len(affected)} {kinds} {''.join('+' if r else '-' for r in rel[:10])}")
    for line in false: print(line)
print('pooled over seeds ' + ','.join(map(str, seeds)) + ':')
for (ch, n), (tops, topRel, ents, fps, covs, aaM, aaT) in pooled.items():
    c = [x for x in covs if x == x]
    lo, hi = (f'{min(c):.2f}', f'{max(c):.2f}') if c else ('-', '-')
    cov = lo if lo == hi else f'{lo}-{hi}'
    top = f'{topRel / tops:.2f}' if tops else '-'
    print(f"{ch:20s} n {n}: top10 {top}  fp {fps}/{ents}{f' = {fps / ents:.3f}' if ents else ''}  cov {cov}  aa {aaM}/{aaT}")
