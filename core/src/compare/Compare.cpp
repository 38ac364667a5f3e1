#include "tracelight/compare/Compare.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <mutex>
#include <numeric>
#include <random>

#include "tracelight/analysis/RequestPass.h"
#include "tracelight/base/Parallel.h"
#include "tracelight/base/RandomSplit.h"
#include "tracelight/compare/Statistics.h"

namespace tracelight {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    // splitmix64 of the combination: order-sensitive, well spread
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h += 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

std::uint64_t stringHash(std::string_view s) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a, then mixed
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return mix(h, s.size());
}

// Successor lists of a reduced graph, and the roots, as CSR.
struct Successors {
    std::vector<std::uint32_t> begin, next, roots;
    void build(const RequestDag& dag) {
        const std::size_t n = dag.segments.size();
        begin.assign(n + 1, 0);
        for (const auto& e : dag.edges) ++begin[e.from + 1];
        for (std::size_t v = 0; v < n; ++v) begin[v + 1] += begin[v];
        next.assign(dag.edges.size(), 0);
        std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
        std::vector<bool> hasPred(n, false);
        for (const auto& e : dag.edges) {
            next[fill[e.from]++] = e.to;
            hasPred[e.to] = true;
        }
        roots.clear();
        for (std::uint32_t v = 0; v < n; ++v)
            if (!hasPred[v]) roots.push_back(v);
    }
};

// Hash of each segment's subtree, bottom up (segments in reverse time order are a reverse topological order).
void subtreeHashes(const RequestDag& dag, const Successors& s, std::span<const std::uint64_t> typeHash,
                   std::vector<std::uint64_t>& h) {
    const std::size_t n = dag.segments.size();
    h.assign(n, 0);
    const std::vector<std::uint32_t> order = timeOrder(dag);
    std::vector<std::uint64_t> kids;
    for (std::size_t k = n; k-- > 0;) {
        const std::uint32_t v = order[k];
        kids.clear();
        for (std::uint32_t i = s.begin[v]; i < s.begin[v + 1]; ++i) kids.push_back(h[s.next[i]]);
        std::sort(kids.begin(), kids.end());
        std::uint64_t x = mix(typeHash[dag.segments[v].type.value], kids.size());
        for (auto c : kids) x = mix(x, c);
        h[v] = x;
    }
}

std::uint64_t rootHash(const Successors& s, const std::vector<std::uint64_t>& h) {
    std::vector<std::uint64_t> roots;
    roots.reserve(s.roots.size());
    for (auto r : s.roots) roots.push_back(h[r]);
    std::sort(roots.begin(), roots.end());
    std::uint64_t x = mix(0x5eed, roots.size());
    for (auto c : roots) x = mix(x, c);
    return x;
}

} // namespace

RequestDag structureGraph(const RequestDag& dag, const CausalModel& model) {
    RequestDag out;
    out.segments = dag.segments;
    out.startNs = dag.startNs;
    out.endNs = dag.endNs;
    const std::size_t n = dag.segments.size();
    std::vector<DagEdge> kept;
    kept.reserve(dag.edges.size());
    bool dropped = false;
    for (const auto& e : dag.edges) {
        if (e.kind == EdgeKind::MutualExclusion || e.kind == EdgeKind::Pipeline) dropped = true;
        else kept.push_back(e);
    }
    if (dropped) {
        // Predecessors through every edge (dag.edges are sorted by target; firstEdgeTo indexes them).
        std::vector<std::uint32_t> stamp(n, UINT32_MAX), stack;
        std::uint32_t visit = 0;
        constexpr std::size_t kMaxAncestors = 512;  // bounds the work per dropped edge on huge requests
        for (const auto& e : dag.edges) {
            if (e.kind != EdgeKind::MutualExclusion && e.kind != EdgeKind::Pipeline) continue;
            ++visit;
            const SegmentTypeId target = dag.segments[e.to].type;
            stack.assign(1, e.from);
            stamp[e.from] = visit;
            std::size_t seen = 0;
            while (!stack.empty() && seen < kMaxAncestors) {
                const std::uint32_t p = stack.back();
                stack.pop_back();
                ++seen;
                if (model.happensBefore(dag.segments[p].type, target)) {
                    kept.push_back({p, e.to, EdgeKind::HappensBefore});
                    continue;  // its own ancestors are implied through it
                }
                for (std::uint32_t k = dag.firstEdgeTo[p]; k < dag.firstEdgeTo[p + 1]; ++k) {
                    const std::uint32_t q = dag.edges[k].from;
                    if (stamp[q] == visit) continue;
                    stamp[q] = visit;
                    stack.push_back(q);
                }
            }
        }
    }
    RequestDagBuilder::finish(out, std::move(kept));
    return out;
}

