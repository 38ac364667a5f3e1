#include "tracelight/compare/Compare.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <unordered_set>

#include "tracelight/analysis/RequestPass.h"
#include "tracelight/analysis/Segments.h"
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
    std::vector<std::uint32_t> scratch;
    const auto order = topologicalOrder(dag, scratch);
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
    c.localStartNs.resize(n);
    const ClockOffsets recorded = ClockOffsets::none(td.hostLabels.size());
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
        std::vector<SegmentInstance> scratch;
        for (std::size_t i = begin; i < end; ++i) {
            const std::size_t r = c.rows[i];
            const RequestPassResult& result = pass.run(td, r, analysis.offsets);
            const RequestDag dag = structureGraph(result.dag, analysis.model);
            succ.build(dag);
            subtreeHashes(dag, succ, typeHash, h);
            const std::uint64_t cat = rootHash(succ, h);
            c.category[i] = cat;
            c.latencyNs[i] = result.criticalPath.latencyNs;
            c.startNs[i] = result.dag.startNs;
            // As requestTimelines starts it on local clocks: kept beside, so the toggle needs no new pass.
            c.localStartNs[i] = buildSegments(td.eventsOf(r), recorded, scratch).startNs;
            if (!out.info.count(cat)) {
                CategoryInfo info;
                info.canonical = canonicalString(dag, c.typeNames, typeHash);
                // Where the request starts and what it does first: the start events along its entry's own thread
                // of control from its first root (CategoryInfo::lead). A segment's only successor continues it;
                // past a fork (or with several roots) only the successor on the same task does, since the order of
                // concurrent work is an interleaving, not the request's type.
                if (!succ.roots.empty()) {
                    std::uint32_t v = succ.roots.front();
                    for (auto r : succ.roots)
                        if (dag.segments[r].startNs < dag.segments[v].startNs) v = r;
                    auto taskOf = [&](std::uint32_t x) { return td.segmentTypes[dag.segments[x].type.value].task; };
                    while (info.lead.size() < 16) {
                        info.lead.push_back(c.typeStart[dag.segments[v].type.value]);
                        const std::uint32_t from = succ.begin[v], to = succ.begin[v + 1];
                        if (to == from) break;
                        if (succ.roots.size() == 1 && to - from == 1) {
                            v = succ.next[from];
                            continue;
                        }
                        std::uint32_t same = UINT32_MAX, sameCount = 0;
                        for (std::uint32_t k = from; k < to; ++k)
                            if (taskOf(succ.next[k]) == taskOf(v)) same = succ.next[k], ++sameCount;
                        if (sameCount != 1) break;
                        v = same;
                    }
                }
                out.info.emplace(cat, std::move(info));
            }
            const CriticalPath& path = result.criticalPath;
            forEachPathPart(result.dag.segments, path.segments, path.clips, [&](std::uint32_t v, TimeNs from, TimeNs to) {
                out.type.push_back(result.dag.segments[v].type.value);
                out.ns.push_back(to - from);
            });
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

// Count, mean and sample variance of values (two passes: no cancellation on large latencies).
CategoryStats statsOfValues(const std::vector<double>& v) {
    CategoryStats s;
    s.count = static_cast<std::int64_t>(v.size());
    if (v.empty()) return s;
    s.meanNs = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
    double sq = 0;
    for (double x : v) sq += (x - s.meanNs) * (x - s.meanNs);
    s.varianceNs2 = v.size() > 1 ? sq / double(v.size() - 1) : 0;
    return s;
}

} // namespace

std::vector<EdgeStats> edgeStatistics(const RequestCategories& c, std::span<const std::uint32_t> entries) {
    const std::vector<std::uint32_t> list(entries.begin(), entries.end());
    std::vector<EdgeStats> out;
    for (const auto& [type, samples] : edgeSamples(c, list)) out.push_back({type, statsOfValues(samples)});
    std::sort(out.begin(), out.end(), [](const EdgeStats& a, const EdgeStats& b) { return a.type < b.type; });
    return out;
}

