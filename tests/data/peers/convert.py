#!/usr/bin/env python3
"""Regenerates tests/data/peers/ from the peers' repositories (bare git mirrors).

jaeger-ui: packages/jaeger-ui/src/components/TracePage/CriticalPath/testCases/test1.js .. test9.js
(Apache-2.0, Copyright (c) 2023 The Jaeger Authors): each test's raw Jaeger trace becomes testN.json
(Jaeger JSON, {"data": [trace]}), its expected criticalPathSections testN.expected.json, with the
critical time per span summed from the sections.
CRISP: test_cases/*.json and test_cases/err_pattern*/ (uber-research/CRISP, Apache-2.0) are Jaeger
JSON with the expected critical time per "[service] operation" under "testing"; copied unchanged.

usage: convert.py JAEGER_UI_GIT CRISP_GIT
"""
import json, os, re, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
jaeger_git, crisp_git = sys.argv[1], sys.argv[2]
base = 'packages/jaeger-ui/src/components/TracePage/CriticalPath/testCases/'

def show(git, path):
    return subprocess.run(['git', '-C', git, 'show', 'HEAD:' + path], check=True, capture_output=True, text=True).stdout

for n in range(1, 10):
    src = show(jaeger_git, base + f'test{n}.js')
    js = re.sub(r"^import transformTraceData.*$", '', src, flags=re.M)
    def inline(m):
        rel = os.path.normpath(os.path.join(os.path.dirname(base), m.group(2)))
        return f'const {m.group(1)} = {show(jaeger_git, rel)};'
    js = re.sub(r"^import (\w+) from '([^']+\.json)';$", inline, js, flags=re.M)
    js = re.sub(r'transformTraceData\((\w+)\)', r'\1', js)
    js = js.replace('.asOtelTrace()', '')
    js = re.sub(r'export default (\w+);', r'process.stdout.write(JSON.stringify(\1));', js)
    with tempfile.NamedTemporaryFile('w', suffix='.js', delete=False) as f:
        f.write(js)
    out = json.loads(subprocess.run(['node', f.name], check=True, capture_output=True, text=True).stdout)
    os.unlink(f.name)
    trace = out['trace']
    for s in trace['spans']:
        s.setdefault('traceID', trace.get('traceID', f'test{n}'))
        # The tests' references have no traceID (undefined === undefined there); with the spans' traceIDs set,
        # Jaeger UI takes a CHILD_OF reference as the parent only if its traceID is the span's, so copy it.
        for r in s.get('references', []):
            r.setdefault('traceID', s['traceID'])
    trace.setdefault('traceID', trace['spans'][0]['traceID'])
    with open(os.path.join(here, 'jaeger-ui', f'test{n}.json'), 'w') as f:
        json.dump({'data': [trace]}, f, indent=1)
    critical = {}
    for sec in out['criticalPathSections']:
        critical[sec['spanID']] = critical.get(sec['spanID'], 0) + sec['sectionEnd'] - sec['sectionStart']
    with open(os.path.join(here, 'jaeger-ui', f'test{n}.expected.json'), 'w') as f:
        json.dump({'source': 'jaegertracing/jaeger-ui ' + base + f'test{n}.js (Apache-2.0, Copyright (c) 2023 The Jaeger Authors)',
                   'sections': out['criticalPathSections'], 'critical_us': critical}, f, indent=1)

names = subprocess.run(['git', '-C', crisp_git, 'ls-tree', '-r', 'HEAD', '--name-only', 'test_cases'], check=True,
                       capture_output=True, text=True).stdout.split()
for path in names:
    if not path.endswith('.json'):
        continue
    name = path[len('test_cases/'):].replace('/', '-')
    with open(os.path.join(here, 'crisp', name), 'w') as f:
        f.write(show(crisp_git, path))