std::uint64_t structureHash(const RequestDag& dag, std::span<const std::uint64_t> typeNameHash) {
    Successors s;
    s.build(dag);
    std::vector<std::uint64_t> h;
    subtreeHashes(dag, s, typeNameHash, h);
    return rootHash(s, h);
}

std::string canonicalString(const RequestDag& dag, std::span<const std::string> typeNames,
                            std::span<const std::uint64_t> typeNameHash) {
    Successors s;
    s.build(dag);
    std::vector<std::uint64_t> h;
    subtreeHashes(dag, s, typeNameHash, h);
    auto ordered = [&](std::vector<std::uint32_t> v) {
        std::sort(v.begin(), v.end(), [&](std::uint32_t a, std::uint32_t b) {
            const auto& la = typeNames[dag.segments[a].type.value];
            const auto& lb = typeNames[dag.segments[b].type.value];
            if (la != lb) return la < lb;
            return h[a] < h[b];
        });
        return v;
    };
    std::string out;
    std::vector<bool> seen(dag.segments.size(), false);
    std::function<void(std::uint32_t)> walk = [&](std::uint32_t v) {
        const auto& label = typeNames[dag.segments[v].type.value];
        if (seen[v]) {
            out += '^';
            out += label;
            return;
        }
        seen[v] = true;
        out += label;
        if (s.begin[v] == s.begin[v + 1]) return;
        out += '(';
        bool first = true;
        for (auto c : ordered({s.next.begin() + s.begin[v], s.next.begin() + s.begin[v + 1]})) {
            if (!first) out += ',';
            first = false;
            walk(c);
        }
        out += ')';
    };
    bool first = true;
    for (auto r : ordered(s.roots)) {
        if (!first) out += ';';
        first = false;
        walk(r);
    }
    return out;
}

