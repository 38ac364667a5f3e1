#include "tracelight/analysis/Analysis.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/base/BlobArena.h"
#include "tracelight/base/Bytes.h"
#include "tracelight/base/Json.h"
#include "tracelight/analysis/RequestPass.h"
#include "tracelight/analysis/Segments.h"
#include "tracelight/analysis/SqlResults.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/ResultTables.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/StoredAnalysis.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/ResultCache.h"

namespace tracelight {

namespace {

// 2: slack and blind intervals as int64 nanoseconds; 3: every number a varint (slack and blind zigzagged),
// which more than halved the per-request results a million-request analysis holds until it writes them;
// 4: 3 followed by a span request's path parts (clipped entries, each entry's span, asynchronous work),
// written only for span requests, so an event log's result is as it was.
constexpr std::uint8_t kBlobVersion = 3;
constexpr std::uint8_t kBlobVersionSpans = 4;

class StageClock {
public:
    explicit StageClock(std::vector<StageTiming>* stages) : m_stages(stages) {}
    void done(const char* stage) {
        const auto now = std::chrono::steady_clock::now();
        if (m_stages) m_stages->push_back({stage, std::chrono::duration<double>(now - m_last).count()});
        m_last = now;
    }
    // Starts the next stage now, for time already accounted for elsewhere.
    void restart() { m_last = std::chrono::steady_clock::now(); }

private:
    std::vector<StageTiming>* m_stages;
    std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

// Per-request result blob: slack per segment (ns), the critical path, the blind intervals (ns), as varints.

void encodeRequestResult(const RequestDag& dag, const CriticalPath& cp, const std::vector<TimeNs>& slack, std::string& out) {
    out.clear();
    const bool spans = !cp.clips.empty() || !cp.entrySpan.empty() || !cp.async.empty();
    putValue(out, spans ? kBlobVersionSpans : kBlobVersion);
    putVarint(out, dag.segments.size());
    for (TimeNs s : slack) putSignedVarint(out, s);
    putVarint(out, cp.segments.size());
    for (auto v : cp.segments) putVarint(out, v);
    putVarint(out, cp.blind.size());
    for (const auto& b : cp.blind) {
        putSignedVarint(out, b.startNs - dag.startNs);
        putSignedVarint(out, b.durationNs);
    }
    if (!spans) return;
    putVarint(out, cp.clips.size());
    for (const auto& c : cp.clips) {
        putVarint(out, c.entry);
        putSignedVarint(out, c.startNs - dag.startNs);
        putSignedVarint(out, c.endNs - c.startNs);
    }
    putVarint(out, cp.entrySpan.size());
    for (auto span : cp.entrySpan) putSignedVarint(out, span);
    putVarint(out, cp.async.size());
    for (const auto& a : cp.async) {
        putSignedVarint(out, a.span);
        putSignedVarint(out, a.startNs - dag.startNs);
        putSignedVarint(out, a.endNs - a.startNs);
    }
}

// The blob back: slack per segment (when asked for), the path, the blind intervals (made absolute with the
// request's start). False when the blob is of another version or damaged; counts are checked against the
// bytes left (every number takes at least one), so a damaged count cannot allocate without bound.
bool decodeRequestResult(std::string_view blob, TimeNs startNs, std::uint32_t& segmentCount, std::vector<TimeNs>* slack,
                         std::vector<std::uint32_t>& path, std::vector<BlindInterval>& blind, std::vector<PathClip>& clips,
                         std::vector<std::int32_t>* entrySpan = nullptr, std::vector<SpanPart>* async = nullptr) {
    std::uint8_t version = 0;
    std::uint64_t n = 0;
    if (!getValue(blob, version) || (version != kBlobVersion && version != kBlobVersionSpans) || !getVarint(blob, n) ||
        n > blob.size())
        return false;
    segmentCount = static_cast<std::uint32_t>(n);
    if (slack) slack->resize(segmentCount);
    for (std::uint32_t i = 0; i < segmentCount; ++i) {
        std::int64_t v = 0;
        if (!getSignedVarint(blob, v)) return false;
        if (slack) (*slack)[i] = v;
    }
    if (!getVarint(blob, n) || n > blob.size()) return false;
    for (std::uint64_t i = 0; i < n; ++i) {
        std::uint64_t v = 0;
        if (!getVarint(blob, v) || v >= segmentCount) return false;
        path.push_back(static_cast<std::uint32_t>(v));
    }
    if (!getVarint(blob, n) || n > blob.size() / 2) return false;
    for (std::uint64_t i = 0; i < n; ++i) {
        BlindInterval b{};
        if (!getSignedVarint(blob, b.startNs) || !getSignedVarint(blob, b.durationNs)) return false;
        b.startNs += startNs;
        blind.push_back(b);
    }
    if (version == kBlobVersionSpans) {
        if (!getVarint(blob, n) || n > blob.size() / 3) return false;
        for (std::uint64_t i = 0; i < n; ++i) {
            std::uint64_t entry = 0;
            TimeNs start = 0, duration = 0;
            if (!getVarint(blob, entry) || entry >= path.size() || !getSignedVarint(blob, start) || !getSignedVarint(blob, duration) ||
                (!clips.empty() && entry <= clips.back().entry))
                return false;
            clips.push_back({static_cast<std::uint32_t>(entry), startNs + start, startNs + start + duration});
        }
        if (!getVarint(blob, n) || (n != 0 && n != path.size()) || n > blob.size()) return false;
        for (std::uint64_t i = 0; i < n; ++i) {
            std::int64_t span = 0;
            if (!getSignedVarint(blob, span)) return false;
            if (entrySpan) entrySpan->push_back(static_cast<std::int32_t>(span));
        }
        if (!getVarint(blob, n) || n > blob.size() / 3) return false;
        for (std::uint64_t i = 0; i < n; ++i) {
            std::int64_t span = 0;
            TimeNs start = 0, duration = 0;
            if (!getSignedVarint(blob, span) || !getSignedVarint(blob, start) || !getSignedVarint(blob, duration)) return false;
            if (async) async->push_back({static_cast<std::int32_t>(span), startNs + start, startNs + start + duration});
        }
    }
    return blob.empty();
}

// Results are stamped with the last import of the data they were computed from.
// The naming filter changes which events every request has: results of another filter are stale.
std::string storedParameters(const AnalysisOptions& options, std::int64_t lastImport, const std::string& namingFilter) {
    return analysisParameters(options) + ";imports=" + std::to_string(lastImport) + (namingFilter.empty() ? "" : ";exclude_names=" + namingFilter);
}
std::string currentParameters(const TraceStore& store, const AnalysisOptions& options) {
    return storedParameters(options, store.lastImportId(), store.namingFilter());
}

std::string modelJson(const TraceData& data, const CausalModel& model) {
    JsonWriter w;
    auto segment = [&](SegmentTypeId id) {
        const SegmentType& t = data.segmentTypes[id.value];
        w.beginObject().key("task").value(data.label(t.task.value)).key("start").value(data.label(t.startEvent.value))
            .key("end").value(data.label(t.endEvent.value)).endObject();
    };
    auto relation = [&](const char* kind, SegmentTypeId a, SegmentTypeId b, std::int64_t support) {
        w.beginObject().key("kind").value(kind).key("a");
        segment(a);
        w.key("b");
        segment(b);
        w.key("support").value(support).key("confirmed").value(support >= model.supportFloor()).endObject();
    };
    w.beginObject().key("requests").value(model.requestsAnalysed()).key("support_floor").value(model.supportFloor());
    w.key("relations").beginArray();
    // Only pairs seen together can hold a relation: linear in those pairs, not in types squared.
    model.forEachPairSeenTogether([&](SegmentTypeId a, SegmentTypeId b, std::int64_t support) {
        if (model.happensBefore(a, b, false)) relation("happens_before", a, b, support);
    });
    model.forEachPairSeenTogether([&](SegmentTypeId a, SegmentTypeId b, std::int64_t support) {
        if (a < b && model.mutuallyExclusive(a, b, false)) relation("mutual_exclusion", a, b, support);
    });
    // A pipeline relation links a producer to its consumer; pairs of links that keep FIFO order form the pipeline.
    std::vector<std::pair<std::uint64_t, std::int64_t>> links;
    for (const auto& p : model.pipelines())
        for (const auto& l : {p.first, p.second}) {
            const std::uint64_t key = (std::uint64_t(l.producer.value) << 32) | l.consumer.value;
            bool found = false;
            for (auto& [k, s] : links)
                if (k == key) { s = std::max(s, p.support); found = true; }
            if (!found) links.emplace_back(key, p.support);
        }
    for (const auto& [key, support] : links)
        relation("pipeline", SegmentTypeId(static_cast<std::uint32_t>(key >> 32)), SegmentTypeId(static_cast<std::uint32_t>(key)), support);
    w.endArray().key("convergence").beginArray();
    for (const auto& p : model.convergence())
        w.beginObject().key("requests").value(p.requests).key("happens_before").value(p.happensBeforeAlive)
            .key("mutual_exclusion").value(p.mutualExclusionAlive).endObject();
    w.endArray().endObject();
    return w.text();
}

} // namespace

std::string analysisParameters(const AnalysisOptions& options) {
    return "support_floor=" + std::to_string(options.inference.supportFloor) +
           (options.inference.maxRequests >= 0 ? ";max_requests=" + std::to_string(options.inference.maxRequests) : "");
}

SkewEstimates collectSkewEstimates(const TraceData& data, unsigned threads, Collective* group) {
    threads = resolveThreads(threads);
    std::vector<SkewEstimates> shards(threads);
    forEachShard(data.requestCount(), threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) shards[shard].addRequest(data.eventsOf(r), data.isFromSpans(r));
    });
    for (std::size_t s = 1; s < shards.size(); ++s) shards[0].merge(shards[s]);
    if (!group || group->size() == 1) return std::move(shards[0]);
    // Every process merges every process's estimates in rank order: the order of the requests.
    SkewEstimates all;
    for (const auto& bytes : group->allGather(shards[0].bytes())) all.mergeBytes(bytes);
    return all;
}