std::vector<CategoryEdgeStats> categoryEdgeStatistics(const RequestCategories& c, const ComparedCategory& category) {
    std::map<std::uint32_t, CategoryEdgeStats> byType;
    for (const EdgeStats& e : edgeStatistics(c, category.baselineEntries)) byType[e.type].baseline = e.stats;
    for (const EdgeStats& e : edgeStatistics(c, category.problemEntries)) byType[e.type].problem = e.stats;
    std::vector<CategoryEdgeStats> out;
    for (auto& [type, stats] : byType) {
        stats.type = type;
        out.push_back(stats);
    }
    return out;
}

Status choosePrecursor(const Comparison& comparison, CompareEntry& entry, std::uint32_t categoryId) {
    std::string candidates;
    for (std::size_t k = 0; k < entry.precursors.size(); ++k) {
        const std::uint32_t id = comparison.categories[entry.precursors[k].category].id;
        if (id == categoryId) {
            entry.chosenPrecursor = k;
            return Status::ok();
        }
        candidates += (candidates.empty() ? "" : ", ") + std::to_string(id);
    }
    const std::uint32_t self = entry.category < comparison.categories.size() ? comparison.categories[entry.category].id : 0;
    if (entry.precursors.empty())
        return Status::error("category " + std::to_string(categoryId) + " is not a candidate precursor of category " + std::to_string(self) +
                             ": it has none" + (entry.kind == CompareEntry::Kind::ResponseTime ? " (a response-time mutation is compared with its own baseline)" : ""));
    return Status::error("category " + std::to_string(categoryId) + " is not a candidate precursor of category " + std::to_string(self) +
                         " (its candidates: " + candidates + ")");
}

