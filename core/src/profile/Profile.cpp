#include "tracelight/profile/Profile.h"
#include "tracelight/analysis/RequestWalk.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "tracelight/analysis/RequestPass.h"
#include "tracelight/analysis/Segments.h"
#include "tracelight/analysis/SpanCriticalPath.h"
#include "tracelight/base/Parallel.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/studies/SpanCalls.h"

namespace tracelight {

const char* frameKindName(FrameKind kind) {
    switch (kind) {
    case FrameKind::Span: return "span";
    case FrameKind::Segment: return "segment";
    case FrameKind::Network: return "network";
    case FrameKind::Blind: return "blind";
    case FrameKind::Category: return "category";
    case FrameKind::Task: return "task";
    case FrameKind::Async: return "async";
    }
    return "segment";
}

std::int32_t ProfileSet::asyncFrame() const {
    for (std::size_t f = 0; f < frames.size(); ++f)
        if (frames[f].parent < 0 && frames[f].kind == FrameKind::Async) return static_cast<std::int32_t>(f);
    return -1;
}

double ProfileSet::meanLatencyNs(std::size_t g) const {
    return groups[g].requests ? groups[g].latencySumNs / double(groups[g].requests) : 0;
}
double ProfileSet::meanTotalNs(std::size_t g, std::size_t f) const {
    return groups[g].requests ? groups[g].frames[f].totalSum / double(groups[g].requests) : 0;
}
double ProfileSet::meanSelfNs(std::size_t g, std::size_t f) const {
    return groups[g].requests ? groups[g].frames[f].selfSum / double(groups[g].requests) : 0;
}
namespace {
double sampleVariance(double sum, double sumSq, std::int64_t n) {
    if (n < 2) return 0;
    const double mean = sum / double(n);
    return std::max(0.0, (sumSq - double(n) * mean * mean) / double(n - 1));
}
} // namespace
double ProfileSet::varianceTotalNs2(std::size_t g, std::size_t f) const {
    return sampleVariance(groups[g].frames[f].totalSum, groups[g].frames[f].totalSumSq, groups[g].requests);
}
double ProfileSet::ci95TotalNs(std::size_t g, std::size_t f) const {
    const auto n = groups[g].requests;
    return n > 1 ? 1.96 * std::sqrt(varianceTotalNs2(g, f) / double(n)) : 0;
}
double ProfileSet::onPathShare(std::size_t g, std::size_t f) const {
    return groups[g].requests ? double(groups[g].frames[f].criticalRequests) / double(groups[g].requests) : 0;
}
std::string ProfileSet::path(std::size_t f) const {
    std::vector<std::size_t> chain;
    for (std::int64_t x = static_cast<std::int64_t>(f); x >= 0; x = frames[static_cast<std::size_t>(x)].parent)
        chain.push_back(static_cast<std::size_t>(x));
    std::string out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (!out.empty()) out += ';';
        // ';' separates frames (folded stacks): one inside a name would split it.
        for (char ch : frames[*it].name) out += ch == ';' ? ',' : ch == '\n' ? ' ' : ch;
    }
    return out;
}

namespace {

constexpr std::size_t kMaxGroups = 8;

// One shard's frames and statistics; merged into the result by frame path at the end.
struct FrameTable {
    struct Key {
        std::int32_t parent;
        std::string name;
    };
    struct KeyView {
        std::int32_t parent;
        std::string_view name;
    };
    // Transparent, so that finding a frame that exists builds no string.
    struct KeyHash {
        using is_transparent = void;
        std::size_t operator()(const KeyView& k) const { return std::hash<std::string_view>()(k.name) * 31 + std::size_t(k.parent + 1); }
        std::size_t operator()(const Key& k) const { return (*this)(KeyView{k.parent, k.name}); }
    };
    struct KeyEqual {
        using is_transparent = void;
        static KeyView view(const Key& k) { return {k.parent, k.name}; }
        static KeyView view(const KeyView& k) { return k; }
        template <class A, class B>
        bool operator()(const A& a, const B& b) const { return view(a).parent == view(b).parent && view(a).name == view(b).name; }
    };
    std::vector<ProfileFrameInfo> frames;
    std::vector<std::int32_t> depth;
    std::unordered_map<Key, std::int32_t, KeyHash, KeyEqual> index;
    std::int64_t mergedFrames = 0;