Result<InMemoryAnalysis> analyzeInMemory(TraceData data, const AnalysisOptions& options, std::vector<StageTiming>* stages,
                                         const ProgressSink* progress, const CancelToken* cancel, const RequestShare* share,
                                         const OffsetsSolved* offsetsSolved, SkewEstimates* estimatesOut) {
    StageClock clock(stages);
    Collective* group = share ? share->group : nullptr;
    SkewEstimates estimates = collectSkewEstimates(data, options.inference.threads, group);
    ClockOffsets offsets = solveClockOffsets(estimates, data.hostLabels.size());
    if (estimatesOut) *estimatesOut = std::move(estimates);
    clock.done("clock skew");
    const bool stop = cancel && cancel->isCancelled();
    if (group ? group->any(stop) : stop) return Status::error("cancelled");
    if (offsetsSolved && *offsetsSolved) (*offsetsSolved)(data, offsets);
    auto model = inferModel(data, offsets, options.inference, progress, cancel, share);
    if (!model) return model.status();
    clock.done("model inference");
    return InMemoryAnalysis{std::move(data), std::move(offsets), std::move(model.value())};
}

namespace {

// Per segment type aggregates for the model view: per shard, then summed over shards and processes.
struct TypeTotals {
    // Instances (for the mean duration and the network share), requests holding one, and requests in which
    // one was on the critical path (each request once, however often the type occurs in it).
    std::int64_t occurrences = 0, network = 0, requests = 0, critical = 0;
    TimeNs durationNs = 0, criticalNs = 0;
    std::vector<std::pair<TimeNs, std::uint32_t>> slowest;  // (latency, request index in the whole sequence)
    std::size_t seenIn = ~std::size_t(0), criticalIn = ~std::size_t(0);  // the last request counted (per shard)

    void add(const TypeTotals& o) {
        occurrences += o.occurrences;
        network += o.network;
        requests += o.requests;
        critical += o.critical;
        durationNs += o.durationNs;
        criticalNs += o.criticalNs;
        slowest.insert(slowest.end(), o.slowest.begin(), o.slowest.end());
    }
    void keepSlowest() {
        std::sort(slowest.rbegin(), slowest.rend());
        if (slowest.size() > kSlowestCriticalKept) slowest.resize(kSlowestCriticalKept);
    }
};

// Request r's segments and critical path counted into the totals of their types; sequenceIndex names the
// request among the slowest.
void countRequest(std::vector<TypeTotals>& typeTotals, const std::vector<SegmentInstance>& segments, const CriticalPath& cp,
                  std::size_t r, std::uint32_t sequenceIndex) {
    for (const auto& s : segments) {
        auto& t = typeTotals[s.type.value];
        ++t.occurrences;
        if (t.seenIn != r) t.seenIn = r, ++t.requests;
        t.network += s.network;
        t.durationNs += s.durationNs();
    }
    forEachPathPart(segments, cp.segments, cp.clips, [&](std::uint32_t v, TimeNs from, TimeNs to) {
        auto& t = typeTotals[segments[v].type.value];
        t.criticalNs += to - from;
        if (t.criticalIn == r) return;  // the request counts once
        t.criticalIn = r;
        ++t.critical;
        auto greater = std::greater<std::pair<TimeNs, std::uint32_t>>();
        if (t.slowest.size() < kSlowestCriticalKept) {
            t.slowest.emplace_back(cp.latencyNs, sequenceIndex);
            std::push_heap(t.slowest.begin(), t.slowest.end(), greater);
        } else if (std::pair{cp.latencyNs, sequenceIndex} > t.slowest.front()) {  // ties too: whichever requests a shard got
            std::pop_heap(t.slowest.begin(), t.slowest.end(), greater);
            t.slowest.back() = {cp.latencyNs, sequenceIndex};
            std::push_heap(t.slowest.begin(), t.slowest.end(), greater);
        }
    });
}

// A type's statistics from its totals over `requests` requests (its names left as they are).
template <typename NameOf>
void fillStats(const TypeTotals& sum, std::size_t requests, NameOf&& nameOf, SegmentTypeStats& st) {
    st.occurrences = sum.requests;
    st.meanDurationNs = sum.occurrences ? double(sum.durationNs) / double(sum.occurrences) : 0;
    st.networkShare = sum.occurrences ? double(sum.network) / double(sum.occurrences) : 0;
    st.criticalCount = sum.critical;
    st.meanCriticalNs = requests ? double(sum.criticalNs) / double(requests) : 0;
    for (const auto& [latency, r] : sum.slowest)
        if (const auto& name = nameOf(r)) st.slowestCriticalRequests.push_back(*name);
}

struct RequestResult {
    TimeNs startNs = 0, latencyNs = 0, blindNs = 0;
    std::string_view blob;  // in the analysis's BlobArena
};

// The first process collects every process's totals (sums) and slowest requests.
void mergeTotalsAcross(std::vector<TypeTotals>& totals, Collective& group) {
    if (group.size() == 1) return;
    std::vector<std::int64_t> sums;
    constexpr std::size_t kFields = 6;
    sums.reserve(totals.size() * kFields);
    for (const auto& t : totals) sums.insert(sums.end(), {t.occurrences, t.network, t.requests, t.critical, t.durationNs, t.criticalNs});
    group.sum(sums);
    std::string mine;
    for (std::size_t type = 0; type < totals.size(); ++type) {
        TypeTotals& t = totals[type];
        t.occurrences = sums[kFields * type];
        t.network = sums[kFields * type + 1];
        t.requests = sums[kFields * type + 2];
        t.critical = sums[kFields * type + 3];
        t.durationNs = sums[kFields * type + 4];
        t.criticalNs = sums[kFields * type + 5];
        putValue(mine, static_cast<std::uint32_t>(t.slowest.size()));
        for (const auto& [latency, r] : t.slowest) {
            putValue(mine, latency);
            putValue(mine, r);
        }
        t.slowest.clear();
    }
    for (const auto& bytes : group.gatherToFirst(mine)) {
        std::string_view in(bytes);
        for (auto& t : totals) {
            std::uint32_t count = 0;
            getValue(in, count);
            for (std::uint32_t i = 0; i < count; ++i) {
                std::pair<TimeNs, std::uint32_t> entry;
                if (getValue(in, entry.first) && getValue(in, entry.second)) t.slowest.push_back(entry);
            }
        }
    }
    for (auto& t : totals) t.keepSlowest();
}

// The first process collects every process's request results, in request order.
void gatherResults(std::vector<RequestId>& requestIds, std::vector<RequestResult>& results, BlobArena& blobs, Collective& group) {
    if (group.size() == 1) return;
    std::string mine;
    for (std::size_t r = 0; r < results.size(); ++r) {
        putValue(mine, requestIds[r]);
        putValue(mine, results[r].startNs);
        putValue(mine, results[r].latencyNs);
        putValue(mine, results[r].blindNs);
        putBytes(mine, results[r].blob);
    }
    requestIds.clear();
    results.clear();
    for (auto& message : group.gatherToFirst(mine)) {
        std::string_view in = blobs.adopt(std::move(message));  // the blobs stay views into it
        RequestId id;
        while (getValue(in, id)) {
            RequestResult res;
            getValue(in, res.startNs);
            getValue(in, res.latencyNs);
            getValue(in, res.blindNs);
            getBytes(in, res.blob);
            requestIds.push_back(id);
            results.push_back(std::move(res));
        }
    }
}

// What an incremental analysis starts from (stored beside the results as "analysis_state"): the requests
// analysed (ids, in order), the hosts and segment types they knew (in TraceData order, checked by label),
// the clocks, the skew estimates and the model with every hypothesis's state.
constexpr const char* kStateResult = "analysis_state";
constexpr char kStateMagic[4] = {'T', 'L', 'S', '1'};
struct AnalysisState {
    std::string params;  // analysisParameters of the options
    std::int64_t lastImport = 0;
    std::vector<RequestId> requestIds;
    std::vector<LabelId> hostLabels;
    std::vector<TimeNs> offsetNs;
    std::vector<std::array<std::string, 3>> typeNames;  // task, start event, end event
    std::string_view skew, model;                         // views of the stored bytes
};

// requestIds: every request analysed (a distributed run's first process has gathered them; data holds its own).
// The parameters an earlier analysis must share to be refined: the options, and the naming filter (which
// changes every request's events).
std::string stateParameters(const AnalysisOptions& options, const std::string& namingFilter) {
    return analysisParameters(options) + (namingFilter.empty() ? "" : ";exclude_names=" + namingFilter);
}

std::string encodeState(const std::string& parameters, std::int64_t lastImport, const std::vector<RequestId>& requestIds,
                        const TraceData& data, const ClockOffsets& offsets, const SkewEstimates& estimates, const CausalModel& model) {
    std::string out(kStateMagic, 4);
    putBytes(out, parameters);
    putValue(out, lastImport);
    putVarint(out, requestIds.size());
    std::uint32_t previous = 0;
    for (RequestId id : requestIds) {  // increasing: the gaps are small
        putVarint(out, id.value - previous);
        previous = id.value;
    }
    putVarint(out, data.hostLabels.size());
    for (std::size_t h = 0; h < data.hostLabels.size(); ++h) {
        putVarint(out, data.hostLabels[h].value);
        putSignedVarint(out, offsets.offsetNs[h]);
    }
    putVarint(out, data.segmentTypes.size());
    for (const SegmentType& t : data.segmentTypes)
        for (LabelId label : {t.task, t.startEvent, t.endEvent}) putBytes(out, data.label(label.value));
    putBytes(out, estimates.bytes());
    putBytes(out, model.serializeState());
    return out;
}

std::optional<AnalysisState> decodeState(std::string_view in) {
    AnalysisState st;
    if (in.size() < 4 || std::memcmp(in.data(), kStateMagic, 4) != 0) return std::nullopt;
    in.remove_prefix(4);
    std::string_view params;
    std::uint64_t n = 0;
    if (!getBytes(in, params) || !getValue(in, st.lastImport) || !getVarint(in, n) || n > in.size()) return std::nullopt;
    st.params = std::string(params);
    std::uint64_t id = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        std::uint64_t gap = 0;
        if (!getVarint(in, gap)) return std::nullopt;
        id += gap;
        st.requestIds.push_back(RequestId(static_cast<std::uint32_t>(id)));
    }
    if (!getVarint(in, n) || n > in.size()) return std::nullopt;
    for (std::uint64_t h = 0; h < n; ++h) {
        std::uint64_t label = 0;
        std::int64_t offset = 0;
        if (!getVarint(in, label) || !getSignedVarint(in, offset)) return std::nullopt;
        st.hostLabels.push_back(LabelId(static_cast<std::uint32_t>(label)));
        st.offsetNs.push_back(offset);
    }
    if (!getVarint(in, n) || n > in.size()) return std::nullopt;
    st.typeNames.resize(static_cast<std::size_t>(n));
    for (auto& names : st.typeNames)
        for (auto& name : names) {
            std::string_view text;
            if (!getBytes(in, text)) return std::nullopt;
            name = std::string(text);
        }
    if (!getBytes(in, st.skew) || !getBytes(in, st.model) || !in.empty()) return std::nullopt;
    return st;
}