Comparison compareCategories(const RequestCategories& c, std::span<const std::uint32_t> baseline,
                             std::span<const std::uint32_t> problem, const CompareOptions& options) {
    Comparison out;
    using Clock = std::chrono::steady_clock;
    auto mark = Clock::now();
    auto lap = [&mark] {
        const auto now = Clock::now();
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - mark).count();
        mark = now;
        return static_cast<std::int64_t>(ns);
    };
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
        cc.baseline = statsOfValues(latencies(c, cc.baselineEntries));
        cc.problem = statsOfValues(latencies(c, cc.problemEntries));
    }
    {
        std::vector<double> before, after;
        for (const auto& cc : out.categories) {
            if (cc.baseline.count >= options.minSample) before.push_back(cc.baseline.varianceNs2);
            if (cc.problem.count >= options.minSample) after.push_back(cc.problem.varianceNs2);
        }
        out.variance.baselineCategories = static_cast<std::int64_t>(before.size());
        out.variance.problemCategories = static_cast<std::int64_t>(after.size());
        if (!before.empty() && !after.empty()) {
            const KsResult ks = ksTwoSample(before, after);
            out.variance = {out.variance.baselineCategories, out.variance.problemCategories, true, ks.d, ks.pValue};
        }
    }
    std::vector<const CategoryInfo*> infos;
    infos.reserve(out.categories.size());
    for (const auto& cc : out.categories) infos.push_back(cc.info);
    const std::vector<std::string> types = requestTypes(infos);
    for (std::size_t i = 0; i < out.categories.size(); ++i) out.categories[i].root = types[i];
    if (baseline.empty() || problem.empty()) return out;
    // Baseline counts scaled to the problem period's size (the paper's periods are equal in size).
    const double scale = double(problem.size()) / double(baseline.size());
    const double perRequest = 1.0 / double(problem.size());

    // Response-time mutations. A category's behaviour changed when its response times did, or the latency of
    // one of its critical-path edges did (the paper tests edges to localise a mutation; a change confined to
    // one edge is found there long before the whole response time, whose other edges' variance hides it). All
    // these tests, over every category with enough requests, are one family corrected for multiplicity.
    struct Test {
        std::uint32_t category;
        std::int32_t edge;  // index into that category's edges; -1: its response time
    };
    std::vector<Test> tests;
    std::vector<double> pValues;
    std::unordered_map<std::uint32_t, std::vector<ChangedEdge>> edgesOf;
    std::int64_t tested = 0;
    for (std::uint32_t i = 0; i < out.categories.size(); ++i) {
        const auto& cc = out.categories[i];
        if (cc.baseline.count < options.minSample || cc.problem.count < options.minSample) continue;
        ++tested;
        tests.push_back({i, -1});
        pValues.push_back(ksTwoSample(latencies(c, cc.baselineEntries), latencies(c, cc.problemEntries)).pValue);
        auto before = edgeSamples(c, cc.baselineEntries), after = edgeSamples(c, cc.problemEntries);
        auto& edges = edgesOf[i];
        for (auto& [type, a] : before) {
            auto it = after.find(type);
            if (it == after.end()) continue;
            const auto& b = it->second;
            if (std::int64_t(a.size()) < options.minSample || std::int64_t(b.size()) < options.minSample) continue;
            const CategoryStats sa = statsOfValues(a), sb = statsOfValues(b);
            edges.push_back({type, sa.meanNs, sb.meanNs, ksTwoSample(a, b).pValue, sa.varianceNs2, sb.varianceNs2});
        }
        std::sort(edges.begin(), edges.end(), [](const ChangedEdge& a, const ChangedEdge& b) { return a.type < b.type; });
        for (std::size_t x = 0; x < edges.size(); ++x) {
            tests.push_back({i, static_cast<std::int32_t>(x)});
            pValues.push_back(edges[x].pValue);
        }
    }
    out.categoriesTested = tested;

    // Structural mutations and precursors: a category whose count changed by at least the threshold, and by
    // more than chance allows. Under a similar workload a request falls in a category with the same probability
    // in both periods, so the category's problem count, given its count in both, is binomial with the problem
    // period's share of all requests.
    const double problemShare = double(problem.size()) / double(baseline.size() + problem.size());
    std::vector<std::uint32_t> counted;
    for (std::uint32_t i = 0; i < out.categories.size(); ++i) {
        auto& cc = out.categories[i];
        const std::int64_t n = cc.baseline.count + cc.problem.count;
        cc.countPValue = binomialTwoSided(cc.problem.count, n, problemShare);
        if (binomialMinimumP(n, problemShare) < options.alpha) counted.push_back(i);
    }
    // The KS tests and the count tests are one family: every entry of the list is one of its rejections, so the
    // chance of any false entry (Holm), or their expected share (Benjamini-Hochberg), is at most alpha over the
    // whole list. A count test too small ever to reach its share of alpha only dilutes the family (Tarone): the
    // family is the smallest size K such that the KS tests and the count tests able to reach alpha / K number at
    // most K.
    {
        std::vector<double> minimum;
        for (auto i : counted) {
            const auto& cc = out.categories[i];
            minimum.push_back(binomialMinimumP(cc.baseline.count + cc.problem.count, problemShare));
        }
        std::sort(minimum.begin(), minimum.end());
        auto members = [&](std::size_t family) {
            const auto able = std::upper_bound(minimum.begin(), minimum.end(), options.alpha / double(family));
            return pValues.size() + std::size_t(able - minimum.begin());
        };
        std::size_t family = std::max<std::size_t>(1, pValues.size());
        while (members(family) > family) ++family;
        std::erase_if(counted, [&](std::uint32_t i) {
            const auto& cc = out.categories[i];
            return binomialMinimumP(cc.baseline.count + cc.problem.count, problemShare) > options.alpha / double(family);
        });
    }
    std::vector<double> familyP = pValues;
    for (auto i : counted) familyP.push_back(out.categories[i].countPValue);
    const std::vector<double> all = options.paperStatistics ? familyP  // each test at alpha, as the paper
                                    : options.benjaminiHochberg      ? benjaminiHochberg(familyP)
                                                                     : holm(familyP);
    const std::span<const double> adjusted(all.data(), pValues.size());
    const std::span<const double> countAdjusted(all.data() + pValues.size(), counted.size());
    out.timings.testsNs = lap();

    // The paper marks a category by its response-time test alone, and tests its edges only to find the red ones;
    // the corrected statistics let an edge mark it too (a change confined to one edge is found there first).
    std::unordered_set<std::uint32_t> responseRejected;
    for (std::size_t k = 0; k < tests.size(); ++k)
        if (tests[k].edge < 0 && adjusted[k] < options.alpha) responseRejected.insert(tests[k].category);
    std::unordered_map<std::uint32_t, std::size_t> entryOf;
    for (std::size_t k = 0; k < tests.size(); ++k) {
        if (!(adjusted[k] < options.alpha)) continue;
        const std::uint32_t i = tests[k].category;
        if (options.paperStatistics && !responseRejected.count(i)) continue;
        auto [it, added] = entryOf.try_emplace(i, out.entries.size());
        if (added) {
            const auto& cc = out.categories[i];
            CompareEntry entry;
            entry.kind = CompareEntry::Kind::ResponseTime;
            entry.category = i;
            entry.pValue = 2;  // the smallest of its tests', below
            // The mutations it holds: its non-problem count (scaled), times its change in mean response time.
            entry.contributionNs = double(cc.baseline.count) * scale * (cc.problem.meanNs - cc.baseline.meanNs) * perRequest;
            out.entries.push_back(std::move(entry));
        }
        CompareEntry& entry = out.entries[it->second];
        if (adjusted[k] < entry.pValue && (!options.paperStatistics || tests[k].edge < 0)) {
            entry.pValue = adjusted[k];
            entry.rawPValue = pValues[k];
        }
        if (tests[k].edge >= 0) {
            ChangedEdge edge = edgesOf[i][static_cast<std::size_t>(tests[k].edge)];
            edge.pValue = adjusted[k];
            entry.changedEdges.push_back(edge);
        }
    }
    // Where a found category changed: its edges again, in it alone. Selected by the family above, the R found of
    // the m categories tested have their own edges tested at alpha R / m (Benjamini and Bogomolov's selective
    // inference over families), so that an edge the whole family's correction hid is red in the category it
    // explains (a spin of 100 us flags a category by its response time, while its commit edge, one of
    // hundreds of edges in the family, stayed black). The paper tests a found category's edges uncorrected.
    if (!options.paperStatistics && tested > 0) {
        std::unordered_map<std::uint32_t, std::vector<std::size_t>> testsOf;  // a found category's edge tests
        for (std::size_t k = 0; k < tests.size(); ++k)
            if (tests[k].edge >= 0 && entryOf.count(tests[k].category)) testsOf[tests[k].category].push_back(k);
        const double selected = double(entryOf.size()) / double(tested);
        for (auto& [category, ks] : testsOf) {
            std::vector<double> raw;
            for (auto k : ks) raw.push_back(pValues[k]);
            const std::vector<double> within = options.benjaminiHochberg ? benjaminiHochberg(raw) : holm(raw);
            CompareEntry& entry = out.entries[entryOf[category]];
            for (std::size_t j = 0; j < ks.size(); ++j) {
                const double p = std::min(1.0, within[j] / selected);  // against alpha, as the family's
                if (!(p < options.alpha) || adjusted[ks[j]] < options.alpha) continue;  // not red, or red already
                ChangedEdge edge = edgesOf[category][static_cast<std::size_t>(tests[ks[j]].edge)];
                edge.pValue = p;
                entry.changedEdges.push_back(edge);
            }
        }
    }
    for (auto& entry : out.entries)  // the edge that changed the most in mean first
        std::sort(entry.changedEdges.begin(), entry.changedEdges.end(), [](const ChangedEdge& a, const ChangedEdge& b) {
            const double da = std::fabs(a.problemMeanNs - a.baselineMeanNs), db = std::fabs(b.problemMeanNs - b.baselineMeanNs);
            if (da != db) return da > db;
            return a.type < b.type;
        });

    // A mutation gained at least the threshold, significantly; a precursor, only a candidate donor to a mutation
    // found so, lost at least the threshold (the paper's rule), and the 1:N rule and edit distance judge it.
    std::vector<std::uint32_t> gained, lost;
    std::unordered_map<std::uint32_t, double> structuralP;
    if (options.paperStatistics) {
        // The paper's rule: the threshold alone.
        for (std::uint32_t i = 0; i < out.categories.size(); ++i) {
            const auto& cc = out.categories[i];
            if (double(cc.problem.count) - double(cc.baseline.count) * scale < options.threshold) continue;
            gained.push_back(i);
            structuralP[i] = cc.countPValue;
        }
    } else {
        for (std::size_t k = 0; k < counted.size(); ++k) {
            if (!(countAdjusted[k] < options.alpha)) continue;
            const std::uint32_t i = counted[k];
            const auto& cc = out.categories[i];
            if (double(cc.problem.count) - double(cc.baseline.count) * scale < options.threshold) continue;
            gained.push_back(i);
            structuralP[i] = countAdjusted[k];
        }
    }
    std::sort(gained.begin(), gained.end());
    for (std::uint32_t i = 0; i < out.categories.size(); ++i) {
        const auto& cc = out.categories[i];
        if (double(cc.baseline.count) * scale - double(cc.problem.count) >= options.threshold) lost.push_back(i);
    }
    double overallBaselineMean = 0;
    for (const auto& cc : out.categories) overallBaselineMean += cc.baseline.meanNs * double(cc.baseline.count);
    overallBaselineMean /= double(baseline.size());
    // The normal quantile of 1 - a (bisection on the survival function erfc(z / sqrt 2) / 2).
    auto normalQuantile = [](double a) {
        double z = 0;
        for (double lo = 0, hi = 40; hi - lo > 1e-9;) {
            z = (lo + hi) / 2;
            (0.5 * std::erfc(z / std::sqrt(2.0)) > a ? lo : hi) = z;
        }
        return z;
    };
    // Each mutation's candidates: same root, since requests of another type cannot have been donated.
    std::vector<std::vector<std::uint32_t>> candidatesOf(gained.size());
    std::size_t pairs = 0;
    for (std::size_t g = 0; g < gained.size(); ++g) {
        const auto& cc = out.categories[gained[g]];
        for (auto p : lost)
            if (out.categories[p].root == cc.root && out.categories[p].info && cc.info) candidatesOf[g].push_back(p);
        pairs += candidatesOf[g].size();
    }
    // 1:N: a precursor lost at least what the mutation gained, up to chance. One that donated every request the
    // mutation gained loses as many only on average: the gain less the loss is the difference of the two periods'
    // draws of the same counts, about normal with the counts' (Poisson) variance. A candidate is dropped when it
    // falls short by more than that allows at alpha, one-sided, Bonferroni-corrected over every mutation's
    // candidates (each is a test, and dropping a true donor anywhere in the list, which leaves its mutation
    // without a precursor, is the error to bound).
    const double shortfallZ = normalQuantile(options.alpha / double(std::max<std::size_t>(1, pairs)));
    for (std::size_t g = 0; g < gained.size(); ++g) {
        const std::uint32_t m = gained[g];
        const auto& cc = out.categories[m];
        const double gain = double(cc.problem.count) - double(cc.baseline.count) * scale;
        CompareEntry entry;
        entry.kind = CompareEntry::Kind::Structural;
        entry.category = m;
        entry.pValue = structuralP[m];
        entry.rawPValue = cc.countPValue;
        const std::vector<std::uint32_t>& candidates = candidatesOf[g];
        double weighted = 0, weights = 0;
        for (auto p : candidates) {
            const auto& pc = out.categories[p];
            const double loss = double(pc.baseline.count) * scale - double(pc.problem.count);
            const double variance = scale * scale * double(pc.baseline.count + cc.baseline.count) + double(pc.problem.count + cc.problem.count);
            if (options.oneToN && gain - loss > shortfallZ * std::sqrt(variance)) continue;
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
    out.timings.precursorsNs = lap();
    std::stable_sort(out.entries.begin(), out.entries.end(), [&](const CompareEntry& a, const CompareEntry& b) {
        if (a.contributionNs != b.contributionNs) return a.contributionNs > b.contributionNs;
        return out.categories[a.category].id < out.categories[b.category].id;
    });
    out.timings.rankingNs = lap();
    return out;
}

std::vector<std::string> requestTypes(std::span<const CategoryInfo* const> infos) {
    std::size_t common = SIZE_MAX;
    const CategoryInfo* first = nullptr;
    for (const CategoryInfo* info : infos) {
        if (!info) continue;
        if (!first) {
            first = info;
            common = first->lead.size();
            continue;
        }
        std::size_t k = 0;
        while (k < common && k < info->lead.size() && info->lead[k] == first->lead[k]) ++k;
        common = k;
    }
    std::vector<std::string> out(infos.size());
    for (std::size_t i = 0; i < infos.size(); ++i)
        if (infos[i] && !infos[i]->lead.empty()) out[i] = infos[i]->lead[std::min(common, infos[i]->lead.size() - 1)];
    return out;
}

AaResult aaSplit(const RequestCategories& c, std::span<const std::uint32_t> baseline, const CompareOptions& options) {
    const auto [a, b] = splitAtRandom(baseline, options.aaSeed);
    const Comparison cmp = compareCategories(c, a, b, options);
    return {cmp.categoriesTested, cmp.mutations()};
}

} // namespace tracelight