    // services: copied only when the frame is new.
    std::int32_t child(std::int32_t parent, std::string_view name, FrameKind kind, std::span<const std::string_view> services = {}) {
        auto it = index.find(KeyView{parent, name});
        if (it != index.end()) return it->second;
        if (frames.size() >= kMaxProfileFrames && name != "[other]") {
            ++mergedFrames;
            return child(parent, "[other]", FrameKind::Segment);
        }
        const auto id = static_cast<std::int32_t>(frames.size());
        frames.push_back({parent, std::string(name), kind, std::vector<std::string>(services.begin(), services.end())});
        depth.push_back(parent < 0 ? 1 : depth[static_cast<std::size_t>(parent)] + 1);
        index.emplace(Key{parent, std::string(name)}, id);
        return id;
    }
};

// An event-log segment's frame is fixed by its type, its task and, for a network trip, the roles of its
// two hosts: resolved to a frame id once per shard, so that a request costs no strings or string hashing.
struct SegmentFrameKey {
    std::uint32_t type, task;
    std::int32_t fromRole, toRole;  // kNoRole unless a network trip
    bool operator==(const SegmentFrameKey&) const = default;
};
constexpr std::int32_t kNoRole = -1;
struct SegmentFrameKeyHash {
    std::size_t operator()(const SegmentFrameKey& k) const {
        const std::uint64_t a = std::uint64_t{k.type} << 32 | k.task;
        const std::uint64_t b = std::uint64_t{static_cast<std::uint32_t>(k.fromRole)} << 32 | static_cast<std::uint32_t>(k.toRole);
        const std::uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full);
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

struct ShardState {
    FrameTable table;
    std::vector<std::vector<FrameStats>> stats;  // [group][frame]
    std::vector<std::int64_t> requests;
    std::vector<double> latencySum;
    std::int64_t truncated = 0;
    std::int64_t fromCache = 0;  // requests whose cached critical path was read
    // Per-request scratch.
    std::vector<TimeNs> self, total;
    std::vector<std::uint32_t> stamp;  // == request: the frame is in touched
    std::uint32_t request = 0;
    std::vector<std::int32_t> touched;
    std::vector<std::int32_t> spanFrame;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> hosts;  // per segment: start and end host
    std::vector<std::string> tasks;                               // span requests: task names,
    std::vector<std::uint32_t> segmentTask;                       // each segment's index into them
    std::unordered_map<std::uint32_t, std::uint32_t> taskIndex;
    std::string name;                                             // a frame name being built
    std::vector<std::int32_t> ancestors;
    std::vector<TimeNs> partStart;
    RequestDag cachedDag;     // a request's segments, with its cached path: no graph is built
    CriticalPath cachedPath;
    // Resolved frames (see SegmentFrameKey); a frame merged into "[other]" is never kept here, so that each
    // request past the frame cut still counts in mergedFrames as before.
    std::unordered_map<SegmentFrameKey, std::int32_t, SegmentFrameKeyHash> segmentFrame;
    std::int32_t blindFrame = -1;                                 // event logs' top-level "blind", once made
    // Host roles (hostRole of the host's label), each host's computed once: a role id per host, -1 not yet.
    std::vector<std::int32_t> roleOfHost;
    std::vector<std::string> roles;
    std::unordered_map<std::string, std::int32_t> roleIds;
};

} // namespace

void FrameStats::keepIfSlow(FrameRequest r) {
    if (r.totalNs <= slowest.back().totalNs) return;
    std::size_t i = slowest.size() - 1;
    for (; i > 0 && slowest[i - 1].totalNs < r.totalNs; --i) slowest[i] = slowest[i - 1];
    slowest[i] = r;
}

namespace {

int histogramBin(double ns) {
    const double us = ns / 1000.0;
    if (us < 2) return 0;
    return std::min(kProfileHistogramBins - 1, static_cast<int>(std::log2(us)));
}

class Builder {
public:
    Builder(const InMemoryAnalysis& analysis, const std::vector<std::vector<std::uint32_t>>& groups, const ProfileOptions& options)
        : m_analysis(analysis), m_td(analysis.data), m_paths(options.paths), m_groupCount(groups.size()) {
        m_mask.assign(m_td.requestCount(), 0);
        for (std::size_t g = 0; g < groups.size(); ++g)
            for (auto r : groups[g])
                if (r < m_mask.size()) m_mask[r] |= static_cast<std::uint8_t>(1u << g);
        TypeCategories typed = categorizeSegmentTypes(m_td, options.rules);
        m_categories = std::move(typed.categories);
        m_typeCategory = std::move(typed.typeCategory);
        m_tripBack.resize(m_td.segmentTypes.size());
        for (std::size_t t = 0; t < m_tripBack.size(); ++t) m_tripBack[t] = isTripBack(m_td.label(m_td.segmentTypes[t].startEvent.value));
    }