// The pairs of types whose relation the per-request graphs read differently in `after` than in `before`
// (a confirmed happens-before or mutual exclusion gained or lost), per type: a request with both types of
// such a pair has another graph now. A changed pipeline (support aside) affects every request with any of
// its types, which `anyType` marks.
struct ModelChange {
    std::vector<std::vector<std::uint32_t>> partners;  // per prior type
    std::vector<std::uint8_t> anyType;                 // per prior type
    bool none = true;
};
ModelChange modelChange(const CausalModel& before, const CausalModel& after) {
    ModelChange c;
    const std::size_t n = before.typeCount();
    c.partners.assign(n, {});
    c.anyType.assign(n, 0);
    auto differ = [&](const std::vector<SegmentTypeId>& x, const std::vector<SegmentTypeId>& y, std::uint32_t a) {
        // Both rows are in increasing type order: their symmetric difference in one walk.
        std::size_t i = 0, j = 0;
        auto mark = [&](SegmentTypeId b) {
            if (b.value >= n) return;  // a type the earlier requests never held
            c.partners[a].push_back(b.value);
            c.partners[b.value].push_back(a);
            c.none = false;
        };
        while (i < x.size() || j < y.size()) {
            if (j == y.size() || (i < x.size() && x[i] < y[j])) mark(x[i++]);
            else if (i == x.size() || y[j] < x[i]) mark(y[j++]);
            else ++i, ++j;
        }
    };
    for (std::uint32_t a = 0; a < n; ++a) {
        differ(before.happensBeforeRow(SegmentTypeId(a)), after.happensBeforeRow(SegmentTypeId(a)), a);
        differ(before.mutualExclusionRow(SegmentTypeId(a)), after.mutualExclusionRow(SegmentTypeId(a)), a);
    }
    auto sameLinks = [](const PipelinePair& x, const PipelinePair& y) {
        return x.first.producerTypes == y.first.producerTypes && x.first.consumerTypes == y.first.consumerTypes &&
               x.second.producerTypes == y.second.producerTypes && x.second.consumerTypes == y.second.consumerTypes;
    };
    const auto& p = before.pipelines();
    const auto& q = after.pipelines();
    const bool samePipelines = p.size() == q.size() && std::equal(p.begin(), p.end(), q.begin(), sameLinks);
    if (!samePipelines) {
        for (const auto* list : {&p, &q})
            for (const PipelinePair& pair : *list)
                for (const auto* types : {&pair.first.producerTypes, &pair.first.consumerTypes, &pair.second.producerTypes,
                                          &pair.second.consumerTypes})
                    for (SegmentTypeId t : *types)
                        if (t.value < n) c.anyType[t.value] = 1, c.none = false;
    }
    return c;
}

// An incremental analysis's plan, when one can run.
struct Incremental {
    std::string stateBytes;  // as read: the write checks nobody stored another meanwhile
    std::size_t firstNew = 0;
    ClockOffsets offsets;
    SkewEstimates estimates;
    CausalModel model;
    std::vector<std::uint8_t> derive;  // per row: 1 when the per-request pass runs on it
};