Result<RequestCategories> categorizeRequests(const InMemoryAnalysis& analysis, std::vector<std::uint32_t> rows,
                                             unsigned threads, const ProgressSink* progress, const CancelToken* cancel) {
    auto cancelled = [cancel] { return cancel && cancel->isCancelled(); };
    const TraceData& td = analysis.data;
    RequestCategories c;
    c.rows = std::move(rows);
    const std::size_t types = td.segmentTypes.size();
    c.typeNames.resize(types);
    c.typeStart.resize(types);
    c.typeEnd.resize(types);
    std::vector<std::uint64_t> typeHash(types);
    for (std::size_t t = 0; t < types; ++t) {
        const SegmentType& st = td.segmentTypes[t];
        const std::string& task = td.label(st.task.value);
        c.typeNames[t] = task + ":" + td.label(st.startEvent.value) + "->" + td.label(st.endEvent.value);
        c.typeStart[t] = task + ":" + td.label(st.startEvent.value);
        c.typeEnd[t] = task + ":" + td.label(st.endEvent.value);
        typeHash[t] = stringHash(c.typeNames[t]);
    }
    const std::size_t n = c.rows.size();
    c.category.resize(n);
    c.latencyNs.resize(n);
    c.startNs.resize(n);
    threads = resolveThreads(threads);
    struct Shard {
        std::vector<std::uint32_t> count;
        std::vector<std::uint32_t> type;
        std::vector<TimeNs> ns;
        std::unordered_map<std::uint64_t, CategoryInfo> info;
        std::size_t begin = 0;
    };
    std::vector<Shard> shards(threads);
    ShardedProgress reporter(progress, n, "categorising requests");
    forEachShard(n, threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
        RequestPass pass(analysis.model, td);
        Shard& out = shards[shard];
        out.begin = begin;
        Successors succ;
        std::vector<std::uint64_t> h;
        for (std::size_t i = begin; i < end; ++i) {
            const std::size_t r = c.rows[i];
            const RequestPassResult& result = pass.run(td.eventsOf(r), analysis.offsets, td.linksOf(r));
            const RequestDag dag = structureGraph(result.dag, analysis.model);
            succ.build(dag);
            subtreeHashes(dag, succ, typeHash, h);
            const std::uint64_t cat = rootHash(succ, h);
            c.category[i] = cat;
            c.latencyNs[i] = result.criticalPath.latencyNs;
            c.startNs[i] = result.dag.startNs;
            if (!out.info.count(cat)) {
                CategoryInfo info;
                info.canonical = canonicalString(dag, c.typeNames, typeHash);
                if (!dag.segments.empty()) {
                    // where the request starts: the start event of its earliest segment
                    std::uint32_t first = 0;
                    for (std::uint32_t v = 1; v < dag.segments.size(); ++v)
                        if (dag.segments[v].startNs < dag.segments[first].startNs) first = v;
                    info.root = c.typeStart[dag.segments[first].type.value];
                }
                out.info.emplace(cat, std::move(info));
            }
            for (auto v : result.criticalPath.segments) {
                out.type.push_back(result.dag.segments[v].type.value);
                out.ns.push_back(result.dag.segments[v].durationNs());
            }
            out.count.push_back(static_cast<std::uint32_t>(result.criticalPath.segments.size()));
            if (((i - begin) & 0xFF) == 0xFF && cancelled()) return;
            reporter.step(i - begin);
        }
    });
    if (cancelled()) return Status::error("cancelled");
    std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.begin < b.begin; });
    c.pathBegin.reserve(n + 1);
    c.pathBegin.push_back(0);
    for (auto& s : shards) {
        for (auto k : s.count) c.pathBegin.push_back(c.pathBegin.back() + k);
        c.pathType.insert(c.pathType.end(), s.type.begin(), s.type.end());
        c.pathNs.insert(c.pathNs.end(), s.ns.begin(), s.ns.end());
        for (auto& [k, v] : s.info) c.info.try_emplace(k, std::move(v));
    }
    return c;
}

std::int64_t editDistance(std::string_view a, std::string_view b) {
    if (a.size() < b.size()) std::swap(a, b);
    std::vector<std::int64_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), 0);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::int64_t diag = row[0];
        row[0] = static_cast<std::int64_t>(i);
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::int64_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