    bool selected(std::size_t row) const { return row < m_mask.size() && m_mask[row] != 0; }

    void initShard(ShardState& s) const {
        if (!s.stats.empty()) return;
        s.stats.resize(m_groupCount);
        s.requests.assign(m_groupCount, 0);
        s.latencySum.assign(m_groupCount, 0);
    }

    // One request: its critical path as frames with self time, then totals up the ancestry, then the groups.
    void process(ShardState& s, RequestPass& pass, std::size_t row, const std::vector<SpanShape>* spans) const {
        const RequestDag* dagOf = nullptr;
        const CriticalPath* pathOf = nullptr;
        if (m_paths && m_paths->has(row)) {
            const RequestSpan extent = buildSegments(m_td.eventsOf(row), m_analysis.offsets, s.cachedDag.segments);
            s.cachedDag.startNs = extent.startNs;
            s.cachedDag.endNs = extent.endNs;
            if (s.cachedDag.segments.size() == m_paths->segmentCount[row]) {
                m_paths->get(row, s.cachedPath);
                ++s.fromCache;
                dagOf = &s.cachedDag;
                pathOf = &s.cachedPath;
            }
        }
        if (!dagOf) {
            const RequestPassResult& result = pass.criticalPath(m_td, row, m_analysis.offsets);
            dagOf = &result.dag;
            pathOf = &result.criticalPath;
        }
        const RequestDag& dag = *dagOf;
        const CriticalPath& cp = *pathOf;
        s.touched.clear();
        ++s.request;
        auto touch = [&](std::int32_t frame) {
            const auto f = static_cast<std::size_t>(frame);
            if (s.self.size() <= f) {
                s.self.resize(s.table.frames.size() + 64, 0);
                s.total.resize(s.table.frames.size() + 64, 0);
                s.stamp.resize(s.table.frames.size() + 64, 0);
            }
            if (s.stamp[f] != s.request) {
                s.stamp[f] = s.request;
                s.touched.push_back(frame);
            }
        };
        auto addSelf = [&](std::int32_t frame, TimeNs ns) {
            touch(frame);
            s.self[static_cast<std::size_t>(frame)] += std::max<TimeNs>(0, ns);
        };
        // Hosts of each segment (segment k ends at the k-th event that closes one).
        const auto events = m_td.eventsOf(row);
        s.hosts.clear();
        for (std::size_t e = 1; e < events.size(); ++e)
            if (events[e].segmentType.isValid()) s.hosts.emplace_back(events[e - 1].host.value, events[e].host.value);
        auto roleOf = [&](std::uint32_t host) -> std::int32_t {
            if (s.roleOfHost.size() <= host) s.roleOfHost.resize(m_td.hostLabels.size(), -1);
            std::int32_t& role = s.roleOfHost[host];
            if (role < 0) {
                auto [it, fresh] = s.roleIds.try_emplace(hostRole(m_td.label(m_td.hostLabels[host].value)), static_cast<std::int32_t>(s.roles.size()));
                if (fresh) s.roles.push_back(it->first);
                role = it->second;
            }
            return role;
        };

        if (spans && !spans->empty()) {
            processSpans(s, dag, cp, *spans, addSelf, roleOf);
        } else {
            forEachPathPart(dag.segments, cp.segments, cp.clips, [&](std::uint32_t v, TimeNs from, TimeNs to) {
                const SegmentInstance& seg = dag.segments[v];
                const bool network = seg.network && v < s.hosts.size();
                const SegmentFrameKey key{seg.type.value, seg.task, network ? roleOf(s.hosts[v].first) : kNoRole,
                                          network ? roleOf(s.hosts[v].second) : kNoRole};
                auto found = s.segmentFrame.find(key);
                const std::int32_t leaf = found != s.segmentFrame.end() ? found->second : segmentFrame(s, seg, key);
                addSelf(leaf, to - from);
            });
            if (cp.blindNs > 0) addSelf(topBlindFrame(s), cp.blindNs);
        }
        // Totals: each frame's self added to it and every ancestor.
        const std::size_t touchedSelf = s.touched.size();
        for (std::size_t i = 0; i < touchedSelf; ++i) {
            const std::int32_t f = s.touched[i];
            const TimeNs ns = s.self[static_cast<std::size_t>(f)];
            for (std::int32_t x = f; x >= 0; x = s.table.frames[static_cast<std::size_t>(x)].parent) {
                touch(x);
                s.total[static_cast<std::size_t>(x)] += ns;
            }
        }
        const std::uint8_t mask = m_mask[row];
        for (std::size_t g = 0; g < m_groupCount; ++g) {
            if (!(mask & (1u << g))) continue;
            auto& st = s.stats[g];
            if (st.size() < s.table.frames.size()) st.resize(s.table.frames.size());
            s.requests[g] += 1;
            s.latencySum[g] += double(cp.latencyNs);
            for (auto f : s.touched) {
                const auto fi = static_cast<std::size_t>(f);
                const double total = double(s.total[fi]), self = double(s.self[fi]);
                FrameStats& fs = st[fi];
                fs.totalSum += total;
                fs.totalSumSq += total * total;
                fs.selfSum += self;
                if (total > 0) {
                    fs.criticalRequests += 1;
                    fs.histogram[static_cast<std::size_t>(histogramBin(total))] += 1;
                    fs.keepIfSlow({s.total[fi], static_cast<std::uint32_t>(row)});
                }
            }
        }
        for (auto f : s.touched) s.self[static_cast<std::size_t>(f)] = s.total[static_cast<std::size_t>(f)] = 0;
    }

private:
    // Category › task › START->END of an event-log segment, kept for its key unless merged past the frame cut.
    std::int32_t segmentFrame(ShardState& s, const SegmentInstance& seg, const SegmentFrameKey& key) const {
        const std::int64_t mergedBefore = s.table.mergedFrames;
        const SegmentType& type = m_td.segmentTypes[seg.type.value];
        const int c = seg.type.value < m_typeCategory.size() ? m_typeCategory[seg.type.value] : -1;
        const std::int32_t cat = s.table.child(-1, c >= 0 ? m_categories[static_cast<std::size_t>(c)] : "?", FrameKind::Category);
        const std::int32_t task = s.table.child(cat, m_td.label(seg.task), FrameKind::Task);
        const std::string name = m_td.label(type.startEvent.value) + "->" + m_td.label(type.endEvent.value);
        std::int32_t leaf;
        if (key.fromRole != kNoRole) {
            const std::string_view ends[] = {s.roles[static_cast<std::size_t>(key.fromRole)], s.roles[static_cast<std::size_t>(key.toRole)]};
            leaf = s.table.child(task, name, FrameKind::Network, ends);
        } else {
            leaf = s.table.child(task, name, FrameKind::Segment);
        }
        if (s.table.mergedFrames == mergedBefore) s.segmentFrame.emplace(key, leaf);
        return leaf;
    }