std::optional<Incremental> planIncremental(const AnalysisOptions& options, const std::string& parameters, const TraceData& data,
                                           std::optional<std::string> stateBytes,
                                           std::int64_t replacedEarlier, std::string& fullBecause, const ProgressSink* progress,
                                           const CancelToken* cancel, Status& error) {
    if (!stateBytes || stateBytes->empty()) {
        fullBecause = "no earlier analysis to refine";
        return std::nullopt;
    }
    const auto state = decodeState(*stateBytes);
    if (!state) {
        fullBecause = "the earlier analysis's state is damaged";
        return std::nullopt;
    }
    const std::size_t before = state->requestIds.size(), n = data.requestCount();
    if (state->params != parameters) fullBecause = "other analysis parameters";
    else if (before > n || !std::equal(state->requestIds.begin(), state->requestIds.end(), data.requestIds.begin()))
        fullBecause = "requests analysed before were removed, or new ones come before them";
    else if (replacedEarlier != 0) fullBecause = "requests analysed before were stored again";
    else if (state->hostLabels.size() > data.hostLabels.size() ||
             !std::equal(state->hostLabels.begin(), state->hostLabels.end(), data.hostLabels.begin()))
        fullBecause = "the hosts are numbered differently";
    else if (state->typeNames.size() > data.segmentTypes.size()) fullBecause = "the segment types are numbered differently";
    if (!fullBecause.empty()) return std::nullopt;
    for (std::size_t t = 0; t < state->typeNames.size(); ++t) {
        const SegmentType& type = data.segmentTypes[t];
        if (state->typeNames[t] != std::array<std::string, 3>{data.label(type.task.value), data.label(type.startEvent.value),
                                                             data.label(type.endEvent.value)}) {
            fullBecause = "the segment types are numbered differently";
            return std::nullopt;
        }
    }
    Incremental inc;
    inc.firstNew = before;
    // The clocks: the new requests' round trips join the stored estimates, in request order.
    if (!inc.estimates.mergeBytes(state->skew)) {
        fullBecause = "the earlier analysis's state is damaged";
        return std::nullopt;
    }
    const unsigned threads = resolveThreads(options.inference.threads);
    std::vector<SkewEstimates> shards(threads);
    forEachShard(n - before, threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
        for (std::size_t r = before + begin; r < before + end; ++r) shards[shard].addRequest(data.eventsOf(r), data.isFromSpans(r));
    });
    for (const auto& shard : shards) inc.estimates.merge(shard);
    inc.offsets = solveClockOffsets(inc.estimates, data.hostLabels.size());
    for (std::size_t h = 0; h < state->offsetNs.size(); ++h)
        if (inc.offsets.offsetNs[h] != state->offsetNs[h]) {
            fullBecause = "a host's clock offset changed";
            return std::nullopt;
        }
    auto prior = CausalModel::deserializeState(state->model);
    if (!prior) {
        fullBecause = "the earlier analysis's state is damaged";
        return std::nullopt;
    }
    auto refined = refineModel(prior.value(), data, inc.offsets, before, options.inference, progress, cancel);
    if (!refined) {
        error = refined.status();
        return std::nullopt;
    }
    if (!refined->model) {
        fullBecause = refined->fullBecause;
        return std::nullopt;
    }
    inc.model = std::move(*refined->model);
    // The per-request pass: every new request, and each earlier one whose graph the refinement changed.
    inc.derive.assign(n, 1);
    const ModelChange change = modelChange(prior.value(), inc.model);
    forEachShard(before, threads, [&](unsigned, std::size_t begin, std::size_t end) {
        std::vector<std::uint8_t> present(change.partners.size(), 0);
        for (std::size_t r = begin; r < end; ++r) {
            bool affected = false;
            if (!change.none) {
                const auto events = data.eventsOf(r);
                for (const EventRecord& e : events)
                    if (e.segmentType.isValid() && e.segmentType.value < present.size()) present[e.segmentType.value] = 1;
                for (const EventRecord& e : events) {
                    if (!e.segmentType.isValid() || e.segmentType.value >= present.size()) continue;
                    const auto t = e.segmentType.value;
                    if (change.anyType[t]) affected = true;
                    for (auto partner : change.partners[t]) affected = affected || present[partner];
                    if (affected) break;
                }
                for (const EventRecord& e : events)
                    if (e.segmentType.isValid() && e.segmentType.value < present.size()) present[e.segmentType.value] = 0;
            }
            inc.derive[r] = affected ? 1 : 0;
        }
    });
    inc.stateBytes = std::move(*stateBytes);
    return inc;
}

// Reported when another analysis stored its results while this one ran (an incremental write checks).
const char* const kRaced = "another analysis stored its results meanwhile";

