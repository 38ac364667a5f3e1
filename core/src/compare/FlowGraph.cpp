#include "tracelight/compare/FlowGraph.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "tracelight/analysis/RequestPass.h"

namespace tracelight {

namespace {

// A segment's identity across requests of one structure: its type and how many of that type came before
// it in time order (a loop's second READ is another node than its first).
using NodeKey = std::pair<std::uint32_t, std::uint32_t>;

class Builder {
public:
    Builder(const InMemoryAnalysis& analysis, const PeriodComparison& pc)
        : m_analysis(analysis), m_pc(pc), m_pass(analysis.model, analysis.data) {}

    // Adds one side: the representative's structure (nodes and edges), then every walked request's
    // segment durations into the side's means.
    Status addSide(const EntrySide& side, bool first, std::size_t maxRequests, const CancelToken* cancel) {
        if (side.entries.empty()) return Status::error("no requests on one side of the entry");
        // Per node, Welford's running mean and sum of squared deviations (no cancellation on long durations).
        std::vector<double> mean(m_out.nodes.size(), 0), squares(m_out.nodes.size(), 0);
        std::vector<std::int64_t> count(m_out.nodes.size(), 0);
        const std::size_t walked = maxRequests ? std::min(maxRequests, side.entries.size()) : side.entries.size();
        for (std::size_t i = 0; i < walked; ++i) {
            if (cancel && (i & 255) == 0 && cancel->isCancelled()) return Status::error("cancelled");
            const std::uint32_t row = m_pc.categories->rows[side.entries[i]];
            const RequestDag dag = structureGraph(graphOf(row), m_analysis.model);
            const std::vector<std::int32_t> nodeOf = keys(dag, i == 0 ? &first : nullptr);
            if (mean.size() < m_out.nodes.size()) {
                mean.resize(m_out.nodes.size(), 0);
                squares.resize(m_out.nodes.size(), 0);
                count.resize(m_out.nodes.size(), 0);
            }
            for (std::size_t v = 0; v < dag.segments.size(); ++v) {
                if (nodeOf[v] < 0) continue;
                const auto n = static_cast<std::size_t>(nodeOf[v]);
                const double ns = double(dag.segments[v].durationNs()), before = ns - mean[n];
                mean[n] += before / double(++count[n]);
                squares[n] += before * (ns - mean[n]);
            }
            if (i == 0) {
                (first ? m_out.firstRequest : m_out.secondRequest) = m_pc.requestIds[side.entries[i]];
                for (const DagEdge& e : dag.edges) addEdge(nodeOf[e.from], nodeOf[e.to], first);
            }
        }
        for (std::size_t n = 0; n < m_out.nodes.size() && n < mean.size(); ++n) {
            if (count[n] == 0) continue;
            (first ? m_out.nodes[n].firstMeanNs : m_out.nodes[n].secondMeanNs) = mean[n];
            (first ? m_out.nodes[n].firstVarianceNs2 : m_out.nodes[n].secondVarianceNs2) = count[n] > 1 ? squares[n] / double(count[n] - 1) : 0;
        }
        (first ? m_out.firstTitle : m_out.secondTitle) = side.title;
        return Status::ok();
    }

    FlowGraphPair take() { return std::move(m_out); }
    FlowGraphPair& out() { return m_out; }

private:
    const RequestDag& graphOf(std::uint32_t row) {
        const TraceData& td = m_analysis.data;
        return m_pass.graph(td.eventsOf(row), m_analysis.offsets, td.linksOf(row));
    }

    // Each segment's node; the representative (side set) creates nodes and marks them as its side's, the
    // other requests only find them (a segment the representative lacks adds nothing to the means).
    std::vector<std::int32_t> keys(const RequestDag& dag, const bool* representativeOf) {
        std::vector<std::int32_t> nodeOf(dag.segments.size(), -1);
        std::map<std::uint32_t, std::uint32_t> seen;  // type -> occurrences so far
        std::vector<std::uint32_t> scratch;
        for (std::uint32_t v : topologicalOrder(dag, scratch)) {
            const std::uint32_t type = dag.segments[v].type.value;
            const NodeKey key{type, seen[type]++};
            auto it = m_index.find(key);
            if (it == m_index.end()) {
                if (!representativeOf) continue;
                FlowNode node;
                node.type = type;
                node.occurrence = key.second;
                node.label = type < m_pc.categories->typeNames.size() ? m_pc.categories->typeNames[type] : std::to_string(type);
                it = m_index.emplace(key, static_cast<std::int32_t>(m_out.nodes.size())).first;
                m_out.nodes.push_back(std::move(node));
            }
            if (representativeOf) (*representativeOf ? m_out.nodes[static_cast<std::size_t>(it->second)].inFirst
                                                      : m_out.nodes[static_cast<std::size_t>(it->second)].inSecond) = true;
            nodeOf[v] = it->second;
        }
        return nodeOf;
    }