    static std::int32_t topBlindFrame(ShardState& s) {
        if (s.blindFrame >= 0) return s.blindFrame;
        const std::int64_t mergedBefore = s.table.mergedFrames;
        const std::int32_t frame = s.table.child(-1, "blind", FrameKind::Blind);
        if (s.table.mergedFrames == mergedBefore) s.blindFrame = frame;
        return frame;
    }

    // Work nobody waited for, under "[async]" by the span that began it: a part that lies within an async part
    // of its parent is that parent's work already, so each instant counts once.
    template <class AddSelf>
    static void addAsync(ShardState& s, const CriticalPath& cp, const std::vector<SpanShape>& spans, AddSelf& addSelf) {
        const auto& parts = cp.async;  // by span, each span's parts in time order
        auto coveredByParent = [&](const SpanPart& p) {
            const std::int32_t parent = static_cast<std::size_t>(p.span) < spans.size() ? spans[static_cast<std::size_t>(p.span)].parent : -1;
            if (parent < 0) return false;
            auto it = std::lower_bound(parts.begin(), parts.end(), parent, [](const SpanPart& q, std::int32_t span) { return q.span < span; });
            for (; it != parts.end() && it->span == parent; ++it)
                if (it->startNs <= p.startNs && it->endNs >= p.endNs) return true;
            return false;
        };
        std::int32_t top = -1;
        for (const SpanPart& p : parts) {
            if (p.endNs <= p.startNs || static_cast<std::size_t>(p.span) >= spans.size() || coveredByParent(p)) continue;
            if (top < 0) top = s.table.child(-1, "[async]", FrameKind::Async);
            const SpanShape& sp = spans[static_cast<std::size_t>(p.span)];
            s.name.assign(sp.service).append(":").append(sp.operation);
            const std::string_view service[] = {sp.service};
            addSelf(s.table.child(top, s.name, FrameKind::Async, service), p.endNs - p.startNs);
        }
    }

