#include "tracelight/analysis/RequestDag.h"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <queue>
#include <span>

namespace tracelight {

RequestDagBuilder::RequestDagBuilder(const CausalModel& model, const TraceData& data)
    : m_model(model), m_local(std::max(data.segmentTypes.size(), model.typeCount())) {
    rowsAsBitsets();
}

RequestDagBuilder::RequestDagBuilder(const CausalModel& model) : m_model(model), m_local(model.typeCount()) { rowsAsBitsets(); }

void RequestDagBuilder::rowsAsBitsets() {
    constexpr std::size_t kMostTypes = 512;  // 8 words a row: beyond, the rows' lists are shorter to walk
    const std::size_t types = m_model.typeCount();
    if (types == 0 || types > kMostTypes) return;
    m_rowWords = (types + 63) / 64;
    m_happensBeforeBits.assign(types * m_rowWords, 0);
    m_exclusionBits.assign(types * m_rowWords, 0);
    m_present.assign(m_rowWords, 0);
    for (std::uint32_t a = 0; a < types; ++a) {
        for (SegmentTypeId b : m_model.happensBeforeRow(SegmentTypeId(a)))
            m_happensBeforeBits[a * m_rowWords + b.value / 64] |= std::uint64_t{1} << (b.value % 64);
        for (SegmentTypeId b : m_model.mutualExclusionRow(SegmentTypeId(a)))
            m_exclusionBits[a * m_rowWords + b.value / 64] |= std::uint64_t{1} << (b.value % 64);
    }
}

void timeOrder(const RequestDag& dag, std::vector<std::uint32_t>& order) { timeOrder(std::span<const SegmentInstance>(dag.segments), order); }

void timeOrder(std::span<const SegmentInstance> segments, std::vector<std::uint32_t>& order) {
    const std::size_t n = segments.size();
    order.resize(n);
    constexpr std::size_t kKeysFrom = 4096;  // below, the segments stay in cache: their indices are sorted
    if (n >= kKeysFrom) {
        // The keys side by side, not indices that each read a segment somewhere in memory: a million-span
        // trace has 2.6 M segments, and an indirect comparison missed the cache twice.
        struct Key {
            TimeNs start, end;
            std::uint32_t index;
        };
        std::vector<Key> keys(n);
        for (std::uint32_t i = 0; i < n; ++i) keys[i] = {segments[i].startNs, segments[i].endNs, i};
        std::sort(keys.begin(), keys.end(), [](const Key& x, const Key& y) {
            if (x.start != y.start) return x.start < y.start;
            if (x.end != y.end) return x.end < y.end;
            return x.index < y.index;
        });
        for (std::size_t i = 0; i < n; ++i) order[i] = keys[i].index;
        return;
    }
    std::iota(order.begin(), order.end(), 0u);
    // The index breaks ties, so that an unstable sort (no buffer to allocate) gives the one order.
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto& x = segments[a];
        const auto& y = segments[b];
        if (x.startNs != y.startNs) return x.startNs < y.startNs;
        if (x.endNs != y.endNs) return x.endNs < y.endNs;
        return a < b;
    });
}

void typeOrder(std::span<const SegmentInstance> segs, std::size_t typeEnd, std::vector<std::uint32_t>& order,
               std::vector<std::uint32_t>& counts) {
    const std::size_t n = segs.size();
    order.resize(n);
    auto byStart = [&](std::uint32_t a, std::uint32_t b) {
        return segs[a].startNs != segs[b].startNs ? segs[a].startNs < segs[b].startNs : a < b;
    };
    constexpr std::size_t kCountFrom = 4096;  // below, one comparison sort is cheaper than a pass over the types
    if (n < kCountFrom || typeEnd > 4 * n) {
        std::iota(order.begin(), order.end(), 0u);
        std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return segs[a].type.value != segs[b].type.value ? segs[a].type.value < segs[b].type.value : byStart(a, b);
        });
        return;
    }
    // Counting sort by type (stable: each type's instances in index order), then each type by start.
    counts.assign(typeEnd + 1, 0);
    for (const auto& s : segs) ++counts[s.type.value + 1];
    for (std::size_t t = 0; t < typeEnd; ++t) counts[t + 1] += counts[t];
    for (std::uint32_t i = 0; i < n; ++i) order[counts[segs[i].type.value]++] = i;
    // counts[t] is now where type t ends.
    for (std::size_t t = 0, begin = 0; t < typeEnd; ++t) {
        const std::size_t end = counts[t];
        if (end - begin > 1) std::sort(order.begin() + static_cast<std::ptrdiff_t>(begin), order.begin() + static_cast<std::ptrdiff_t>(end), byStart);
        begin = end;
    }
}