    void addEdge(std::int32_t from, std::int32_t to, bool first) {
        if (from < 0 || to < 0) return;
        const auto key = (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint32_t>(to);
        auto [it, fresh] = m_edgeIndex.emplace(key, m_out.edges.size());
        if (fresh) m_out.edges.push_back({static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to)});
        (first ? m_out.edges[it->second].inFirst : m_out.edges[it->second].inSecond) = true;
    }

    const InMemoryAnalysis& m_analysis;
    const PeriodComparison& m_pc;
    RequestPass m_pass;
    FlowGraphPair m_out;
    std::map<NodeKey, std::int32_t> m_index;
    std::map<std::uint64_t, std::size_t> m_edgeIndex;
};

// The entries of a category in one period (the category's lists are in both periods already split).
std::string title(const ComparedCategory& c, const char* period, std::size_t requests) {
    return "category " + std::to_string(c.id) + ", " + period + " period (" + std::to_string(requests) + " requests)";
}

} // namespace

std::pair<EntrySide, EntrySide> entrySides(const PeriodComparison& pc, const CompareEntry& entry) {
    const Comparison& c = pc.comparison;
    const ComparedCategory& category = c.categories[entry.category];
    EntrySide first{entry.category, false, false, category.problemEntries, title(category, "problem", category.problemEntries.size())};
    EntrySide second{entry.category, true, false, category.baselineEntries, title(category, "baseline", category.baselineEntries.size())};
    const PrecursorRef* precursor = entry.kind == CompareEntry::Kind::Structural ? entry.comparedPrecursor() : nullptr;
    // A structural mutation without a candidate precursor stays against its own baseline requests, if any.
    if (precursor) {
        const ComparedCategory& p = c.categories[precursor->category];
        second = {precursor->category, true, true, p.baselineEntries, title(p, "baseline", p.baselineEntries.size()) + ", precursor"};
    }
    return {std::move(first), std::move(second)};
}

Result<FlowGraphPair> entryFlowGraphs(const InMemoryAnalysis& analysis, const PeriodComparison& pc, const CompareEntry& entry,
                                      std::size_t maxRequests, const CancelToken* cancel) {
    const Comparison& c = pc.comparison;
    if (entry.category >= c.categories.size() || !pc.categories) return Status::error("no such entry");
    auto [first, second] = entrySides(pc, entry);
    // Each side is drawn from its median request (by latency): typical of the side, not merely its first.
    for (EntrySide* side : {&first, &second}) {
        if (side->entries.empty()) continue;
        std::vector<std::uint32_t> byLatency = side->entries;
        const auto mid = byLatency.begin() + static_cast<std::ptrdiff_t>(byLatency.size() / 2);
        std::nth_element(byLatency.begin(), mid, byLatency.end(), [&](std::uint32_t a, std::uint32_t b) {
            return pc.categories->latencyNs[a] != pc.categories->latencyNs[b] ? pc.categories->latencyNs[a] < pc.categories->latencyNs[b] : a < b;
        });
        const auto at = std::find(side->entries.begin(), side->entries.end(), *mid);
        std::iter_swap(side->entries.begin(), at);
    }
    // A category browsed rather than ranked may have requests in one period only: that side stays empty.
    if (first.entries.empty() && second.entries.empty()) return Status::error("no requests on either side of the entry");
    Builder builder(analysis, pc);
    if (!first.entries.empty())
        if (Status s = builder.addSide(first, true, maxRequests, cancel); !s) return s;
    if (!second.entries.empty())
        if (Status s = builder.addSide(second, false, maxRequests, cancel); !s) return s;
    FlowGraphPair out = builder.take();
    if (first.entries.empty()) out.firstTitle = "no problem-period requests of this structure";
    out.firstEdges = edgeStatistics(*pc.categories, first.entries);
    out.secondEdges = edgeStatistics(*pc.categories, second.entries);
    if (second.entries.empty()) out.secondTitle = "no baseline requests of this structure";
    std::unordered_set<std::uint32_t> red;
    for (const ChangedEdge& e : entry.changedEdges) red.insert(e.type);
    for (FlowNode& n : out.nodes) n.changed = red.count(n.type) > 0;
    return out;
}

} // namespace tracelight
