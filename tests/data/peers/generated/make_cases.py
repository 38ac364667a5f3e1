#!/usr/bin/env python3
"""Generated Jaeger JSON traces and the critical time per span that Jaeger UI and CRISP give them.

Two steps (see README.md beside this file):

  make_cases.py generate
      writes the traces NAME.json (deterministic: every trace has its own fixed seed).
  make_cases.py peers JAEGER_UI_GIT CRISP_GIT [--node-modules DIR] [--work DIR]
      runs the peers' real code on every NAME.json and writes cases.json. JAEGER_UI_GIT and CRISP_GIT are
      git repositories (bare mirrors will do) of jaegertracing/jaeger-ui and uber-research/CRISP at the commits
      below. Jaeger UI's TypeScript is transpiled with typescript and run under node; it needs typescript,
      lodash and memoize-one, installed with npm into the work folder unless --node-modules names a folder that
      has them. CRISP is imported from its crisp/ folder (needs python-dateutil).
  make_cases.py all JAEGER_UI_GIT CRISP_GIT [...]
      both.

Families (the name's prefix):
  a-fanout-*   RPC trees: a client span on the caller's process with exactly one server child on another
               service and host, the server shorter than the client with unequal trips out and back; servers do
               their own work, call further servers one after another and in parallel, and run local spans.
  b-seq-*      the same trees, but consecutive steps touch exactly (next start == previous end) or overlap by a few
               microseconds of jitter.
  c-async-*    the same trees with asynchronous children added: starting after their parent ended (with their own
               subtree), outliving their parent (local or a fire-and-forget RPC), covering their parent on both sides.
  d-1k-*       about 1,000 spans, family c (10 asynchronous children);
  d-10k-*      about 10,000 spans, family a.
Small traces (a, b, c) have 5..50 spans, sizes drawn log-uniformly; nesting is 2..6 levels of steps below the root
(6 for d-*): a call adds two spans (client, server), a local span one.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
JAEGER_UI_COMMIT = 'c321fb32bbca0bdce9e8c2d40afb35abbf54c12b'
CRISP_COMMIT = '2710c0b9d52e47be91240a400ca7f85ae3a43fcf'
NPM_PACKAGES = ['typescript@5.9.3', 'lodash@4.18.1', 'memoize-one@6.0.0']
TOLERANCE_US = 0.5
EPOCH_US = 1_700_000_000_000_000  # 2023-11-14, microseconds

SERVICES = {
    'frontend': ['GET /', 'GET /dispatch', 'POST /checkout'],
    'api-gateway': ['GET /api/v1/orders', 'POST /api/v1/cart', 'GET /api/v1/search'],
    'auth': ['Authenticate', 'CheckToken'],
    'users': ['GetUser', 'GetPreferences'],
    'orders': ['GetOrders', 'CreateOrder', 'UpdateOrder'],
    'inventory': ['Reserve', 'GetStock'],
    'payments': ['Charge', 'Authorize'],
    'pricing': ['Quote', 'GetDiscounts'],
    'search': ['Query', 'Suggest'],
    'recommendations': ['Recommend'],
    'cart': ['GetCart', 'AddItem'],
    'shipping': ['Estimate', 'CreateShipment'],
    'catalog': ['GetProduct', 'ListProducts'],
    'reviews': ['GetReviews'],
    'geo': ['Nearby', 'Locate'],
    'ledger': ['Append'],
    'notifications': ['Send'],
    'session': ['Load', 'Store'],
}
LOCAL_OPS = ['SELECT', 'INSERT', 'cache.get', 'cache.set', 'serialize', 'deserialize', 'render', 'validate',
             'compute', 'lock.acquire', 'encode', 'decode']
ASYNC_OPS = ['async.flush', 'publish.audit', 'cache.refresh', 'metrics.emit', 'prefetch']


class Trace:
    """One trace being built. Times are integer microseconds; spans are dicts in Jaeger JSON's form."""

    def __init__(self, rnd, family, max_depth, seq_mode=False):
        self.rnd = rnd
        self.family = family
        self.max_depth = max_depth
        self.seq_mode = seq_mode
        self.trace_id = '%016x' % rnd.getrandbits(64)
        self.spans = []
        self.ids = set()
        self.processes = {}  # (service, host) -> processID
        self.hosts = {s: ['%s-%s' % (s, '%04x' % rnd.getrandbits(16)) for _ in range(rnd.randint(1, 3))]
                      for s in SERVICES}
        self.eligible = []  # spans that may take asynchronous children: (span, pid)

    # --- building blocks -------------------------------------------------------------------------
    def pid(self, service, host):
        key = (service, host)
        if key not in self.processes:
            self.processes[key] = 'p%d' % (len(self.processes) + 1)
        return self.processes[key]

    def span(self, op, pid, parent):
        while True:
            sid = '%016x' % self.rnd.getrandbits(64)
            if sid not in self.ids and sid != self.trace_id:
                break
        self.ids.add(sid)
        s = {'traceID': self.trace_id, 'spanID': sid, 'operationName': op,
             'references': [{'refType': 'CHILD_OF', 'traceID': self.trace_id, 'spanID': parent['spanID']}]
             if parent else [], 'startTime': 0, 'duration': 0, 'processID': pid}
        self.spans.append(s)
        return s

    def work(self, mean=150):
        """A span's own processing between two steps, at least 3 us."""
        return 3 + int(self.rnd.expovariate(1 / mean))

    def trip(self):
        """One way of a network trip: 40 us to a few ms, skewed short."""
        return 40 + int(math.exp(self.rnd.uniform(math.log(5), math.log(3000))))

    def gap(self):
        """The time between two consecutive steps of a span; in seq_mode 40% touch (0) and 30% overlap by 1..15 us."""
        if self.seq_mode:
            r = self.rnd.random()
            if r < 0.4:
                return 0
            if r < 0.7:
                return -self.rnd.randint(1, 15)
        return self.work(80)

    # --- structure -------------------------------------------------------------------------------
    def stages(self, budget, levels_left):
        """Splits a span budget into the steps of one body: a list of budgets, one per step."""
        if budget <= 0:
            return []
        if levels_left <= 0:
            return [1] * min(budget, self.rnd.randint(0, 2))
        n = max(1, round(self.rnd.uniform(0.6, 1.4) * budget ** (1 / levels_left)))
        n = min(n, budget, 60)
        weights = [self.rnd.uniform(0.3, 1.0) for _ in range(n)]
        total = sum(weights)
        parts = [max(1, int(budget * w / total)) for w in weights]
        return parts

    def body(self, owner, pid, service, t0, levels_left, budget):
        """Fills owner's body from t0: own work, steps (calls, parallel calls, local spans), own work. Returns end."""
        t = t0 + self.work()
        parts = self.stages(budget, levels_left)
        for i, part in enumerate(parts):
            if i:
                t += self.gap()
            r = self.rnd.random()
            if levels_left > 0 and part >= 4 and r < 0.3:
                k = min(self.rnd.randint(2, 5), part // 2)
                ends, start = [], t
                for j in range(k):
                    start += self.rnd.randint(1, 40) if j else 0
                    ends.append(self.call(owner, pid, service, start, levels_left - 1, part // k - 2))
                t = max(ends)
            elif levels_left > 0 and part >= 2 and r < 0.8:
                t = self.call(owner, pid, service, t, levels_left - 1, part - 2)
            else:
                t = self.local(owner, pid, service, t, levels_left - 1, part - 1)
        end = t + self.work()
        owner['startTime'], owner['duration'] = t0, end - t0
        return end

    def call(self, caller, caller_pid, caller_service, t, levels_left, budget):
        """A client span on the caller's process and its one server on another service and host."""
        target = self.rnd.choice([s for s in SERVICES if s != caller_service and s != 'frontend'])
        op = self.rnd.choice(SERVICES[target])
        client = self.span(op, caller_pid, caller)
        host = self.rnd.choice(self.hosts[target])
        spid = self.pid(target, host)
        server = self.span(op, spid, client)
        out = self.trip()
        back = self.trip()
        while back == out:
            back = self.trip()
        server_end = self.body(server, spid, target, t + out, levels_left, max(0, budget))
        self.eligible.append((server, spid, target))
        client['startTime'], client['duration'] = t, server_end + back - t
        self.last_client = client
        return server_end + back

    def local(self, parent, pid, service, t, levels_left, budget):
        """A span on the parent's own process: a leaf (a query, a cache access) or a step with steps of its own."""
        s = self.span(self.rnd.choice(LOCAL_OPS), pid, parent)
        if budget <= 0 or levels_left <= 0:
            s['startTime'], s['duration'] = t, 5 + int(self.rnd.expovariate(1 / 400))
            return t + s['duration']
        self.eligible.append((s, pid, service))
        return self.body(s, pid, service, t, levels_left, budget)

    def build(self, size):
        service = 'frontend'
        pid = self.pid(service, self.rnd.choice(self.hosts[service]))
        root = self.span(self.rnd.choice(SERVICES[service]), pid, None)
        t0 = EPOCH_US + self.rnd.randrange(30 * 86400 * 10**6)
        self.eligible.append((root, pid, service))
        self.body(root, pid, service, t0, self.max_depth, size - 1)
        return root

    # --- asynchronous children -------------------------------------------------------------------
    def add_async(self, count):
        """Adds count asynchronous children to spans of the tree (servers, local spans with steps, the root):
        after (starts after its parent ended; a local span with its own steps, or a fire-and-forget call),
        outlive (starts inside, ends after its parent; local or a call), cover (starts before and ends after)."""
        shapes = ['after', 'after-rpc', 'outlive', 'outlive-rpc', 'cover']
        done = []
        for _ in range(count):
            parent, pid, service = self.rnd.choice(self.eligible)
            shape = self.rnd.choice(shapes)
            ps, pe = parent['startTime'], parent['startTime'] + parent['duration']
            if shape == 'cover':
                s = self.span(self.rnd.choice(ASYNC_OPS), pid, parent)
                s['startTime'] = ps - self.rnd.randint(1, 300)
                s['duration'] = pe + self.rnd.randint(1, 300) - s['startTime']
            else:
                if shape.startswith('after'):
                    t = pe + self.rnd.randint(1, 2000)
                else:
                    t = ps + int(parent['duration'] * self.rnd.uniform(0.3, 0.95))
                if shape.endswith('rpc'):
                    self.call(parent, pid, service, t, 1, self.rnd.randint(0, 3))
                    s = self.last_client
                else:
                    s = self.span(self.rnd.choice(ASYNC_OPS), pid, parent)
                    self.body(s, pid, service, t, 1, self.rnd.randint(0, 2))
                if shape.startswith('outlive') and s['startTime'] + s['duration'] <= pe:
                    # stretch its own tail (or the trip back of the call) past the parent's end
                    s['duration'] = pe + self.rnd.randint(1, 3000) - s['startTime']
            done.append(shape)
        return done

    def dump(self):
        spans = list(self.spans)
        self.rnd.shuffle(spans)  # Jaeger's JSON has no order
        procs = {}
        for (service, host), pid in sorted(self.processes.items(), key=lambda kv: int(kv[1][1:])):
            procs[pid] = {'serviceName': service, 'tags': [{'key': 'hostname', 'type': 'string', 'value': host}]}
        return {'data': [{'traceID': self.trace_id, 'spans': spans, 'processes': procs}]}


# --- the traces ---------------------------------------------------------------------------------------
def make_trace(seed, family, lo, hi, max_depth=None, n_async=0, seq_mode=False):
    """A trace of lo..hi spans: builds again with the same generator (and a budget scaled to the size it got)
    until the size fits."""
    rnd = random.Random(seed)
    top = max(lo, hi - 4 * n_async)
    target = int(math.exp(rnd.uniform(math.log(lo), math.log(top + 1)))) if hi <= 100 else rnd.randint(lo, top)
    budget = target
    while True:
        t = Trace(rnd, family, max_depth or rnd.randint(2, 6), seq_mode)
        t.build(budget)
        shapes = t.add_async(n_async) if n_async else []
        if lo <= len(t.spans) <= hi:
            return t, shapes
        budget = max(lo, min(3 * target, int(budget * target / len(t.spans) + 0.5)))


def plan():
    """(name, seed, kwargs) of every trace; seeds are fixed, so the traces are too."""
    out = []
    for i in range(N_SMALL):
        out.append(('a-fanout-%03d' % i, 1000 + i, dict(family='a', lo=5, hi=50)))
    for i in range(N_SMALL):
        out.append(('b-seq-%03d' % i, 2000 + i, dict(family='b', lo=5, hi=50, seq_mode=True)))
    for i in range(N_SMALL):
        out.append(('c-async-%03d' % i, 3000 + i, dict(family='c', lo=5, hi=50, n_async=1 + i % 3)))
    for i in range(N_1K):
        out.append(('d-1k-%02d' % i, 4000 + i, dict(family='c', lo=900, hi=1100, max_depth=6, n_async=10)))
    for i in range(N_10K):
        out.append(('d-10k-%d' % i, 5000 + i, dict(family='a', lo=9500, hi=10500, max_depth=6)))
    return out


# About 240 bytes a span in compact JSON: these counts keep the folder near 3 MB (a 10k trace alone is 2.3 MB).
N_SMALL = 40  # per family a, b, c
N_1K = 1
N_10K = 1


def generate():
    names = []
    for name, seed, kw in plan():
        t, _ = make_trace(seed, **kw)
        with open(os.path.join(HERE, name + '.json'), 'w') as f:
            json.dump(t.dump(), f, separators=(',', ':'))
            f.write('\n')
        names.append(name)
    return names


# --- the peers -----------------------------------------------------------------------------------------
BUILD_JS = r"""
// Transpiles the jaeger-ui sources the critical path needs (TypeScript -> CommonJS); getConfig is stubbed (it
// only orders tags).
const ts = require('typescript'), fs = require('fs'), path = require('path');
const SRC = path.join(__dirname, 'src/packages/jaeger-ui/src'), OUT = path.join(__dirname, 'out');
const stubs = { 'utils/config/get-config': "module.exports = { __esModule: true, default: () => ({ topTagPrefixes: [] }) };" };
const done = new Set();
function resolve(rel) {
  for (const ext of ['.ts', '.tsx', '/index.ts', '/index.tsx', '.js']) if (fs.existsSync(path.join(SRC, rel + ext))) return rel + ext;
  throw new Error('cannot resolve ' + rel);
}
function build(rel) {
  if (done.has(rel)) return; done.add(rel);
  const outFile = path.join(OUT, rel + '.js'); fs.mkdirSync(path.dirname(outFile), { recursive: true });
  if (stubs[rel]) { fs.writeFileSync(outFile, stubs[rel]); return; }
  const file = resolve(rel), text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020,
                                                           esModuleInterop: true, jsx: ts.JsxEmit.React } }).outputText;
  fs.writeFileSync(outFile, js);
  for (const m of js.matchAll(/require\("(\.[^"]+)"\)/g)) build(path.normalize(path.join(path.dirname(rel), m[1])));
}
build('components/TracePage/CriticalPath/index');
build('model/transform-trace-data');
"""

RUN_JS = r"""
// Jaeger UI's critical path on each file: transformTraceData(trace).asOtelTrace(), then the CriticalPath
// component's default export; the critical time of a span is the sum of its sections' lengths.
const fs = require('fs');
const transformTraceData = require('./out/model/transform-trace-data.js').default;
const criticalPath = require('./out/components/TracePage/CriticalPath/index.js').default;
console.error = () => {}; console.warn = () => {};
const [outFile, ...files] = process.argv.slice(2);
const out = {};
for (const f of files) {
  const trace = JSON.parse(fs.readFileSync(f, 'utf8')).data[0];
  const res = criticalPath(transformTraceData(trace).asOtelTrace());
  const critical = {};
  for (const sec of res.sections) critical[sec.spanID] = (critical[sec.spanID] || 0) + sec.sectionEnd - sec.sectionStart;
  out[f] = { failed: res.failed, errors: res.errors.map(e => String(e).slice(0, 200)), sections: res.sections.length,
             critical_us: critical };
}
fs.writeFileSync(outFile, JSON.stringify(out));
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def extract(git, commit, path, dest):
    os.makedirs(dest, exist_ok=True)
    archive = subprocess.run(['git', '-C', git, 'archive', commit, path], check=True, capture_output=True).stdout
    sh(['tar', '-x', '-C', dest], input=archive)


def run_jaeger_ui(jaeger_git, work, node_modules, paths):
    jui = os.path.join(work, 'jui')
    if not os.path.isdir(os.path.join(jui, 'out')):
        extract(jaeger_git, JAEGER_UI_COMMIT, 'packages/jaeger-ui/src', os.path.join(jui, 'src'))
        if node_modules:
            os.symlink(os.path.abspath(node_modules), os.path.join(jui, 'node_modules'))
        else:
            with open(os.path.join(jui, 'package.json'), 'w') as f:
                f.write('{"private": true}\n')
            sh(['npm', 'install', '--no-audit', '--no-fund', '--prefix', jui] + NPM_PACKAGES, stdout=subprocess.DEVNULL)
        with open(os.path.join(jui, 'build.js'), 'w') as f:
            f.write(BUILD_JS)
        sh(['node', os.path.join(jui, 'build.js')])
    with open(os.path.join(jui, 'run.js'), 'w') as f:
        f.write(RUN_JS)
    out = os.path.join(work, 'jaeger_ui.json')
    # The walk recurses once per section (a 10k-span trace: some 6,000 deep); node's default stack (984 KB) is
    # just enough for d-10k-0 on its own but not always (it failed in one batch run, after other traces), so a
    # bigger one: the code and its results are the same, only "Maximum call stack size exceeded" is avoided.
    sh(['node', '--stack-size=4000', os.path.join(jui, 'run.js'), out] + paths)
    with open(out) as f:
        return json.load(f)


def run_crisp(crisp_git, work, paths):
    """CRISP as crisp/process_trace.py's process() runs it: Graph(data, service, operation, file, rootTrace=False)
    on the root span's service and operation (extract_root_span_metadata), findCriticalPath(), then
    accumeCPMetrics(), whose second result is the exclusive critical time per span id (sidTimeExclusive)."""
    src = os.path.join(work, 'crisp_src')
    if not os.path.isdir(os.path.join(src, 'crisp')):
        extract(crisp_git, CRISP_COMMIT, 'crisp', src)
    sys.path.insert(0, src)
    import logging
    from crisp.graph import Graph, extract_root_span_metadata
    logging.disable(logging.CRITICAL)
    out = {}
    for p in paths:
        with open(p) as f:
            data = json.load(f)
        service, operation = extract_root_span_metadata(data)
        g = Graph(data, service, operation, p, False)
        if g.rootNode is None:
            out[p] = {}
            continue
        cp = g.findCriticalPath()
        _, sid_excl = g.accumeCPMetrics(cp, 'trace', g.rootNode)
        out[p] = dict(sid_excl)
    return out


def num(v):
    return int(v) if float(v).is_integer() else v


def peers(jaeger_git, crisp_git, work, node_modules):
    names = [name for name, _, _ in plan()]
    paths = [os.path.join(HERE, n + '.json') for n in names]
    jui = run_jaeger_ui(jaeger_git, work, node_modules, paths)
    crisp = run_crisp(crisp_git, work, paths)
    cases, stats = [], dict(traces=0, spans=0, agree=0, span_agree=0)
    for n, p in zip(names, paths):
        with open(p) as f:
            span_ids = [s['spanID'] for s in json.load(f)['data'][0]['spans']]
        j, c = jui[p]['critical_us'], crisp[p]
        both, differs = {}, []
        for sid in span_ids:
            a, b = j.get(sid, 0), c.get(sid, 0)
            if abs(a - b) <= TOLERANCE_US:
                if a:
                    both[sid] = num(a)
            else:
                differs.append(sid)
        agree = not differs and not jui[p]['failed']
        case = {'file': n, 'agree': agree, 'critical_us': dict(sorted(both.items()))}
        if not agree:  # each peer's time on the spans where they differ (0 included)
            case['jaeger_ui'] = {k: num(j.get(k, 0)) for k in sorted(differs)}
            case['crisp'] = {k: num(c.get(k, 0)) for k in sorted(differs)}
            if jui[p]['failed']:
                case['jaeger_ui_failed'] = jui[p]['errors']
        cases.append(case)
        stats['traces'] += 1
        stats['spans'] += len(span_ids)
        stats['agree'] += agree
        stats['span_agree'] += len(span_ids) - len(differs)
    with open(os.path.join(HERE, 'cases.json'), 'w') as f:
        f.write('[\n' + ',\n'.join(json.dumps(c, separators=(',', ':')) for c in cases) + '\n]\n')
    return stats


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('step', choices=['generate', 'peers', 'all'])
    ap.add_argument('jaeger_ui_git', nargs='?')
    ap.add_argument('crisp_git', nargs='?')
    ap.add_argument('--node-modules', help='a folder with typescript, lodash and memoize-one (else npm installs them)')
    ap.add_argument('--work', help='work folder for the peers\' code (default: a temporary one)')
    a = ap.parse_args()
    if a.step in ('generate', 'all'):
        names = generate()
        spans = sum(len(json.load(open(os.path.join(HERE, n + '.json')))['data'][0]['spans']) for n in names)
        print(f'{len(names)} traces, {spans} spans')
    if a.step in ('peers', 'all'):
        if not a.jaeger_ui_git or not a.crisp_git:
            ap.error('peers needs JAEGER_UI_GIT and CRISP_GIT')
        work = a.work or tempfile.mkdtemp(prefix='make_cases.')
        s = peers(a.jaeger_ui_git, a.crisp_git, work, a.node_modules)
        print(f"{s['traces']} traces, {s['spans']} spans; the peers agree on {s['agree']} traces and on "
              f"{s['span_agree']} spans ({s['span_agree'] / s['spans']:.4f})")


if __name__ == '__main__':
    main()