std::span<const std::uint32_t> topologicalOrder(const RequestDag& dag, std::vector<std::uint32_t>& scratch) {
    if (dag.order.size() == dag.segments.size()) return dag.order;
    timeOrder(dag, scratch);
    return scratch;
}

std::vector<std::uint32_t> timeOrder(const RequestDag& dag) {
    std::vector<std::uint32_t> order;
    timeOrder(dag, order);
    return order;
}

std::uint32_t lastEndingSegment(const RequestDag& dag) {
    std::uint32_t last = 0;
    for (std::uint32_t v = 1; v < dag.segments.size(); ++v)
        if (dag.segments[v].endNs > dag.segments[last].endNs) last = v;
    // Several segments end last (a parent waiting for its child to return at its own end): the one
    // no other of them depends on ends the request, so the wait is explained by what it waited for.
    const TimeNs end = dag.segments.empty() ? 0 : dag.segments[last].endNs;
    std::vector<bool> feedsAnother(dag.segments.size(), false);
    for (const DagEdge& e : dag.edges)
        if (dag.segments[e.to].endNs == end) feedsAnother[e.from] = true;
    for (std::uint32_t v = 0; v < dag.segments.size(); ++v)
        if (dag.segments[v].endNs == end && !feedsAnother[v]) return v;
    return last;
}