    template <class AddSelf, class RoleOf>
    void processSpans(ShardState& s, const RequestDag& dag, const CriticalPath& cp, const std::vector<SpanShape>& spans, AddSelf& addSelf,
                      RoleOf& roleOf) const {
        // The request's tasks by name, as the spans name the task their events landed in.
        s.tasks.clear();
        s.segmentTask.clear();
        s.taskIndex.clear();
        for (const auto& seg : dag.segments) {
            auto [it, fresh] = s.taskIndex.emplace(seg.task, static_cast<std::uint32_t>(s.tasks.size()));
            if (fresh) s.tasks.push_back(m_td.label(seg.task));
            s.segmentTask.push_back(it->second);
        }
        const std::vector<std::int32_t> segmentSpan =
            segmentSpans(s.segmentTask, s.tasks.size(), [&](std::uint32_t task) { return std::string_view(s.tasks[task]); }, spans);
        // Frame of every span: its parent's frame and its own name, stacks cut at kMaxProfileDepth.
        s.spanFrame.assign(spans.size(), -1);
        for (std::size_t i = 0; i < spans.size(); ++i) {
            const SpanShape& sp = spans[i];
            const std::int32_t parent = sp.parent >= 0 && static_cast<std::size_t>(sp.parent) < i ? s.spanFrame[static_cast<std::size_t>(sp.parent)] : -1;
            if (parent >= 0 && s.table.depth[static_cast<std::size_t>(parent)] >= static_cast<std::int32_t>(kMaxProfileDepth) - 1) {
                s.spanFrame[i] = s.table.frames[static_cast<std::size_t>(parent)].name == "[deeper]"
                                     ? parent
                                     : s.table.child(parent, "[deeper]", FrameKind::Span);
                ++s.truncated;
                continue;
            }
            s.name.assign(sp.service).append(":").append(sp.operation);
            const std::string_view service[] = {sp.service};
            s.spanFrame[i] = s.table.child(parent, s.name, FrameKind::Span, service);
        }
        auto frameOfSegment = [&](std::uint32_t v) -> std::int32_t {
            const std::int32_t owner = v < segmentSpan.size() ? segmentSpan[v] : -1;
            return owner >= 0 ? s.spanFrame[static_cast<std::size_t>(owner)] : -1;
        };
        std::vector<TimeNs>& partStart = s.partStart;  // each path entry's start on the path, for placing blind time
        partStart.clear();
        forEachPathPart(dag.segments, cp.segments, cp.clips, [&](std::uint32_t v, TimeNs from, TimeNs to) {
            partStart.push_back(from);
            const SegmentInstance& seg = dag.segments[v];
            std::int32_t frame = frameOfSegment(v);
            if (seg.network && v < s.hosts.size()) {
                // Both legs of a call are one hop, `caller → callee`, as the breakdown names its category.
                const std::int32_t fromRole = roleOf(s.hosts[v].first), toRole = roleOf(s.hosts[v].second);
                const SpanHop hop = spanHop(seg.type.value < m_tripBack.size() && m_tripBack[seg.type.value],
                                            s.roles[static_cast<std::size_t>(fromRole)], s.roles[static_cast<std::size_t>(toRole)]);
                assignHopName(s.name, hop);
                const std::string_view ends[] = {hop.caller, hop.callee};
                frame = s.table.child(frame, s.name, FrameKind::Network, ends);
            } else if (frame < 0) {
                frame = s.table.child(-1, m_td.label(seg.task), FrameKind::Task);
            }
            addSelf(frame, to - from);
        });
        addAsync(s, cp, spans, addSelf);
        // Blind time under the deepest span enclosing the critical segments on both sides of the gap.
        if (cp.blindNs <= 0) return;
        std::vector<std::int32_t>& ancestors = s.ancestors;
        auto owner = [&](std::int64_t pathIndex) -> std::int32_t {
            if (pathIndex < 0 || pathIndex >= static_cast<std::int64_t>(cp.segments.size())) return -1;
            const auto v = cp.segments[static_cast<std::size_t>(pathIndex)];
            return v < segmentSpan.size() ? segmentSpan[v] : -1;
        };
        auto commonAncestor = [&](std::int32_t a, std::int32_t b) -> std::int32_t {
            if (a < 0) return b;
            if (b < 0) return a;
            ancestors.clear();
            for (std::int32_t x = a; x >= 0; x = spans[static_cast<std::size_t>(x)].parent) ancestors.push_back(x);
            for (std::int32_t y = b; y >= 0; y = spans[static_cast<std::size_t>(y)].parent)
                if (std::find(ancestors.begin(), ancestors.end(), y) != ancestors.end()) return y;
            return -1;
        };
        std::size_t next = 0;  // first critical segment starting at or after the gap's end
        for (const BlindInterval& gap : cp.blind) {
            if (gap.durationNs <= 0) continue;
            const TimeNs gapEnd = gap.startNs + gap.durationNs;
            while (next < partStart.size() && partStart[next] < gapEnd) ++next;
            const std::int32_t span = commonAncestor(owner(static_cast<std::int64_t>(next) - 1), owner(static_cast<std::int64_t>(next)));
            const std::int32_t parent = span >= 0 ? s.spanFrame[static_cast<std::size_t>(span)] : -1;
            addSelf(s.table.child(parent, "blind", FrameKind::Blind), gap.durationNs);
        }
    }