Result<AnalysisSummary> analyzeStoreOnce(TraceStore& store, const AnalysisOptions& options, const ProgressSink* progress,
                                         const CancelToken* cancel, Collective* groupOrNull) {
    SingleProcess single;
    Collective& group = groupOrNull ? *groupOrNull : single;
    AnalysisSummary summary;
    StageClock clock(&summary.stages);
    ProgressSink scaled = [&](double f, std::string_view stage) {
        if (progress && *progress) (*progress)(f, stage);
    };
    ProgressSink reading = [&](double f, std::string_view s) { scaled(0.3 * f, s); };
    // This process's run of requests: all of them, or its part of a distributed run.
    RequestIdRange range;
    if (group.size() > 1) {
        const auto cuts = store.requestIdCuts(group.size());
        range = {cuts[static_cast<std::size_t>(group.rank())], cuts[static_cast<std::size_t>(group.rank()) + 1]};
    }
    // One read snapshot: the data and the import it ends with, whatever commits while the analysis runs.
    if (Status s = store.beginRead(); !s) return s;
    const std::int64_t lastImportRead = store.lastImportId();
    const std::string namingFilterRead = store.namingFilter();
    auto data = loadTraceData(store, range, &reading, cancel, ReadRuns{options.inference.threads});
    // What an incremental analysis would refine, from the same snapshot: the state and whether any request it
    // analysed was stored again since.
    std::optional<std::string> stateBytes;
    std::int64_t replacedEarlier = 0;
    if (data && group.size() == 1) {
        stateBytes = latestResult(store, kStateResult, kAnalysisVersion);
        if (stateBytes)
            if (const auto state = decodeState(*stateBytes); state && !state->requestIds.empty())
                replacedEarlier = requestsImportedAfter(store, state->lastImport, state->requestIds.back());
    }
    store.endRead();
    if (group.any(!data)) return data ? Status::error("another process of the run could not read its requests") : data.status();
    clock.done("read");
    const RequestShare share = group.size() > 1 ? shareAcrossGroup(data.value(), group) : RequestShare::whole(data.value());
    const std::size_t requests = data.value().requestCount();
    std::vector<RequestResult> results;  // per request, in request order, once the model is inferred
    const unsigned threads = resolveThreads(options.inference.threads);
    ProgressSink inferring = [&](double f, std::string_view s) { scaled(0.3 + 0.3 * f, s); };
    std::optional<Incremental> inc;
    if (options.full) {
        summary.fullBecause = "asked for";
    } else if (group.size() == 1) {
        Status failed = Status::ok();
        inc = planIncremental(options, stateParameters(options, namingFilterRead), data.value(), std::move(stateBytes), replacedEarlier, summary.fullBecause, &inferring, cancel, failed);
        if (!failed) return failed;
        if (inc) clock.done("clock skew and model refinement");
    } else {
        summary.fullBecause = "a distributed run";
    }
    // The results the earlier analysis cached, kept for the requests the pass does not run on.
    std::vector<RequestResult> cachedResults;
    BlobArena cachedBlobs;
    if (inc) {
        cachedResults.resize(requests);
        const Status scanned = forEachCachedResult(store, data.value(), [&](std::size_t row, TimeNs startNs, TimeNs latencyNs, TimeNs blindNs,
                                                                            std::string_view blob) {
            if (row < inc->firstNew && !inc->derive[row]) cachedResults[row] = {startNs, latencyNs, blindNs, cachedBlobs.keep(blob)};
            return true;
        });
        if (!scanned) return scanned;
        clock.done("read cached results");
    }
    std::vector<BlobArena> shardBlobs(threads);  // the results' bytes: they outlive the writer that stores them
    ThrottledProgress reporter(&scaled);

    // What the write stores: the clocks, then every request's result, in one transaction (on failure or
    // cancel the old results stay). A single process writes while the analysis goes on, on a thread of its
    // own: the old results' removal and the clocks as soon as the clocks are solved (beside the model's
    // inference), then each request's result once the pass has computed it and those before it (the write
    // was a tenth of the corpus's analysis on one core, and its tail kept a core idle at the end); a
    // distributed run's first process writes once it has gathered every result.
    std::vector<ClockOffsetRow> offsetRows;
    std::vector<ClockPairRow> pairRows;
    // Begins the transaction and stores the clocks (then lets their rows go) and the results of `total`
    // requests, results[r] once isReady(r) (false: the pass stopped before it, and so does the write). The
    // caller rolls back what fails.
    auto writeRequests = [&](const std::vector<RequestId>& ids, std::size_t total, const std::function<bool(std::size_t)>& isReady,
                             bool report) -> Status {
        if (Status s = store.begin(); !s) return s;
        if (Status s = replaceClockResults(store, offsetRows, pairRows); !s) return s;
        std::vector<ClockOffsetRow>().swap(offsetRows);
        std::vector<ClockPairRow>().swap(pairRows);
        constexpr std::size_t kChunk = 8192;  // rows per call: a multiple of the 128 a statement stores
        for (std::size_t first = 0; first < total; first += kChunk) {
            const std::size_t count = std::min(kChunk, total - first);
            for (std::size_t r = first; r < first + count; ++r)
                if (!isReady(r)) return Status::error("cancelled");
            const Status stored = storeRequestResults(store, count, [&](std::size_t i) {
                const RequestResult& res = results[first + i];
                return RequestResultRow{ids[first + i], res.startNs, res.latencyNs, res.blindNs, res.blob};
            });
            if (!stored) return stored;
            if (report) reporter.report(0.9 + 0.1 * double(first + count) / double(total), "writing results");
        }
        return Status::ok();
    };
    const bool writeAlongside = group.size() == 1 && !inc && !options.writeAtEnd;
    std::vector<std::atomic<bool>> ready(writeAlongside ? requests : 0);  // results[r] is in
    std::atomic<bool> passOver{false}, writeFailed{false}, abandoned{false};  // abandoned: ended before the pass did
    Status writtenAlongside = Status::ok();
    std::vector<RequestId> writtenIds;  // the writer's copy: the data moves while it runs
    std::thread writer;
    // However analyzeStore ends (an exception included), the writer is joined (it stops once the pass is
    // over) and then what it began is rolled back: after the commit that does nothing.
    struct RollBackAtExit {
        TraceStore& store;
        ~RollBackAtExit() { store.rollback(); }
    } rollBackAtExit{store};
    struct JoinWriter {
        std::thread& writer;
        std::atomic<bool>& passOver;
        std::atomic<bool>& abandoned;
        ~JoinWriter() {
            if (!passOver) abandoned = true;
            passOver = true;
            if (writer.joinable()) writer.join();
        }
    } joinWriter{writer, passOver, abandoned};
    const OffsetsSolved startWriting = [&](const TraceData& solved, const ClockOffsets& offsets) {
        offsetRows.resize(solved.hostLabels.size());
        for (std::size_t h = 0; h < solved.hostLabels.size(); ++h) {
            offsetRows[h] = {solved.hostLabels[h].value, offsets.offsetNs[h], std::nullopt, 0};
            if (offsets.parent[h] >= 0) {
                offsetRows[h].parentHost = solved.hostLabels[static_cast<std::size_t>(offsets.parent[h])].value;
                offsetRows[h].rttNs = offsets.rttNs[h];
            }
        }
        pairRows.reserve(offsets.decisions.size());
        for (const SkewDecision& d : offsets.decisions)
            pairRows.push_back({solved.hostLabels[d.client.value].value, solved.hostLabels[d.server.value].value, d.offsetNs, d.rttNs,
                                d.roundTrips, d.outside, std::string(skewRuleName(d.rule)), d.applied});
        if (!writeAlongside) return;
        writtenIds = solved.requestIds;
        writer = std::thread([&] {
            // Waits for `ready` (true), a cancel (false) or `end` (false unless ready by then), polling: an
            // analysis that stops is not held up by its writer.
            auto await = [&](auto&& ready, const std::atomic<bool>& end) {
                while (!ready()) {
                    if (cancel && cancel->isCancelled()) return false;
                    if (end.load(std::memory_order_acquire)) return static_cast<bool>(ready());
                    std::this_thread::sleep_for(std::chrono::microseconds(500));
                }
                return true;
            };
            // The file's check first (begin() would wait for it, uninterrupted: a whole file's takes seconds),
            // however long it takes, unless the analysis stops early.
            if (!await([&] { return store.writeCheckDone(); }, abandoned)) {
                writtenAlongside = Status::error("cancelled");
                writeFailed = true;
                return;
            }
            // results[r] is read only once ready[r] says the pass stored it (after sizing the results).
            writtenAlongside = writeRequests(writtenIds, requests, [&](std::size_t r) {
                return await([&] { return ready[r].load(std::memory_order_acquire); }, passOver);
            }, false);
            if (!writtenAlongside) writeFailed = true;
        });
    };

    std::vector<StageTiming> inner;
    SkewEstimates estimates;
    Result<InMemoryAnalysis> analysis = Status::error("not analysed");
    if (inc) {
        startWriting(data.value(), inc->offsets);
        analysis = InMemoryAnalysis{std::move(data.value()), std::move(inc->offsets), std::move(inc->model)};
        estimates = std::move(inc->estimates);
    } else {
        analysis = analyzeInMemory(std::move(data.value()), options, &inner, &inferring, cancel, &share, &startWriting, &estimates);
    }
    if (!analysis) return analysis.status();
    summary.stages.insert(summary.stages.end(), inner.begin(), inner.end());
    clock.restart();  // analyzeInMemory timed its own stages
    const TraceData& td = analysis->data;
    const ClockOffsets& offsets = analysis->offsets;
    const CausalModel& model = analysis->model;

    // Per request: dependency graph, critical path, slack. Sharded; results kept in request order.
    results.resize(requests);
    std::vector<std::vector<TypeTotals>> totals(threads, std::vector<TypeTotals>(td.segmentTypes.size()));
    BlobArena gatheredBlobs;
    std::atomic<std::size_t> done{0};
    std::atomic<std::uint64_t> derived{0};  // requests the pass ran on
    std::mutex reportMutex;
    std::atomic<bool> cancelled{false};
    RequestPassTimes passSeconds;  // of the slowest shard in each step (threads overlap)
    // Chunks taken in request order, so that the writer, which stores the results in that order, keeps up
    // with both threads instead of waiting for the first half to finish with the second half computed.
    constexpr std::size_t kPassChunk = 4096;
    std::vector<std::optional<RequestPass>> passes(threads);  // per shard, its memory kept from chunk to chunk
    std::vector<std::string> blobs(threads);                  // encoded there, kept in the shard's arena
    forEachChunk(requests, threads, kPassChunk, [&](unsigned shard, std::size_t begin, std::size_t end) {
        if (cancelled.load(std::memory_order_relaxed)) return;
        if ((cancel && cancel->isCancelled()) || writeFailed.load(std::memory_order_relaxed)) {
            cancelled = true;
            return;
        }
        if (!passes[shard]) passes[shard].emplace(model, td);
        RequestPass& pass = *passes[shard];
        auto& typeTotals = totals[shard];
        std::string& blob = blobs[shard];
        std::vector<SegmentInstance> cachedSegments;
        CriticalPath cachedPath;
        std::vector<BlindInterval> cachedBlind;
        std::uint64_t derivedHere = 0;
        for (std::size_t r = begin; r < end; ++r) {
            // An earlier request the refinement left alone keeps its cached result (its segments and path still
            // feed the totals); one whose result is missing or does not fit is derived after all.
            const bool reuse = inc && !inc->derive[r] && [&] {
                const RequestResult& cached = cachedResults[r];
                if (cached.blob.empty()) return false;
                buildSegments(td.eventsOf(r), offsets, cachedSegments);
                cachedPath.segments.clear();
                cachedPath.clips.clear();
                cachedBlind.clear();
                std::uint32_t count = 0;
                return decodeRequestResult(cached.blob, cached.startNs, count, nullptr, cachedPath.segments, cachedBlind, cachedPath.clips) &&
                       count == cachedSegments.size();
            }();
            if (inc && !reuse) inc->derive[r] = 1;
            if (!reuse) ++derivedHere;
            const RequestPassResult* passed = reuse ? nullptr : &pass.run(td, r, offsets);
            const std::vector<SegmentInstance>& segments = reuse ? cachedSegments : passed->dag.segments;
            const CriticalPath& cp = reuse ? cachedPath : passed->criticalPath;
            if (reuse) {
                results[r] = cachedResults[r];
                cachedPath.latencyNs = results[r].latencyNs;
            } else {
                encodeRequestResult(passed->dag, cp, passed->slack, blob);
                results[r] = {passed->dag.startNs, cp.latencyNs, cp.blindNs, shardBlobs[shard].keep(blob)};
            }
            if (writeAlongside) ready[r].store(true, std::memory_order_release);
            countRequest(typeTotals, segments, cp, r, static_cast<std::uint32_t>(share.firstRequest + r));
        }
        derived.fetch_add(derivedHere);
        const std::size_t total = done.fetch_add(end - begin) + (end - begin);
        if (shard == 0) {
            std::lock_guard lock(reportMutex);
            reporter.report(0.6 + 0.25 * double(total) / double(requests), "critical paths and slack");
        }
    });
    for (const auto& pass : passes)
        if (pass) {
            passSeconds.graph = std::max(passSeconds.graph, pass->times().graph);
            passSeconds.criticalPath = std::max(passSeconds.criticalPath, pass->times().criticalPath);
            passSeconds.slack = std::max(passSeconds.slack, pass->times().slack);
        }
    passOver = true;
    if (writer.joinable()) writer.join();
    if (writeAlongside && (!writtenAlongside || cancelled)) {
        store.rollback();
        return writtenAlongside ? Status::error("cancelled") : writtenAlongside;
    }
    if (group.any(cancelled)) return Status::error("cancelled");
    EventArray().swap(analysis->data.events);  // the write needs the results, not the events
    clock.restart();  // the shards timed themselves
    summary.stages.push_back({"request graphs", passSeconds.graph});
    summary.stages.push_back({"critical paths", passSeconds.criticalPath});
    summary.stages.push_back({"slack", passSeconds.slack});

    std::vector<TypeTotals> typeTotals(td.segmentTypes.size());
    for (std::size_t type = 0; type < typeTotals.size(); ++type) {
        for (const auto& shard : totals) typeTotals[type].add(shard[type]);
        typeTotals[type].keepSlowest();
    }
    totals.clear();
    mergeTotalsAcross(typeTotals, group);
    std::vector<RequestId> requestIds = td.requestIds;
    gatherResults(requestIds, results, gatheredBlobs, group);
    const std::size_t allRequests = share.totalRequests;

    // The first process writes everything in one transaction: on failure or cancel the old results stay.
    auto write = [&]() -> Status {
        auto fail = [&](const Status& status) {
            store.rollback();
            return status;
        };
        reporter.report(0.86, "writing results", true);
        if (inc) {
            // Only what changed: the clocks' rows (their round trips grew), the derived requests' results.
            if (Status s = store.begin(); !s) return fail(s);
            if (latestResult(store, kStateResult, kAnalysisVersion) != inc->stateBytes) return fail(Status::error(kRaced));
            if (Status s = replaceClockRows(store, offsetRows, pairRows); !s) return fail(s);
            std::vector<RequestId> again;
            std::vector<std::size_t> rows;
            for (std::size_t r = 0; r < results.size(); ++r)
                if (inc->derive[r]) {
                    rows.push_back(r);
                    if (r < inc->firstNew) again.push_back(requestIds[r]);
                }
            if (Status s = dropRequestResults(store, again); !s) return fail(s);
            const Status stored = storeRequestResults(store, rows.size(), [&](std::size_t i) {
                const RequestResult& res = results[rows[i]];
                return RequestResultRow{requestIds[rows[i]], res.startNs, res.latencyNs, res.blindNs, res.blob};
            });
            if (!stored) return fail(stored);
        } else if (!writeAlongside) {
            if (Status s = writeRequests(requestIds, results.size(), [](std::size_t) { return true; }, true); !s) return fail(s);
        }
        std::vector<SegmentTypeStats> stats(td.segmentTypes.size());
        // One lookup per request: the slowest requests of thousands of types are often the same few.
        std::unordered_map<std::size_t, std::optional<std::string>> names;
        auto nameOf = [&](std::size_t r) -> const std::optional<std::string>& {
            auto it = names.find(r);
            if (it == names.end()) it = names.emplace(r, requestName(store, requestIds[r])).first;
            return it->second;
        };
        // The type's names are the stored model's (storeModel): not copied here.
        for (std::size_t type = 0; type < stats.size(); ++type) fillStats(typeTotals[type], allRequests, nameOf, stats[type]);
        const std::string params = storedParameters(options, lastImportRead, namingFilterRead);
        // The same state whatever the number of processes: ids and types agree across them (shareAcrossGroup).
        const std::string state = encodeState(stateParameters(options, namingFilterRead), lastImportRead, requestIds, td, offsets, estimates, model);
        for (Status s : {putResult(store, "model", kAnalysisVersion, params, modelJson(td, model)), storeModel(store, params, td, model),
                         storeSegmentStats(store, params, stats), putResult(store, kStateResult, kAnalysisVersion, params, state)})
            if (!s) return fail(s);
        if (cancel && cancel->isCancelled()) return fail(Status::error("cancelled"));
        return store.commit();
    };
    const Status written = group.isFirst() ? write() : Status::ok();
    if (group.any(!written)) return written ? Status::error("the first process of the run could not write the results") : written;
    // The SQL tables, when the database keeps them: from the results just committed.
    if (group.isFirst() && resultTablesKept(store))
        if (Status s = writeSqlResults(store, nullptr, cancel); !s) return s;
    clock.done("write");

    summary.requests = static_cast<std::int64_t>(allRequests);
    summary.segmentTypes = static_cast<std::int64_t>(td.segmentTypes.size());
    summary.correctedHosts = offsets.correctedHosts;
    model.forEachPairSeenTogether([&](SegmentTypeId a, SegmentTypeId b, std::int64_t) {
        summary.happensBefore += model.happensBefore(a, b);
        if (a < b) summary.mutualExclusion += model.mutuallyExclusive(a, b);
    });
    summary.pipelines = static_cast<std::int64_t>(model.pipelines().size());
    summary.incremental = inc.has_value();
    summary.inferredRequests = static_cast<std::int64_t>(inc ? allRequests - inc->firstNew : allRequests);
    summary.derivedRequests = static_cast<std::int64_t>(derived.load());
    if (group.size() > 1) {
        std::int64_t counts[1] = {summary.derivedRequests};
        group.sum(counts);
        summary.derivedRequests = counts[0];
    }
    reporter.report(1.0, "analysis done", true);
    return summary;
}

} // namespace