namespace {

// The transitive reduction of a small graph with each vertex's reach as a bitset over time ranks
// (Words * 64 of them): vertices from last to first in time, each one's successors nearest first; a
// successor already in the reach of a nearer one is implied, else its edge is kept and its reach joins
// v's. Exact, and a few word operations per edge where the search below walks the kept edges again.
template <std::size_t Words>
void keepUnimpliedByBitsets(std::size_t n, const std::vector<std::uint32_t>& order, const std::vector<std::uint32_t>& rank,
                            const std::vector<DagEdge>& successors, const std::vector<std::uint32_t>& firstFrom,
                            RequestDagBuilder::Scratch& s) {
    std::vector<std::uint64_t>& reach = s.reach;  // by rank
    reach.assign(n * Words, 0);
    std::vector<std::uint32_t>& edgeAt = s.edgeAtRank;  // v's edge to the segment of each rank it leads to
    edgeAt.resize(n);
    for (std::size_t i = n; i-- > 0;) {
        const std::uint32_t v = order[i];
        // v's successors as a bitset of ranks, taken nearest first: no sort of the edges.
        std::array<std::uint64_t, Words> pending{};
        for (std::uint32_t k = firstFrom[v]; k < firstFrom[v + 1]; ++k) {
            const std::uint32_t r = rank[successors[k].to];
            pending[r / 64] |= std::uint64_t{1} << (r % 64);
            edgeAt[r] = k;
        }
        s.keptBegin[v] = static_cast<std::uint32_t>(s.kept.size());
        std::array<std::uint64_t, Words> reached{};
        // A successor's reach holds only later ranks, so the words are done in order.
        for (std::size_t w = 0; w < Words; ++w)
            for (std::uint64_t open = pending[w] & ~reached[w]; open; open = pending[w] & ~reached[w]) {
                const auto bit = static_cast<unsigned>(std::countr_zero(open));
                pending[w] &= ~(std::uint64_t{1} << bit);
                const std::uint32_t r = static_cast<std::uint32_t>(w * 64 + bit);
                s.kept.push_back(successors[edgeAt[r]]);  // not implied through a nearer successor
                reached[w] |= std::uint64_t{1} << bit;
                const std::uint64_t* beyond = reach.data() + std::size_t{r} * Words;
                for (std::size_t x = 0; x < Words; ++x) reached[x] |= beyond[x];
            }
        std::copy(reached.begin(), reached.end(), reach.begin() + static_cast<std::ptrdiff_t>(i * Words));
        s.keptEnd[v] = static_cast<std::uint32_t>(s.kept.size());
    }
}

// The transitive reduction of any graph in memory linear in it. Vertices are visited from last to first in
// time, so each successor's own edges are already reduced; a successor already reached from a nearer one is
// implied. The search from v never goes past v's last successor in time (nothing later can lead back),
// and a total budget keeps a hostile graph near-linear: past it, edges are kept. Implied edges never
// change the critical path's length or any slack (an implied edge ends no later than the path that
// implies it), only what is drawn.
void keepUnimpliedBySearch(std::size_t n, const std::vector<std::uint32_t>& order, const std::vector<std::uint32_t>& rank,
                           std::vector<DagEdge>& successors, const std::vector<std::uint32_t>& firstFrom, std::size_t edges,
                           RequestDagBuilder::Scratch& s) {
    std::vector<DagEdge>& kept = s.kept;
    std::vector<std::uint32_t>& keptBegin = s.keptBegin;
    std::vector<std::uint32_t>& keptEnd = s.keptEnd;
    std::vector<std::uint32_t>& visitedBy = s.visitedBy;
    std::vector<std::uint32_t>& stack = s.stack;
    visitedBy.assign(n, UINT32_MAX);
    stack.clear();
    std::int64_t budget = 32 * static_cast<std::int64_t>(n + edges) + 4096;
    for (std::size_t i = n; i-- > 0;) {
        const std::uint32_t v = order[i];
        const auto begin = successors.begin() + firstFrom[v], end = successors.begin() + firstFrom[v + 1];
        std::sort(begin, end, [&](const DagEdge& a, const DagEdge& b) { return rank[a.to] < rank[b.to]; });
        keptBegin[v] = static_cast<std::uint32_t>(kept.size());
        const std::uint32_t horizon = begin == end ? 0 : rank[(end - 1)->to];
        for (auto it = begin; it != end; ++it) {
            const std::uint32_t w = it->to;
            if (visitedBy[w] == v) continue;  // implied through a nearer successor
            kept.push_back(*it);
            if (end - begin == 1 || budget <= 0) continue;
            // Everything reachable from w (up to the horizon) is implied from v from now on.
            visitedBy[w] = v;
            stack.push_back(w);
            while (!stack.empty() && budget > 0) {
                const std::uint32_t u = stack.back();
                stack.pop_back();
                for (std::uint32_t k = keptBegin[u]; k < keptEnd[u]; ++k) {
                    const std::uint32_t x = kept[k].to;
                    --budget;
                    if (rank[x] > horizon || visitedBy[x] == v) continue;
                    visitedBy[x] = v;
                    stack.push_back(x);
                }
            }
            stack.clear();
        }
        keptEnd[v] = static_cast<std::uint32_t>(kept.size());
    }
}

} // namespace

void RequestDagBuilder::finish(RequestDag& dag, std::vector<DagEdge> edges) {
    Scratch scratch;
    scratch.edges = std::move(edges);
    reduce(dag.segments, dag.edges, dag.firstEdgeTo, dag.order, scratch);
}