    const InMemoryAnalysis& m_analysis;
    const TraceData& m_td;
    const CachedCriticalPaths* m_paths;
    std::size_t m_groupCount;
    std::vector<std::uint8_t> m_mask;
    std::vector<std::string> m_categories;
    std::vector<int> m_typeCategory;
    std::vector<bool> m_tripBack;  // per segment type: a call's trip back (span data)
};

// Shards' frames merged by (parent, name), parents first, their statistics added.
ProfileSet merge(std::vector<ShardState>& shards, std::size_t groupCount) {
    ProfileSet out;
    out.groups.resize(groupCount);
    FrameTable global;
    for (auto& shard : shards) {
        if (shard.stats.empty()) continue;
        out.truncatedStacks += shard.truncated;
        out.cachedPaths += shard.fromCache;
        out.mergedFrames += shard.table.mergedFrames;
        std::vector<std::int32_t> map(shard.table.frames.size());
        for (std::size_t f = 0; f < shard.table.frames.size(); ++f) {
            const ProfileFrameInfo& info = shard.table.frames[f];
            const std::int32_t parent = info.parent >= 0 ? map[static_cast<std::size_t>(info.parent)] : -1;
            const std::vector<std::string_view> services(info.services.begin(), info.services.end());
            map[f] = global.child(parent, info.name, info.kind, services);
        }
        for (std::size_t g = 0; g < groupCount; ++g) {
            ProfileGroup& group = out.groups[g];
            group.requests += shard.requests[g];
            group.latencySumNs += shard.latencySum[g];
            if (group.frames.size() < global.frames.size()) group.frames.resize(global.frames.size());
            for (std::size_t f = 0; f < shard.stats[g].size(); ++f) {
                const FrameStats& a = shard.stats[g][f];
                FrameStats& b = group.frames[static_cast<std::size_t>(map[f])];
                b.totalSum += a.totalSum;
                b.totalSumSq += a.totalSumSq;
                b.selfSum += a.selfSum;
                b.criticalRequests += a.criticalRequests;
                for (int h = 0; h < kProfileHistogramBins; ++h) b.histogram[static_cast<std::size_t>(h)] += a.histogram[static_cast<std::size_t>(h)];
                for (const FrameRequest& r : a.slowest)
                    if (r.totalNs > 0) b.keepIfSlow(r);
            }
        }
    }
    out.mergedFrames += global.mergedFrames;
    for (auto& g : out.groups) g.frames.resize(global.frames.size());
    out.frames = std::move(global.frames);
    return out;
}

} // namespace

Result<ProfileSet> buildProfiles(const InMemoryAnalysis& analysis, const TraceStore* store,
                                 const std::vector<std::vector<std::uint32_t>>& groups, const ProfileOptions& options,
                                 const ProgressSink* progress, const CancelToken* cancel) {
    if (groups.empty() || groups.size() > kMaxGroups) return Status::error("a profile takes 1 to 8 groups of requests");
    for (std::size_t g = 0; g < groups.size(); ++g)
        if (groups[g].empty()) return Status::error("empty selection: no analysed request to profile");
    const TraceData& td = analysis.data;
    Builder builder(analysis, groups, options);
    const unsigned threads = resolveThreads(options.threads);
    std::vector<ShardState> shards(threads);
    for (auto& s : shards) builder.initShard(s);

    const Status walked = forEachRequestWithSpans(
        td, store, [&](std::uint32_t r) { return builder.selected(r); }, threads, "profiling critical paths", progress, cancel,
        [&](unsigned shard) {
            return [&, shard, pass = RequestPass(analysis.model, td)](std::uint32_t row, const std::vector<SpanShape>* spans) mutable {
                builder.process(shards[shard], pass, row, spans);
            };
        });
    if (!walked) return walked;
    return merge(shards, groups.size());
}

} // namespace tracelight