namespace {

CategoryStats statsOf(const RequestCategories& c, const std::vector<std::uint32_t>& entries) {
    CategoryStats s;
    s.count = static_cast<std::int64_t>(entries.size());
    if (entries.empty()) return s;
    double sum = 0;
    for (auto e : entries) sum += double(c.latencyNs[e]);
    s.meanNs = sum / double(entries.size());
    double sq = 0;
    for (auto e : entries) {
        const double d = double(c.latencyNs[e]) - s.meanNs;
        sq += d * d;
    }
    s.varianceNs2 = entries.size() > 1 ? sq / double(entries.size() - 1) : 0;
    return s;
}

std::vector<double> latencies(const RequestCategories& c, const std::vector<std::uint32_t>& entries) {
    std::vector<double> v;
    v.reserve(entries.size());
    for (auto e : entries) v.push_back(double(c.latencyNs[e]));
    return v;
}

// Per critical-path segment type, its time on the critical path of each request that had it there.
std::unordered_map<std::uint32_t, std::vector<double>> edgeSamples(const RequestCategories& c,
                                                                  const std::vector<std::uint32_t>& entries) {
    std::unordered_map<std::uint32_t, std::vector<double>> out;
    std::unordered_map<std::uint32_t, double> perRequest;
    for (auto e : entries) {
        perRequest.clear();
        for (auto k = c.pathBegin[e]; k < c.pathBegin[e + 1]; ++k) perRequest[c.pathType[k]] += double(c.pathNs[k]);
        for (const auto& [t, ns] : perRequest) out[t].push_back(ns);
    }
    return out;
}

double mean(const std::vector<double>& v) {
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

} // namespace

Comparison compareCategories(const RequestCategories& c, std::span<const std::uint32_t> baseline,
                             std::span<const std::uint32_t> problem, const CompareOptions& options) {
    Comparison out;
    out.baselineRequests = static_cast<std::int64_t>(baseline.size());
    out.problemRequests = static_cast<std::int64_t>(problem.size());
    std::unordered_map<std::uint64_t, std::uint32_t> index;
    auto categoryOf = [&](std::uint32_t e) -> ComparedCategory& {
        auto [it, added] = index.try_emplace(c.category[e], static_cast<std::uint32_t>(out.categories.size()));
        if (added) {
            ComparedCategory cc;
            cc.hash = c.category[e];
            auto info = c.info.find(cc.hash);
            cc.info = info == c.info.end() ? nullptr : &info->second;
            out.categories.push_back(std::move(cc));
        }
        return out.categories[it->second];
    };
    for (auto e : baseline) categoryOf(e).baselineEntries.push_back(e);
    for (auto e : problem) categoryOf(e).problemEntries.push_back(e);
    // Stable ids and order: by total count, then canonical string.
    std::sort(out.categories.begin(), out.categories.end(), [](const ComparedCategory& a, const ComparedCategory& b) {
        const auto na = a.baselineEntries.size() + a.problemEntries.size(), nb = b.baselineEntries.size() + b.problemEntries.size();
        if (na != nb) return na > nb;
        const std::string& sa = a.info ? a.info->canonical : std::string();
        const std::string& sb = b.info ? b.info->canonical : std::string();
        if (sa != sb) return sa < sb;
        return a.hash < b.hash;
    });
    for (std::uint32_t i = 0; i < out.categories.size(); ++i) {
        auto& cc = out.categories[i];
        cc.id = i + 1;
        cc.baseline = statsOf(c, cc.baselineEntries);
        cc.problem = statsOf(c, cc.problemEntries);
    }
    if (baseline.empty() || problem.empty()) return out;
    // Baseline counts scaled to the problem period's size (the paper's periods are equal in size).
    const double scale = double(problem.size()) / double(baseline.size());
    const double perRequest = 1.0 / double(problem.size());

    // Response-time mutations.
    std::vector<std::uint32_t> tested;
    std::vector<double> pValues;
    for (std::uint32_t i = 0; i < out.categories.size(); ++i) {
        const auto& cc = out.categories[i];
        if (cc.baseline.count < options.minSample || cc.problem.count < options.minSample) continue;
        tested.push_back(i);
        pValues.push_back(ksTwoSample(latencies(c, cc.baselineEntries), latencies(c, cc.problemEntries)).pValue);
    }
    out.categoriesTested = static_cast<std::int64_t>(tested.size());
    const std::vector<double> adjusted = options.benjaminiHochberg ? benjaminiHochberg(pValues) : pValues;
    for (std::size_t k = 0; k < tested.size(); ++k) {
        if (!(adjusted[k] < options.alpha)) continue;
        const auto& cc = out.categories[tested[k]];
        CompareEntry entry;
        entry.kind = CompareEntry::Kind::ResponseTime;
        entry.category = tested[k];
        entry.pValue = adjusted[k];
        entry.rawPValue = pValues[k];
        // The mutations it holds: its non-problem count (scaled), times its change in mean response time.
        entry.contributionNs = double(cc.baseline.count) * scale * (cc.problem.meanNs - cc.baseline.meanNs) * perRequest;
        auto before = edgeSamples(c, cc.baselineEntries), after = edgeSamples(c, cc.problemEntries);
        std::vector<ChangedEdge> edges;
        std::vector<double> edgeP;
        for (auto& [type, a] : before) {
            auto it = after.find(type);
            if (it == after.end()) continue;
            const auto& b = it->second;
            if (std::int64_t(a.size()) < options.minSample || std::int64_t(b.size()) < options.minSample) continue;
            ChangedEdge edge{type, mean(a), mean(b), ksTwoSample(a, b).pValue};
            edges.push_back(edge);
            edgeP.push_back(edge.pValue);
        }
        if (options.benjaminiHochberg) {
            const auto q = benjaminiHochberg(edgeP);
            for (std::size_t x = 0; x < edges.size(); ++x) edges[x].pValue = q[x];
        }
        for (auto& e : edges)
            if (e.pValue < options.alpha) entry.changedEdges.push_back(e);
        // The edge that changed the most in mean first.
        std::sort(entry.changedEdges.begin(), entry.changedEdges.end(), [](const ChangedEdge& a, const ChangedEdge& b) {
            const double da = std::fabs(a.problemMeanNs - a.baselineMeanNs), db = std::fabs(b.problemMeanNs - b.baselineMeanNs);
            if (da != db) return da > db;
            return a.type < b.type;
        });
        out.entries.push_back(std::move(entry));
    }

    // Structural mutations and precursors.
    std::vector<std::uint32_t> gained, lost;
    for (std::uint32_t i = 0; i < out.categories.size(); ++i) {
        const auto& cc = out.categories[i];
        const double change = double(cc.problem.count) - double(cc.baseline.count) * scale;
        if (change >= options.threshold) gained.push_back(i);
        else if (-change >= options.threshold) lost.push_back(i);
    }
    double overallBaselineMean = 0;
    for (const auto& cc : out.categories) overallBaselineMean += cc.baseline.meanNs * double(cc.baseline.count);
    overallBaselineMean /= double(baseline.size());
    for (auto m : gained) {
        const auto& cc = out.categories[m];
        const double gain = double(cc.problem.count) - double(cc.baseline.count) * scale;
        CompareEntry entry;
        entry.kind = CompareEntry::Kind::Structural;
        entry.category = m;
        double weighted = 0, weights = 0;
        for (auto p : lost) {
            const auto& pc = out.categories[p];
            if (!cc.info || !pc.info || pc.info->root != cc.info->root) continue;
            const double loss = double(pc.baseline.count) * scale - double(pc.problem.count);
            // 1:N: it lost at least what the mutation gained, within the threshold (counts differ by chance by
            // about that much, which is why the threshold exists; a precursor that donated every request the
            // mutation gained loses about as many, half the time a few fewer).
            if (options.oneToN && loss + options.threshold < gain) continue;
            const std::int64_t distance = editDistance(cc.info->canonical, pc.info->canonical);
            entry.precursors.push_back({p, distance});
            const double w = 1.0 / double(1 + distance);
            weighted += w * (pc.problem.count > 0 ? pc.problem.meanNs : pc.baseline.meanNs);
            weights += w;
        }
        std::sort(entry.precursors.begin(), entry.precursors.end(), [&](const PrecursorRef& a, const PrecursorRef& b) {
            if (a.editDistance != b.editDistance) return a.editDistance < b.editDistance;
            return out.categories[a.category].id < out.categories[b.category].id;
        });
        const double reference = weights > 0 ? weighted / weights : overallBaselineMean;
        entry.contributionNs = gain * (cc.problem.meanNs - reference) * perRequest;
        out.entries.push_back(std::move(entry));
    }
    std::stable_sort(out.entries.begin(), out.entries.end(), [&](const CompareEntry& a, const CompareEntry& b) {
        if (a.contributionNs != b.contributionNs) return a.contributionNs > b.contributionNs;
        return out.categories[a.category].id < out.categories[b.category].id;
    });
    return out;
}

AaResult aaSplit(const RequestCategories& c, std::span<const std::uint32_t> baseline, const CompareOptions& options) {
    const auto [a, b] = splitAtRandom(baseline, options.aaSeed);
    const Comparison cmp = compareCategories(c, a, b, options);
    return {cmp.categoriesTested, cmp.mutations()};
}

} // namespace tracelight