void RequestDagBuilder::reduce(std::span<const SegmentInstance> segments, std::vector<DagEdge>& reduced,
                               std::vector<std::uint32_t>& firstEdgeTo, std::vector<std::uint32_t>& order, Scratch& s) {
    const std::size_t n = segments.size();
    const std::vector<DagEdge>& edges = s.edges;
    // Topological order by time; an edge that would go backwards (possible only between zero-length,
    // simultaneous segments) is dropped so the graph stays acyclic. The order is kept with the graph: its
    // passes go by it.
    timeOrder(segments, order);
    std::vector<std::uint32_t>& rank = s.rank;
    rank.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) rank[order[i]] = i;
    // Segments at the same instant (a child's zero-length end, its parent's return and end) follow the
    // known links and task order among them, so a parent's return does not come before its child's end.
    {
        std::vector<std::uint32_t>& runOf = s.runOf;
        runOf.resize(n);
        for (std::uint32_t i = 0, run = 0; i < n; ++i) {
            if (i > 0) {
                const auto& a = segments[order[i - 1]];
                const auto& b = segments[order[i]];
                if (a.startNs != b.startNs || a.endNs != b.endNs) run = i;
            }
            runOf[order[i]] = run;
        }
        std::vector<std::pair<std::uint32_t, std::uint32_t>>& inside = s.inside;  // (from, to) within one run
        inside.clear();
        for (const auto& e : edges)
            if (e.from != e.to && (e.kind == EdgeKind::Link || e.kind == EdgeKind::TaskOrder) && runOf[e.from] == runOf[e.to])
                inside.emplace_back(e.from, e.to);
        if (!inside.empty()) {
            std::sort(inside.begin(), inside.end());
            std::vector<std::uint32_t> indegree(n, 0);
            std::vector<bool> runHasEdges(n, false);
            for (const auto& [from, to] : inside) {
                ++indegree[to];
                runHasEdges[runOf[from]] = true;
            }
            for (std::uint32_t begin = 0; begin < n;) {
                std::uint32_t end = begin + 1;
                while (end < n && runOf[order[end]] == begin) ++end;
                if (runHasEdges[begin]) {
                    // Kahn's algorithm over the run, the earliest in time order first; what a cycle leaves
                    // keeps its time order.
                    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;  // by rank
                    for (std::uint32_t k = begin; k < end; ++k)
                        if (indegree[order[k]] == 0) ready.push(k);
                    std::vector<std::uint32_t> sorted;
                    std::vector<bool> placed(end - begin, false);
                    while (sorted.size() < end - begin) {
                        std::uint32_t k = 0;
                        if (!ready.empty()) {
                            k = ready.top();
                            ready.pop();
                            if (placed[k - begin]) continue;
                        } else {
                            k = begin;
                            while (placed[k - begin]) ++k;
                        }
                        placed[k - begin] = true;
                        const std::uint32_t v = order[k];
                        sorted.push_back(v);
                        for (auto it = std::lower_bound(inside.begin(), inside.end(), std::make_pair(v, 0u));
                             it != inside.end() && it->first == v; ++it)
                            if (indegree[it->second] > 0 && --indegree[it->second] == 0) ready.push(rank[it->second]);
                    }
                    std::copy(sorted.begin(), sorted.end(), order.begin() + begin);
                }
                begin = end;
            }
            for (std::uint32_t i = 0; i < n; ++i) rank[order[i]] = i;
        }
    }
    // Keep one edge per pair, of the most telling kind: a known link, then task order, then inferred ones
    // (among equals the first offered). Edges go into lists by source with a counting sort, which keeps
    // their offered order, so no comparison sort is needed.
    auto strength = [](EdgeKind k) { return k == EdgeKind::Link ? 0 : k == EdgeKind::TaskOrder ? 1 : 2; };
    auto forward = [&](const DagEdge& e) { return e.from != e.to && rank[e.from] < rank[e.to]; };
    std::vector<std::uint32_t>& firstFrom = s.firstFrom;  // v's edges: successors[firstFrom[v], firstFrom[v + 1])
    firstFrom.assign(n + 1, 0);
    for (const auto& e : edges)
        if (forward(e)) ++firstFrom[e.from + 1];
    for (std::size_t v = 0; v < n; ++v) firstFrom[v + 1] += firstFrom[v];
    std::vector<DagEdge>& successors = s.successors;
    successors.resize(firstFrom[n]);
    s.fill.assign(firstFrom.begin(), firstFrom.end() - 1);
    for (const auto& e : edges)
        if (forward(e)) successors[s.fill[e.from]++] = e;
    std::vector<std::uint32_t>& seenFrom = s.seenFrom;  // per target: the last source with an edge to it
    std::vector<std::uint32_t>& slot = s.slot;          // and where that edge is
    seenFrom.assign(n, UINT32_MAX);
    slot.resize(n);
    std::uint32_t unique = 0;
    for (std::uint32_t v = 0; v < n; ++v) {
        const std::uint32_t begin = firstFrom[v], end = firstFrom[v + 1];
        firstFrom[v] = unique;
        for (std::uint32_t k = begin; k < end; ++k) {
            const DagEdge e = successors[k];
            if (seenFrom[e.to] != v) {
                seenFrom[e.to] = v;
                slot[e.to] = unique;
                successors[unique++] = e;
            } else if (strength(e.kind) < strength(successors[slot[e.to]].kind)) {
                successors[slot[e.to]] = e;
            }
        }
    }
    firstFrom[n] = unique;
    successors.resize(unique);

    // Transitive reduction: kept[keptBegin[v], keptEnd[v]) are v's edges that no other path implies. Most
    // requests are small (the corpus's: about 25 segments), and there each vertex's reach is a bitset.
    s.kept.clear();
    s.keptBegin.assign(n, 0);
    s.keptEnd.assign(n, 0);
    if (n <= 64) keepUnimpliedByBitsets<1>(n, order, rank, successors, firstFrom, s);
    else if (n <= 128) keepUnimpliedByBitsets<2>(n, order, rank, successors, firstFrom, s);
    else if (n <= 256) keepUnimpliedByBitsets<4>(n, order, rank, successors, firstFrom, s);
    else keepUnimpliedBySearch(n, order, rank, successors, firstFrom, unique, s);
    const std::vector<DagEdge>& kept = s.kept;
    const std::vector<std::uint32_t>& keptBegin = s.keptBegin;
    const std::vector<std::uint32_t>& keptEnd = s.keptEnd;
    // Edges by (to, from): a counting sort by target over the sources in increasing order.
    firstEdgeTo.assign(n + 1, 0);
    for (const auto& e : kept) ++firstEdgeTo[e.to + 1];
    for (std::size_t v = 0; v < n; ++v) firstEdgeTo[v + 1] += firstEdgeTo[v];
    s.fill.assign(firstEdgeTo.begin(), firstEdgeTo.end() - 1);
    reduced.resize(kept.size());
    for (std::uint32_t v = 0; v < n; ++v)
        for (std::uint32_t k = keptBegin[v]; k < keptEnd[v]; ++k) reduced[s.fill[kept[k].to]++] = kept[k];
}

