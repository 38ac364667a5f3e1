#include "tracelight/analysis/RequestDag.h"

#include <algorithm>
#include <numeric>

namespace tracelight {

RequestDagBuilder::RequestDagBuilder(const CausalModel& model, const TraceData& data)
    : m_model(model), m_local(std::max(data.segmentTypes.size(), model.typeCount()), -1) {}

RequestDagBuilder::RequestDagBuilder(const CausalModel& model) : m_model(model), m_local(model.typeCount(), -1) {}

std::vector<std::uint32_t> timeOrder(const RequestDag& dag) {
    std::vector<std::uint32_t> order(dag.segments.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
        const auto& x = dag.segments[a];
        const auto& y = dag.segments[b];
        return x.startNs != y.startNs ? x.startNs < y.startNs : x.endNs < y.endNs;
    });
    return order;
}

std::uint32_t lastEndingSegment(const RequestDag& dag) {
    std::uint32_t last = 0;
    for (std::uint32_t v = 1; v < dag.segments.size(); ++v)
        if (dag.segments[v].endNs > dag.segments[last].endNs) last = v;
    return last;
}

void RequestDagBuilder::finish(RequestDag& dag, std::vector<DagEdge> edges) {
    const std::size_t n = dag.segments.size();
    // Topological order by time; an edge that would go backwards (possible only between zero-length,
    // simultaneous segments) is dropped so the graph stays acyclic.
    const std::vector<std::uint32_t> order = timeOrder(dag);
    std::vector<std::uint32_t> rank(n);
    for (std::uint32_t i = 0; i < n; ++i) rank[order[i]] = i;
    std::erase_if(edges, [&](const DagEdge& e) { return e.from == e.to || rank[e.from] >= rank[e.to]; });
    // Keep one edge per pair, of the most telling kind: a known link, then task order, then inferred ones.
    auto strength = [](EdgeKind k) { return k == EdgeKind::Link ? 0 : k == EdgeKind::TaskOrder ? 1 : 2; };
    std::stable_sort(edges.begin(), edges.end(), [&](const DagEdge& a, const DagEdge& b) {
        if (a.from != b.from) return a.from < b.from;
        if (a.to != b.to) return a.to < b.to;
        return strength(a.kind) < strength(b.kind);
    });
    edges.erase(std::unique(edges.begin(), edges.end(), [](const DagEdge& a, const DagEdge& b) { return a.from == b.from && a.to == b.to; }),
                edges.end());

    // Transitive reduction: visit vertices from last to first; reach[v] = everything reachable from v.
    // A successor already reachable through a nearer successor is implied.
    const std::size_t words = (n + 63) / 64;
    std::vector<std::uint64_t> reach(n * words, 0);
    std::vector<std::vector<std::uint32_t>> successors(n);
    for (const auto& e : edges) successors[e.from].push_back(e.to);
    std::vector<DagEdge> kept;
    kept.reserve(edges.size());
    std::vector<std::uint64_t> acc(words);
    for (std::size_t i = n; i-- > 0;) {
        const std::uint32_t v = order[i];
        auto& succ = successors[v];
        std::sort(succ.begin(), succ.end(), [&](auto a, auto b) { return rank[a] < rank[b]; });
        std::fill(acc.begin(), acc.end(), 0);
        for (std::uint32_t w : succ) {
            if ((acc[w / 64] >> (w % 64)) & 1u) continue;  // implied
            auto it = std::lower_bound(edges.begin(), edges.end(), DagEdge{v, w, EdgeKind::TaskOrder},
                                       [](const DagEdge& a, const DagEdge& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
            kept.push_back(*it);
            acc[w / 64] |= std::uint64_t{1} << (w % 64);
            for (std::size_t k = 0; k < words; ++k) acc[k] |= reach[w * words + k];
        }
        std::copy(acc.begin(), acc.end(), reach.begin() + static_cast<std::ptrdiff_t>(v * words));
    }
    std::sort(kept.begin(), kept.end(), [](const DagEdge& a, const DagEdge& b) { return a.to != b.to ? a.to < b.to : a.from < b.from; });
    dag.edges = std::move(kept);
    dag.firstEdgeTo.assign(n + 1, 0);
    for (const auto& e : dag.edges) ++dag.firstEdgeTo[e.to + 1];
    for (std::size_t v = 0; v < n; ++v) dag.firstEdgeTo[v + 1] += dag.firstEdgeTo[v];
}

void RequestDagBuilder::build(std::span<const EventRecord> events, const ClockOffsets& offsets, RequestDag& dag,
                              std::span<const EventLink> links) {
    const RequestSpan span = buildSegments(events, offsets, dag.segments);
    dag.startNs = span.startNs;
    dag.endNs = span.endNs;
    const auto& segs = dag.segments;
    const std::size_t n = segs.size();
    if (m_local.size() < m_model.typeCount()) m_local.resize(m_model.typeCount(), -1);
    for (const auto& s : segs)
        if (s.type.value >= m_local.size()) m_local.resize(s.type.value + 1, -1);
    for (std::size_t i = 0; i < n; ++i) m_local[segs[i].type.value] = static_cast<int>(i);

    std::vector<DagEdge> edges;
    edges.reserve(n * 3);
    for (std::uint32_t i = 0; i + 1 < n; ++i)
        if (segs[i].task == segs[i + 1].task)  // consecutive segments of one task share an event
            edges.push_back({i, i + 1, EdgeKind::TaskOrder});
    for (std::uint32_t i = 0; i < n; ++i) {
        if (segs[i].type.value >= m_model.typeCount()) continue;  // a type the model has never seen
        m_model.happensBeforeRow(segs[i].type).forEach([&](std::size_t b) {
            const int j = b < m_local.size() ? m_local[b] : -1;
            if (j >= 0) edges.push_back({i, static_cast<std::uint32_t>(j), EdgeKind::HappensBefore});
        });
        m_model.mutualExclusionRow(segs[i].type).forEach([&](std::size_t b) {
            const int j = b < m_local.size() ? m_local[b] : -1;
            if (j >= 0 && segs[i].endNs <= segs[j].startNs)  // the order this request took
                edges.push_back({i, static_cast<std::uint32_t>(j), EdgeKind::MutualExclusion});
        });
    }
    if (!links.empty()) {
        // A link from event a to event b joins the segment that ends at a to the one that starts at b.
        std::vector<int> endsAt(events.size(), -1), startsAt(events.size(), -1);
        int segment = 0;
        for (std::size_t e = 0; e < events.size(); ++e)
            if (events[e].segmentType.isValid()) {
                endsAt[e] = segment;
                startsAt[e - 1] = segment;
                ++segment;
            }
        for (const EventLink& l : links) {
            if (l.from >= events.size() || l.to >= events.size()) continue;
            const int from = endsAt[l.from], to = startsAt[l.to];
            if (from >= 0 && to >= 0) edges.push_back({static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to), EdgeKind::Link});
        }
    }
    for (const auto& p : m_model.pipelines()) {
        const int a1 = m_local[p.first.producer.value], b1 = m_local[p.first.consumer.value];
        const int a2 = m_local[p.second.producer.value], b2 = m_local[p.second.consumer.value];
        if (a1 < 0 || b1 < 0 || a2 < 0 || b2 < 0) continue;
        const bool firstLeads = segs[a1].endNs <= segs[a2].endNs;
        const int from = firstLeads ? b1 : b2, to = firstLeads ? b2 : b1;
        if (segs[from].endNs <= segs[to].startNs)
            edges.push_back({static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to), EdgeKind::Pipeline});
    }
    for (const auto& s : segs) m_local[s.type.value] = -1;
    finish(dag, std::move(edges));
}

} // namespace tracelight
