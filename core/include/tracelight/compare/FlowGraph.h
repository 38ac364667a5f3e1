#pragma once
// The flow graphs behind a comparison entry, for the side-by-side and diff views: the graph of one
// representative request of each side (its median by latency), merged into one graph whose nodes and edges say which side has
// them, so both sides can be laid out identically. A structural entry: its mutation category (problem
// period) against its compared precursor (CompareEntry::comparedPrecursor, baseline period); a response-time
// entry: its category in the problem period against the same category in the baseline. Nodes are segments (task:START->END, where the
// latency lives in our graphs) with their mean duration on each side over that side's requests; the
// entry's red edges (segment types whose latency changed) are marked.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tracelight/compare/PeriodComparison.h"

namespace tracelight {

struct FlowNode {
    std::uint32_t type = 0;      // segment type
    std::uint32_t occurrence = 0;  // k-th segment of its type in the request (time order), from 0
    std::string label;           // "task:START->END"
    bool inFirst = false, inSecond = false;
    double firstMeanNs = 0, secondMeanNs = 0;  // over the side's requests that have this node
    double firstVarianceNs2 = 0, secondVarianceNs2 = 0;  // sample variance over the same requests
    bool changed = false;        // a red edge of the entry
};
struct FlowEdge {
    std::uint32_t from = 0, to = 0;  // indices into nodes
    bool inFirst = false, inSecond = false;
};
struct FlowGraphPair {
    std::string firstTitle, secondTitle;    // "category 7, problem period (1,204 requests)"
    RequestId firstRequest, secondRequest;  // the representatives drawn: each side's median request by latency
    std::vector<FlowNode> nodes;
    std::vector<FlowEdge> edges;
    // Each side's edge latencies over all its requests (edgeStatistics: count, mean, variance), by segment type.
    std::vector<EdgeStats> firstEdges, secondEdges;
};

// The two sides an entry is compared on (flow graphs, swim lanes, regression tree): first its category's
// problem-period requests; second its compared precursor's baseline requests (structural), else its own
// category's baseline requests (none: second.entries is empty).
struct EntrySide {
    std::uint32_t category = 0;  // index into Comparison::categories
    bool baseline = false;       // which period's requests
    bool precursor = false;      // the side is the entry's compared precursor
    std::vector<std::uint32_t> entries;  // indices into RequestCategories::rows
    std::string title;           // "category 7, problem period (1204 requests)"
};
std::pair<EntrySide, EntrySide> entrySides(const PeriodComparison& pc, const CompareEntry& entry);

// Any category, ranked or not (Spectroscope's graph view of a category with its statistics per period), is drawn
// as the response-time entry of that category would be: its problem-period requests against its baseline ones;
// a side without requests stays empty.
// At most maxRequests of each side are walked for the means (the first ones; all when 0).
Result<FlowGraphPair> entryFlowGraphs(const InMemoryAnalysis& analysis, const PeriodComparison& pc, const CompareEntry& entry,
                                      std::size_t maxRequests = 2000, const CancelToken* cancel = nullptr);

} // namespace tracelight