void RequestDagBuilder::build(std::span<const EventRecord> events, const ClockOffsets& offsets, RequestDag& dag,
                              std::span<const EventLink> links) {
    const RequestSpan span = buildSegments(events, offsets, dag.segments);
    dag.startNs = span.startNs;
    dag.endNs = span.endNs;
    segmentLinks(events, links, m_scratch.links);
    connect(dag.segments, m_scratch.links, dag.edges, dag.firstEdgeTo, dag.order);
}

void segmentLinks(std::span<const EventRecord> events, std::span<const EventLink> links, std::vector<SegmentLink>& out) {
    out.clear();
    if (links.empty()) return;
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
        if (from >= 0 && to >= 0) out.push_back({static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to)});
    }
}

void RequestDagBuilder::buildEdges(std::span<const SegmentInstance> segments, std::span<const SegmentLink> links,
                                   std::vector<DagEdge>& edges, std::vector<std::uint32_t>& firstEdgeTo) {
    connect(segments, links, edges, firstEdgeTo, m_scratch.order);
}

void RequestDagBuilder::connect(std::span<const SegmentInstance> segs, std::span<const SegmentLink> links, std::vector<DagEdge>& reduced,
                                std::vector<std::uint32_t>& firstEdgeTo, std::vector<std::uint32_t>& order) {
    const std::size_t n = segs.size();
    if (m_local.size() < m_model.typeCount()) m_local.resize(m_model.typeCount());
    for (const auto& s : segs)
        if (s.type.value >= m_local.size()) m_local.resize(s.type.value + 1);
    // Instances of each type present, by start time: a type's instances are byType[first, first + count),
    // with m_local[type] = {first, count}. Span data holds many instances of one type (every call of an operation).
    Scratch& scratch = m_scratch;
    std::vector<std::uint32_t>& byType = scratch.byType;
    typeOrder(segs, m_local.size(), byType, scratch.typeStart);
    std::vector<std::uint32_t>& lastEnding = scratch.lastEnding;
    lastEnding.clear();
    std::vector<std::uint32_t>& groupOf = scratch.groupOf;
    groupOf.resize(n);
    for (std::uint32_t k = 0; k < n; ++k) {
        const std::uint32_t i = byType[k];
        if (k == 0 || segs[byType[k - 1]].type != segs[i].type) {
            m_local[segs[i].type.value].first = static_cast<int>(k);
            lastEnding.push_back(i);
        }
        const auto g = static_cast<std::uint32_t>(lastEnding.size() - 1);
        groupOf[i] = g;
        ++m_local[segs[i].type.value].count;
        if (segs[i].endNs > segs[lastEnding[g]].endNs) lastEnding[g] = i;
    }
    if (m_rowWords)
        for (const auto& s : segs)
            if (s.type.value < m_model.typeCount()) m_present[s.type.value / 64] |= std::uint64_t{1} << (s.type.value % 64);
    auto instances = [&](std::size_t type) -> std::span<const std::uint32_t> {
        if (type >= m_local.size() || m_local[type].first < 0) return {};
        return {byType.data() + m_local[type].first, m_local[type].count};
    };

    std::vector<DagEdge>& edges = scratch.edges;
    edges.clear();
    for (std::uint32_t i = 0; i + 1 < n; ++i)
        if (segs[i].task == segs[i + 1].task)  // consecutive segments of one task share an event
            edges.push_back({i, i + 1, EdgeKind::TaskOrder});
    // Inferred relations, keeping the graph linear in the request: a relation between two segments of one
    // task is already task order, and from segment i only the earliest segment of each other task is
    // needed (the later ones follow it in its task). Segments of a task are contiguous, in event order.
    // With several instances of a type (A -> B holds when every A ends before every B starts): each A
    // instance leads to the first B, and the A instance that ends last to every B, so each B waits for
    // the last A (what the critical path needs) in edges linear in the instances.
    std::vector<std::uint32_t>& taskOf = scratch.taskOf;
    taskOf.resize(n);
    std::uint32_t tasks = 0;
    for (std::size_t i = 0; i < n; ++i) taskOf[i] = i > 0 && segs[i].task == segs[i - 1].task ? taskOf[i - 1] : tasks++;
    std::vector<std::uint32_t>& earliest = scratch.earliest;
    std::vector<std::uint32_t>& stamp = scratch.stamp;
    std::vector<std::uint32_t>& touched = scratch.touched;
    earliest.resize(tasks);
    stamp.assign(tasks, UINT32_MAX);
    std::vector<EdgeKind>& earliestKind = scratch.earliestKind;
    earliestKind.resize(tasks);
    for (std::uint32_t i = 0; i < n; ++i) {
        if (segs[i].type.value >= m_model.typeCount()) continue;  // a type the model has never seen
        touched.clear();
        auto offer = [&](std::uint32_t j, EdgeKind kind) {
            if (taskOf[j] == taskOf[i]) return;
            const std::uint32_t t = taskOf[j];
            if (stamp[t] != i) {
                stamp[t] = i;
                earliest[t] = j;
                earliestKind[t] = kind;
                touched.push_back(t);
            } else if (j < earliest[t]) {
                earliest[t] = j;
                earliestKind[t] = kind;
            }
        };
        const bool endsLast = lastEnding[groupOf[i]] == i;
        auto happensBefore = [&](std::uint32_t b) {
            const auto to = instances(b);
            if (to.empty()) return;
            if (endsLast)
                for (auto j : to) offer(j, EdgeKind::HappensBefore);
            else
                offer(to.front(), EdgeKind::HappensBefore);
        };
        auto exclusion = [&](std::uint32_t b) {
            // The order this request took: the first instance of b that starts once i has ended.
            const auto to = instances(b);
            auto it = std::lower_bound(to.begin(), to.end(), segs[i].endNs,
                                       [&](std::uint32_t j, TimeNs t) { return segs[j].startNs < t; });
            if (it != to.end()) offer(*it, EdgeKind::MutualExclusion);
        };
        if (m_rowWords) {
            // The same types in the same (increasing) order as the rows' lists, only those present.
            auto presentOf = [&](const std::vector<std::uint64_t>& rows, auto&& f) {
                const std::uint64_t* row = rows.data() + std::size_t{segs[i].type.value} * m_rowWords;
                for (std::size_t w = 0; w < m_rowWords; ++w)
                    for (std::uint64_t bits = row[w] & m_present[w]; bits; bits &= bits - 1)
                        f(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
            };
            presentOf(m_happensBeforeBits, happensBefore);
            presentOf(m_exclusionBits, exclusion);
        } else {
            for (SegmentTypeId b : m_model.happensBeforeRow(segs[i].type)) happensBefore(b.value);
            for (SegmentTypeId b : m_model.mutualExclusionRow(segs[i].type)) exclusion(b.value);
        }
        for (std::uint32_t t : touched) edges.push_back({i, earliest[t], earliestKind[t]});
    }
    for (const SegmentLink& l : links)
        if (l.from < n && l.to < n) edges.push_back({l.from, l.to, EdgeKind::Link});
    // A pipeline gives each item's data dependency (producer -> consumer) and the FIFO order of the two
    // consumers, as this request took them.
    auto presentOf = [&](const std::vector<SegmentTypeId>& group) {
        for (SegmentTypeId t : group)
            if (t.value < m_local.size() && m_local[t.value].first >= 0) return static_cast<int>(byType[static_cast<std::size_t>(m_local[t.value].first)]);
        return -1;
    };
    auto addIfOrdered = [&](int from, int to) {
        if (segs[from].endNs <= segs[to].startNs)
            edges.push_back({static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to), EdgeKind::Pipeline});
    };
    for (const auto& p : m_model.pipelines()) {
        const int a1 = presentOf(p.first.producerTypes), b1 = presentOf(p.first.consumerTypes);
        const int a2 = presentOf(p.second.producerTypes), b2 = presentOf(p.second.consumerTypes);
        if (a1 < 0 || b1 < 0 || a2 < 0 || b2 < 0) continue;
        addIfOrdered(a1, b1);
        addIfOrdered(a2, b2);
        const bool firstLeads = segs[a1].endNs <= segs[a2].endNs;
        addIfOrdered(firstLeads ? b1 : b2, firstLeads ? b2 : b1);
    }
    for (const auto& s : segs) m_local[s.type.value] = {};
    std::fill(m_present.begin(), m_present.end(), 0);
    reduce(segs, reduced, firstEdgeTo, order, scratch);
}

} // namespace tracelight