Result<AnalysisSummary> analyzeStore(TraceStore& store, const AnalysisOptions& options, const ProgressSink* progress,
                                     const CancelToken* cancel, Collective* group) {
    // An incremental write that finds another analysis's results stored meanwhile starts again from them.
    for (int attempt = 0;; ++attempt) {
        auto summary = analyzeStoreOnce(store, options, progress, cancel, group);
        if (summary || summary.message() != kRaced || attempt == 3) return summary;
    }
}

bool analysisIsCurrent(const TraceStore& store, const AnalysisOptions& options) {
    return cachedResult(store, "model", kAnalysisVersion, currentParameters(store, options)).has_value();
}

Result<std::string> cachedModelJson(const TraceStore& store, const AnalysisOptions& options) {
    auto json = cachedResult(store, "model", kAnalysisVersion, currentParameters(store, options));
    if (!json) return Status::error(store.path() + ": no current analysis (run tracelight-cli analyze)");
    return *json;
}

Result<std::string> modelJsonOfRows(const InMemoryAnalysis& analysis, const std::vector<std::uint32_t>& rows,
                                    const AnalysisOptions& options, const CancelToken* cancel) {
    // Clocks and model from these requests alone: what a database holding only them would infer.
    auto part = analyzeInMemory(restrictTraceData(analysis.data, rows), options, nullptr, nullptr, cancel);
    if (!part) return part.status();
    return modelJson(part->data, part->model);
}

