#pragma once
// One request's dependency graph: its segments as vertices; edges from task order, from known causal
// links (span parent/child), from the model's
// confirmed happens-before relations present in the request, and from mutual-exclusion and pipeline
// relations resolved to the order this request took; then transitively reduced.
#include <cstdint>
#include <span>
#include <vector>

#include "tracelight/analysis/ModelInference.h"
#include "tracelight/analysis/Segments.h"

namespace tracelight {

enum class EdgeKind : std::uint8_t { TaskOrder, HappensBefore, MutualExclusion, Pipeline, Link };

struct DagEdge {
    std::uint32_t from;  // segment index
    std::uint32_t to;
    EdgeKind kind;
};

// A known causal link between two segments of a request (from span links): the segment that ends at the
// link's first event to the one that starts at its second.
struct SegmentLink {
    std::uint32_t from, to;
};
// The links between events as links between the segments buildSegments makes of those events.
void segmentLinks(std::span<const EventRecord> events, std::span<const EventLink> links, std::vector<SegmentLink>& out);

struct RequestDag {
    std::vector<SegmentInstance> segments;
    std::vector<DagEdge> edges;  // after transitive reduction, sorted by (to, from)
    TimeNs startNs = 0;          // the request's first event
    TimeNs endNs = 0;            // its last event

    // Predecessors of v as a range into edges (edges are sorted by target).
    std::vector<std::uint32_t> firstEdgeTo;  // size segments+1
    // A topological order of these edges: time order, simultaneous segments in the order their links and
    // tasks give (the reduction's). Made once per graph; the critical path's slack and what-if passes go by it.
    std::vector<std::uint32_t> order;
};

// Segments by (start, end) time, ties by index: a topological order, since every edge ends before its
// target starts. The second form refills `order` (no allocation once it has grown).
std::vector<std::uint32_t> timeOrder(const RequestDag& dag);
void timeOrder(const RequestDag& dag, std::vector<std::uint32_t>& order);
void timeOrder(std::span<const SegmentInstance> segments, std::vector<std::uint32_t>& order);
// dag.order when the graph was finished by RequestDagBuilder (so it is this graph's); else timeOrder(dag)
// into `scratch`.
std::span<const std::uint32_t> topologicalOrder(const RequestDag& dag, std::vector<std::uint32_t>& scratch);
// Segments by (type, start), ties by index, into `order`. Types are below `typeEnd`. A large request is
// counted into its types first and only each type's instances are sorted (a million-span trace: 2.6 M
// segments in a quarter of a million types); `counts` is working memory.
void typeOrder(std::span<const SegmentInstance> segments, std::size_t typeEnd, std::vector<std::uint32_t>& order,
               std::vector<std::uint32_t>& counts);
// The segment that ends last (ties: the lowest index), where the critical path begins its walk back.
std::uint32_t lastEndingSegment(const RequestDag& dag);

// Reuses scratch memory across calls; one builder per thread.
class RequestDagBuilder {
public:
    RequestDagBuilder(const CausalModel& model, const TraceData& data);
    explicit RequestDagBuilder(const CausalModel& model);
    void build(std::span<const EventRecord> events, const ClockOffsets& offsets, RequestDag& dag,
               std::span<const EventLink> links = {});
    // The reduced edges (and RequestDag::firstEdgeTo) of the graph build makes, for a caller that holds its
    // segments and links already (a million-span trace's segments are 100 MB, its events 75 MB).
    void buildEdges(std::span<const SegmentInstance> segments, std::span<const SegmentLink> links, std::vector<DagEdge>& edges,
                    std::vector<std::uint32_t>& firstEdgeTo);
    // For graphs built elsewhere (tests, span links): reduce and index the given edges.
    static void finish(RequestDag& dag, std::vector<DagEdge> edges);

    // Working memory of one graph, kept from request to request so that a pass over a million requests
    // does not allocate per request.
    struct Scratch {
        std::vector<DagEdge> edges;  // as offered, before the reduction
        // build
        std::vector<std::uint32_t> byType, typeStart, lastEnding, groupOf, taskOf, earliest, stamp, touched;
        std::vector<EdgeKind> earliestKind;
        // finish
        std::vector<std::uint32_t> rank, runOf, firstFrom, fill, seenFrom, slot, keptBegin, keptEnd, visitedBy, stack;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> inside;
        std::vector<DagEdge> successors, kept;
        std::vector<std::uint64_t> reach;       // small graphs: each vertex's reach as a bitset
        std::vector<std::uint32_t> edgeAtRank;  // and the edge to each successor, by its rank
        std::vector<std::uint32_t> order;       // buildEdges: the topological order nobody keeps
        std::vector<SegmentLink> links;         // build: the request's links between segments
    };

private:
    // The edges among `segments` (with their topological order), offered then reduced.
    void connect(std::span<const SegmentInstance> segments, std::span<const SegmentLink> links, std::vector<DagEdge>& reduced,
                 std::vector<std::uint32_t>& firstEdgeTo, std::vector<std::uint32_t>& order);
    // The transitive reduction of scratch.edges, by target, and the order it keeps.
    static void reduce(std::span<const SegmentInstance> segments, std::vector<DagEdge>& reduced, std::vector<std::uint32_t>& firstEdgeTo,
                       std::vector<std::uint32_t>& order, Scratch& scratch);

    void rowsAsBitsets();

    const CausalModel& m_model;
    // Per segment type, its instances in the current request: byType[first, first + count); first -1 when absent.
    struct LocalRun {
        int first = -1;
        std::uint32_t count = 0;
    };
    std::vector<LocalRun> m_local;
    // A model of few types also keeps its rows as bitsets over type ids, so that a segment visits only
    // the related types its request holds (m_present), not every type its row names.
    std::size_t m_rowWords = 0;  // 0: rows as lists only
    std::vector<std::uint64_t> m_happensBeforeBits, m_exclusionBits, m_present;
    Scratch m_scratch;
};

} // namespace tracelight