Result<ModelGraph> modelGraphOfRows(const InMemoryAnalysis& analysis, const std::vector<std::uint32_t>& rows,
                                    const AnalysisOptions& options, const RequestNamer& nameOf, const CancelToken* cancel) {
    auto part = analyzeInMemory(restrictTraceData(analysis.data, rows), options, nullptr, nullptr, cancel);
    if (!part) return part.status();
    const TraceData& td = part->data;
    // The per-request pass over these requests alone, on their own clocks and model: the node statistics.
    std::vector<TypeTotals> totals(td.segmentTypes.size());
    RequestPass pass(part->model, td);
    for (std::size_t r = 0; r < td.requestCount(); ++r) {
        if (cancel && cancel->isCancelled()) return Status::error("cancelled");
        const RequestPassResult& result = pass.criticalPath(td, r, part->offsets);
        countRequest(totals, result.dag.segments, result.criticalPath, r, static_cast<std::uint32_t>(r));
    }
    std::vector<SegmentTypeStats> stats(td.segmentTypes.size());
    for (std::size_t type = 0; type < stats.size(); ++type) {
        const SegmentType& t = td.segmentTypes[type];
        stats[type].task = td.label(t.task.value);
        stats[type].startEvent = td.label(t.startEvent.value);
        stats[type].endEvent = td.label(t.endEvent.value);
        totals[type].keepSlowest();
        fillStats(totals[type], td.requestCount(), [&](std::uint32_t r) { return nameOf(td.requestIds[r]); }, stats[type]);
    }
    auto whole = modelGraphOf(part->model, std::move(stats), cancel);
    if (!whole) return whole.status();
    // Only the types these requests hold are nodes: the rest of the database's types are not in their model.
    ModelGraph g = std::move(whole.value());
    std::vector<std::uint32_t> newIndex(g.types.size(), ~0u);
    std::vector<SegmentTypeStats> kept;
    for (std::size_t i = 0; i < g.types.size(); ++i)
        if (g.types[i].occurrences > 0) {
            newIndex[i] = static_cast<std::uint32_t>(kept.size());
            kept.push_back(std::move(g.types[i]));
        }
    g.types = std::move(kept);
    for (auto* edges : {&g.happensBefore, &g.mutualExclusion, &g.pipelines}) {
        std::erase_if(*edges, [&](const ModelGraph::Edge& e) { return newIndex[e.from] == ~0u || newIndex[e.to] == ~0u; });
        for (auto& e : *edges) e.from = newIndex[e.from], e.to = newIndex[e.to];
    }
    return g;
}

namespace {

// Each segment's task and events by its labels' texts (views of out.labelTexts).
void nameSegments(RequestAnalysis& out, const std::vector<std::array<std::uint32_t, 3>>& segmentLabels) {
    for (std::size_t i = 0; i < out.segments.size(); ++i) {
        RequestSegment& s = out.segments[i];
        s.task = out.labelTexts->text(segmentLabels[i][0]);
        s.startEvent = out.labelTexts->text(segmentLabels[i][1]);
        s.endEvent = out.labelTexts->text(segmentLabels[i][2]);
    }
}

// A decoded result's slack, path, blind intervals and span parts into the request's analysis.
void takeCachedResult(CachedRequestResult&& cached, RequestAnalysis& out) {
    for (std::size_t i = 0; i < out.segments.size(); ++i) out.segments[i].slackNs = cached.slackNs[i];
    out.criticalPath = std::move(cached.criticalPath);
    out.blind = std::move(cached.blind);
    out.clips = std::move(cached.clips);
    out.entrySpan = std::move(cached.entrySpan);
    out.async = std::move(cached.async);
}

} // namespace

Result<RequestAnalysis> loadRequestAnalysis(const TraceStore& store, std::string_view requestName) {
    auto stored = requestResult(store, requestName);
    if (!stored) return Status::error(store.path() + ": no request '" + std::string(requestName) + "'");
    if (!stored->analysed) return Status::error(store.path() + ": request '" + std::string(requestName) + "' is not analysed (run tracelight-cli analyze)");
    RequestAnalysis out;
    out.request = std::string(requestName);
    out.latencyNs = stored->latencyNs;
    out.blindNs = stored->blindNs;
    out.startNs = stored->startNs;
    std::string_view blob(stored->data);

    // Segments in the same canonical order the analysis used: tasks by id, events by position, on the
    // adjusted clocks (each host's offset applied as it is read).
    const auto offsets = clockOffsets(store);
    // The events stream past, not held (a root with a million children's four million rows were 160 MB):
    // each segment keeps its labels' ids until their texts are read.
    RequestLabelIds labelIds;
    std::vector<std::array<std::uint32_t, 3>> segmentLabels;  // task, start event, end event
    std::int64_t previousTask = -1;
    std::uint32_t previousHost = 0, previousEvent = 0;
    TimeNs previousTs = 0;
    // At most one segment per event: reserved from the stored count, so a million-span trace's segments
    // are not copied while the vector doubles (805 MB at the peak for 3.1 million segments, heaptrack).
    // The count is trusted up to 4 M rows (a damaged one must not reserve gigabytes); past that the
    // lists grow as they read.
    const std::size_t expected = store.requestEventCountHint(stored->id);
    out.segments.reserve(expected);
    segmentLabels.reserve(expected);
    const Status scanned = store.scanRequestEvents(stored->id, [&](const EventRow& e) {
        const auto offset = offsets.find(e.host);
        const TimeNs ts = e.localNs - (offset == offsets.end() ? 0 : offset->second) - out.startNs;
        if (e.task == previousTask) {
            out.segments.push_back({{}, {}, {}, previousTs, ts - previousTs, 0, previousHost != e.host});
            segmentLabels.push_back({e.task, previousEvent, e.event});
        }
        labelIds.add(e.task);
        labelIds.add(e.event);
        previousTask = e.task;
        previousEvent = e.event;
        previousTs = ts;
        previousHost = e.host;
    });
    if (!scanned) return scanned;
    auto texts = std::make_shared<const LabelTexts>(labelIds.read(store));
    out.labelTexts = texts;
    nameSegments(out, segmentLabels);
    auto cached = decodeCachedResult(store, requestName, blob, out.segments.size());
    if (!cached) return cached.status();
    takeCachedResult(std::move(cached.value()), out);
    if (!out.entrySpan.empty() || !out.async.empty()) {
        auto ids = spanIds(store, stored->id);
        if (!ids) return ids.status();
        out.spanIds = std::move(ids.value());
    }
    return out;
}

namespace {

// Request `row`'s analysis from the pass's result, as loadRequestAnalysis reads it back from the store.
Result<RequestAnalysis> requestAnalysisOf(const TraceData& td, const ClockOffsets& offsets, std::size_t row, const RequestPassResult& result,
                                          std::string name, std::vector<std::string> spanIds) {
    std::string blob;
    encodeRequestResult(result.dag, result.criticalPath, result.slack, blob);
    RequestAnalysis out;
    out.request = std::move(name);
    out.startNs = result.dag.startNs;
    out.latencyNs = result.criticalPath.latencyNs;
    out.blindNs = result.criticalPath.blindNs;
    // The segments as loadRequestAnalysis makes them from the store's rows: consecutive events of a task, on
    // adjusted clocks, relative to the request's first event.
    auto texts = std::make_shared<LabelTexts>();
    std::vector<std::array<std::uint32_t, 3>> segmentLabels;
    out.segments.reserve(result.dag.segments.size());  // the same segments: a large request's are not copied as they grow
    segmentLabels.reserve(result.dag.segments.size());
    const auto events = td.eventsOf(row);
    for (std::size_t e = 0; e < events.size(); ++e) {
        const EventRecord& ev = events[e];
        const TimeNs ts = ev.localNs - offsets.offsetNs[ev.host.value] - out.startNs;
        if (e > 0 && events[e - 1].task == ev.task) {
            const EventRecord& before = events[e - 1];
            const TimeNs previousTs = before.localNs - offsets.offsetNs[before.host.value] - out.startNs;
            out.segments.push_back({{}, {}, {}, previousTs, ts - previousTs, 0, before.host != ev.host});
            segmentLabels.push_back({ev.task, before.event, ev.event});
        }
        for (std::uint32_t id : {ev.task, ev.event})
            if (texts->text(id).empty()) texts->set(id, td.label(id));
    }
    out.labelTexts = texts;
    nameSegments(out, segmentLabels);
    CachedRequestResult cached;
    if (decodeCachedResult(blob, out.segments.size(), cached) != CachedDecode::Ok)
        return Status::error("request '" + out.request + "': its result does not fit its segments");
    takeCachedResult(std::move(cached), out);
    if (!out.entrySpan.empty() || !out.async.empty()) out.spanIds = std::move(spanIds);
    return out;
}

} // namespace

Result<RequestAnalysis> requestAnalysis(const InMemoryAnalysis& analysis, std::size_t row, std::string name,
                                        std::vector<std::string> spanIds) {
    const TraceData& td = analysis.data;
    if (row >= td.requestCount()) return Status::error("no request '" + name + "'");
    RequestPass pass(analysis.model, td);
    return requestAnalysisOf(td, analysis.offsets, row, pass.run(td, row, analysis.offsets), std::move(name), std::move(spanIds));
}

std::optional<Result<RequestAnalysis>> requestCriticalPathWithoutModel(const TraceData& data, const AnalysisOptions& options, std::size_t row,
                                                                       const std::string& name, std::vector<std::string>&& spanIds) {
    if (row >= data.requestCount()) return Status::error("no request '" + name + "'");
    const auto events = data.eventsOf(row);
    const auto spans = data.spansOf(row);
    if (spans.empty()) return std::nullopt;
    // The clocks as analyzeInMemory corrects them; the segments as the pass's graph makes them.
    const ClockOffsets offsets = solveClockOffsets(collectSkewEstimates(data, options.inference.threads), data.hostLabels.size());
    RequestPassResult result;
    const RequestSpan window = buildSegments(events, offsets, result.dag.segments);
    result.dag.startNs = window.startNs;
    result.dag.endNs = window.endNs;
    SpanRequestPathScratch scratch;
    if (!spanRequestCriticalPath(result.dag, events, spans, offsets, result.criticalPath, scratch)) return std::nullopt;
    result.slack.assign(result.dag.segments.size(), 0);  // not computed: it needs the model's edges
    return requestAnalysisOf(data, offsets, row, result, name, std::move(spanIds));
}

CachedDecode decodeCachedResult(std::string_view blob, std::size_t segments, CachedRequestResult& out) {
    out.slackNs.clear();
    out.criticalPath.clear();
    out.blind.clear();
    out.clips.clear();
    out.entrySpan.clear();
    out.async.clear();
    std::uint32_t count = 0;
    const bool decoded = decodeRequestResult(blob, 0, count, &out.slackNs, out.criticalPath, out.blind, out.clips, &out.entrySpan, &out.async);  // blind stays relative
    if (!decoded && count == segments) return CachedDecode::Damaged;
    return decoded && count == segments ? CachedDecode::Ok : CachedDecode::Stale;
}

Result<CachedRequestResult> decodeCachedResult(const TraceStore& store, std::string_view requestName, std::string_view blob,
                                               std::size_t segments) {
    CachedRequestResult out;
    switch (decodeCachedResult(blob, segments, out)) {
    case CachedDecode::Ok: return out;
    case CachedDecode::Damaged: return Status::error(store.path() + ": damaged analysis result");
    case CachedDecode::Stale: break;
    }
    return Status::error(store.path() + ": stale analysis for request '" + std::string(requestName) + "' (run tracelight-cli analyze)");
}

void CachedCriticalPaths::get(std::size_t row, CriticalPath& out) const {
    out.latencyNs = latencyNs[row];
    out.blindNs = blindNs[row];
    out.segments.assign(segments.begin() + static_cast<std::ptrdiff_t>(pathBegin[row]),
                        segments.begin() + static_cast<std::ptrdiff_t>(pathBegin[row + 1]));
    out.blind.assign(blind.begin() + static_cast<std::ptrdiff_t>(blindBegin[row]), blind.begin() + static_cast<std::ptrdiff_t>(blindBegin[row + 1]));
    out.clips.assign(clips.begin() + static_cast<std::ptrdiff_t>(clipBegin[row]), clips.begin() + static_cast<std::ptrdiff_t>(clipBegin[row + 1]));
    out.async.assign(async.begin() + static_cast<std::ptrdiff_t>(asyncBegin[row]), async.begin() + static_cast<std::ptrdiff_t>(asyncBegin[row + 1]));
}

void CachedCriticalPaths::add(const CriticalPath& path, std::uint32_t count) {
    cached.push_back(1);
    segmentCount.push_back(count);
    latencyNs.push_back(path.latencyNs);
    blindNs.push_back(path.blindNs);
    segments.insert(segments.end(), path.segments.begin(), path.segments.end());
    blind.insert(blind.end(), path.blind.begin(), path.blind.end());
    clips.insert(clips.end(), path.clips.begin(), path.clips.end());
    clipBegin.push_back(clips.size());
    async.insert(async.end(), path.async.begin(), path.async.end());
    asyncBegin.push_back(async.size());
    pathBegin.push_back(segments.size());
    blindBegin.push_back(blind.size());
}

void CachedCriticalPaths::addMissing() {
    add(CriticalPath{}, 0);
    cached.back() = 0;
}

void CachedCriticalPaths::addAll(const CachedCriticalPaths& next) {
    const std::uint64_t pathBase = segments.size(), blindBase = blind.size();
    cached.insert(cached.end(), next.cached.begin(), next.cached.end());
    segmentCount.insert(segmentCount.end(), next.segmentCount.begin(), next.segmentCount.end());
    latencyNs.insert(latencyNs.end(), next.latencyNs.begin(), next.latencyNs.end());
    blindNs.insert(blindNs.end(), next.blindNs.begin(), next.blindNs.end());
    segments.insert(segments.end(), next.segments.begin(), next.segments.end());
    blind.insert(blind.end(), next.blind.begin(), next.blind.end());
    const std::uint64_t clipBase = clips.size();
    clips.insert(clips.end(), next.clips.begin(), next.clips.end());
    for (std::size_t r = 1; r < next.clipBegin.size(); ++r) clipBegin.push_back(clipBase + next.clipBegin[r]);
    const std::uint64_t asyncBase = async.size();
    async.insert(async.end(), next.async.begin(), next.async.end());
    for (std::size_t r = 1; r < next.asyncBegin.size(); ++r) asyncBegin.push_back(asyncBase + next.asyncBegin[r]);
    for (std::size_t r = 1; r < next.pathBegin.size(); ++r) pathBegin.push_back(pathBase + next.pathBegin[r]);
    for (std::size_t r = 1; r < next.blindBegin.size(); ++r) blindBegin.push_back(blindBase + next.blindBegin[r]);
}

Status forEachCachedResult(const TraceStore& store, const TraceData& data,
                           const std::function<bool(std::size_t row, TimeNs startNs, TimeNs latencyNs, TimeNs blindNs, std::string_view blob)>& f) {
    std::size_t row = 0;  // rows and results both in request id order
    return scanRequestResults(store, [&](RequestId id, TimeNs startNs, TimeNs latencyNs, TimeNs blindNs, std::string_view blob) {
        while (row < data.requestCount() && data.requestIds[row] < id) ++row;
        if (row == data.requestCount()) return false;
        if (data.requestIds[row] != id) return true;
        return f(row++, startNs, latencyNs, blindNs, blob);
    });
}

Result<CachedCriticalPaths> loadCachedCriticalPaths(const TraceStore& store, const TraceData& data) {
    CachedCriticalPaths out;
    CriticalPath path;
    const Status scanned = forEachCachedResult(store, data, [&](std::size_t row, TimeNs startNs, TimeNs latencyNs, TimeNs blindNs,
                                                                std::string_view blob) {
        while (out.rows() < row) out.addMissing();
        std::uint32_t count = 0;
        path.segments.clear();
        path.blind.clear();
        path.clips.clear();
        path.async.clear();
        path.latencyNs = latencyNs;
        path.blindNs = blindNs;
        if (decodeRequestResult(blob, startNs, count, nullptr, path.segments, path.blind, path.clips, nullptr, &path.async))
            out.add(path, count);
        else out.addMissing();
        return true;
    });
    if (!scanned && scanned.message() != "cancelled") return scanned;
    while (out.rows() < data.requestCount()) out.addMissing();
    return out;
}

CachedCriticalPaths computeCriticalPaths(const InMemoryAnalysis& analysis, unsigned threads) {
    const TraceData& td = analysis.data;
    threads = resolveThreads(threads);
    // Shards are contiguous runs of rows in shard order: their parts, joined in that order, are every row.
    std::vector<CachedCriticalPaths> parts(threads);
    forEachShard(td.requestCount(), threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
        RequestPass pass(analysis.model, td);
        for (std::size_t r = begin; r < end; ++r) {
            const RequestPassResult& result = pass.criticalPath(td, r, analysis.offsets);
            parts[shard].add(result.criticalPath, static_cast<std::uint32_t>(result.dag.segments.size()));
        }
    });
    CachedCriticalPaths out;
    for (const auto& part : parts) out.addAll(part);
    return out;
}

} // namespace tracelight
