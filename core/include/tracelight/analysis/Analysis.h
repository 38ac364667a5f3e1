#pragma once
// The whole analysis of a trace database: read -> clock skew -> model inference -> per-request
// dependency graph, critical path and slack -> results cached in the store.
#include <cstdint>
#include <memory>
#include <optional>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/analysis/ClockSkew.h"
#include "tracelight/analysis/CriticalPath.h"
#include "tracelight/analysis/ModelInference.h"
#include "tracelight/analysis/RequestShare.h"
#include "tracelight/base/Collective.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"
#include "tracelight/analysis/TraceData.h"
#include "tracelight/store/LabelTexts.h"

namespace tracelight {

class TraceStore;

// 2: times in integer nanoseconds (schema 4), results stamped with the import the analysis read.
// 3: span data keeps its clocks unless there is evidence of skew; per host pair decisions stored (schema 5).
// 4: span segment types are operations (occurrence numbers removed); the model is sparse (model magic
//    TLM3) and its types are stored by their label text.
// 5: the convergence curve covers the whole request sequence, whatever the sharding (threads, MPI ranks).
// 6: per-request results as varints (blob version 3).
// 7: segment statistics in binary, without the types' names (the stored model has them).
// 8: a span request's critical path is its span tree's (what the root's caller waited for; blob version 4 where it
//    clips a segment).
// 9: a span request's path names each entry's span and keeps the asynchronous work (blob version 4 changed).
// 10: model node statistics count requests, each once.
// 11: a server called from an internal span of its parent's service is waited for there (schema 11).
constexpr int kAnalysisVersion = 11;

struct AnalysisOptions {
    InferenceOptions inference;
    // A full analysis writes its results at the end instead of beside the per-request pass, holding the store's
    // write lock only then (a live capture keeps committing spans meanwhile). Not a parameter of the results.
    bool writeAtEnd = false;
    // Every request analysed again, whatever an earlier analysis left (an incremental analysis gives the same
    // results; this is for checking that, and for measuring).
    bool full = false;
};

// The parameters a cached result depends on, as stored beside it.
std::string analysisParameters(const AnalysisOptions& options);

struct StageTiming {
    std::string stage;
    double seconds = 0;
};

struct AnalysisSummary {
    std::int64_t requests = 0;
    std::int64_t segmentTypes = 0;
    std::int64_t correctedHosts = 0;
    std::int64_t happensBefore = 0;    // confirmed relations
    std::int64_t mutualExclusion = 0;
    std::int64_t pipelines = 0;
    // Incremental analysis: whether the last analysis's model was refined with the new requests only, the
    // requests whose events were tested against the surviving hypotheses, the requests the per-request pass
    // ran on (new ones and earlier ones the refined model affects), and why a full analysis ran instead.
    bool incremental = false;
    std::int64_t inferredRequests = 0;
    std::int64_t derivedRequests = 0;
    std::string fullBecause;
    std::vector<StageTiming> stages;
};

// Everything computed in memory, before it is written (tests and benchmarks use this directly).
struct InMemoryAnalysis {
    TraceData data;
    ClockOffsets offsets;
    CausalModel model;
};
// With a share (see RequestShare.h), data holds this process's requests and the group merges the
// estimates and the model: every process gets the whole offsets and model. offsetsSolved, when given, is
// called once the clocks are solved, before the model is inferred (analyzeStore starts writing then).
using OffsetsSolved = std::function<void(const TraceData&, const ClockOffsets&)>;
Result<InMemoryAnalysis> analyzeInMemory(TraceData data, const AnalysisOptions& options,
                                         std::vector<StageTiming>* stages = nullptr,
                                         const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr,
                                         const RequestShare* share = nullptr, const OffsetsSolved* offsetsSolved = nullptr,
                                         SkewEstimates* estimatesOut = nullptr);
SkewEstimates collectSkewEstimates(const TraceData& data, unsigned threads, Collective* group = nullptr);

// Runs the analysis and replaces the cached results in one transaction.
// Incremental: when the store holds an earlier analysis (same version and parameters) whose requests are all
// still there, unchanged, and come before every new one, only the new requests are analysed: their clock
// estimates join the stored ones, the stored model is refined with them (refineModel), and the per-request
// pass runs on them and on the earlier requests that hold both types of a relation the refinement changed;
// every other request keeps its cached result. The results equal a full analysis's. A full analysis runs
// instead (summary.fullBecause says why) when a host's clock offset that earlier requests use changes, an
// earlier request was removed or replaced, or refineModel refuses; and always in a distributed run.
// Several processes may analyse one store at once: a write that finds another analysis stored meanwhile
// starts again from what is stored then.
// With a group of several processes (a distributed run, collective: each process calls it on its own
// connection to the same database), each reads and analyses its run of requests (store.requestIdCuts),
// the group merges clock estimates, hypotheses and aggregates, and the first process writes every result:
// the same rows a single process writes.
Result<AnalysisSummary> analyzeStore(TraceStore& store, const AnalysisOptions& options,
                                     const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr,
                                     Collective* group = nullptr);

// True when the store holds results of this analysis version with these parameters, computed from the data
// of its last import (an import that committed while the analysis ran leaves them stale).
bool analysisIsCurrent(const TraceStore& store, const AnalysisOptions& options);

// The cached model as JSON: {"requests", "support_floor", "relations": [...], "convergence": [...]}.
Result<std::string> cachedModelJson(const TraceStore& store, const AnalysisOptions& options);
// The model inferred from some of the requests only (rows of analysis.data: a period, a time window), clocks
// included, as a database holding only them would infer it; the same JSON: the Mystery Machine's model over a
// chosen window. Not cached.
Result<std::string> modelJsonOfRows(const InMemoryAnalysis& analysis, const std::vector<std::uint32_t>& rows,
                                    const AnalysisOptions& options, const CancelToken* cancel = nullptr);
// The same model as the graph the Dependency graph tab draws: only the types those requests hold, with their
// statistics over those requests (critical paths on that model and those clocks). nameOf names the slowest.
using RequestNamer = std::function<std::optional<std::string>(RequestId)>;
Result<ModelGraph> modelGraphOfRows(const InMemoryAnalysis& analysis, const std::vector<std::uint32_t>& rows,
                                    const AnalysisOptions& options, const RequestNamer& nameOf, const CancelToken* cancel = nullptr);

// One request's cached critical path and slack, with its segments on adjusted clocks.
struct RequestSegment {
    // Views of RequestAnalysis::labelTexts: a million-span trace has three million segments, and a copy
    // of each name per segment was a third of `critical-path`'s memory.
    std::string_view task, startEvent, endEvent;
    TimeNs startNs = 0;  // relative to the request's first event
    TimeNs durationNs = 0;
    TimeNs slackNs = 0;
    bool network = false;
};
struct RequestAnalysis {
    std::string request;
    TimeNs startNs = 0;  // adjusted epoch time of the first event
    TimeNs latencyNs = 0;
    TimeNs blindNs = 0;
    std::vector<RequestSegment> segments;
    std::shared_ptr<const LabelTexts> labelTexts;  // what the segments' names view
    std::vector<std::uint32_t> criticalPath;  // indices into segments
    std::vector<BlindInterval> blind;         // start relative to the request's first event
    std::vector<PathClip> clips;              // entries of criticalPath only partly on it, relative likewise
    // Span requests: each entry's span (index in the request's spans) and the asynchronous work, relative likewise.
    std::vector<std::int32_t> entrySpan;
    std::vector<SpanPart> async;
    std::vector<std::string> spanIds;  // span index -> id as the input wrote it (span requests)
};
Result<RequestAnalysis> loadRequestAnalysis(const TraceStore& store, std::string_view requestName);
// The same for request `row` of an analysis in memory (a trace file read without a database), computed now.
Result<RequestAnalysis> requestAnalysis(const InMemoryAnalysis& analysis, std::size_t row, std::string name,
                                        std::vector<std::string> spanIds);
// Only request `row`'s critical path, for a reader that needs nothing else (its segments' slack is left 0): a
// span request's path is its span tree's, on the clocks analyzeInMemory corrects, which needs no causal model,
// so neither model inference nor the request's dependency graph runs. The same path requestAnalysis gives;
// nullopt where that path is the model's (no spans, or spans that could not be placed): analyse in full
// (spanIds are moved from only when it gives a result).
std::optional<Result<RequestAnalysis>> requestCriticalPathWithoutModel(const TraceData& data, const AnalysisOptions& options, std::size_t row,
                                                                       const std::string& name, std::vector<std::string>&& spanIds);

// A request's cached result (StoredRequestResult::data) decoded: slack per segment, the critical path and
// the blind intervals (relative to the request's first event). An error names the store and the request
// when the blob is damaged, or stale (it holds another number of segments than the request has now).
struct CachedRequestResult {
    std::vector<TimeNs> slackNs;
    std::vector<std::uint32_t> criticalPath;
    std::vector<BlindInterval> blind;
    std::vector<PathClip> clips;  // relative to the request's first event, as blind
    std::vector<std::int32_t> entrySpan;  // span requests: each entry's span
    std::vector<SpanPart> async;          // span requests: the asynchronous work, relative likewise
};
Result<CachedRequestResult> decodeCachedResult(const TraceStore& store, std::string_view requestName, std::string_view blob,
                                               std::size_t segments);
// The same into lists that are reused (a pass over every request); Stale: another number of segments.
enum class CachedDecode { Ok, Damaged, Stale };
CachedDecode decodeCachedResult(std::string_view blob, std::size_t segments, CachedRequestResult& out);

// Every request's critical path as analyze cached it, by TraceData row: what a pass that needs only the
// path (the profile) reads instead of running the per-request pass again. A path indexes the request's
// segments in buildSegments order; blind intervals are on adjusted clocks.
struct CachedCriticalPaths {
    std::vector<std::uint8_t> cached;         // per row: 1 when the row has a path
    std::vector<std::uint32_t> segmentCount;  // per row: the segments the path indexes (checked against the data)
    std::vector<std::uint64_t> pathBegin{0};  // row r: segments[pathBegin[r], pathBegin[r + 1])
    std::vector<std::uint32_t> segments;
    std::vector<std::uint64_t> blindBegin{0};  // row r: blind[blindBegin[r], blindBegin[r + 1])
    std::vector<BlindInterval> blind;
    std::vector<std::uint64_t> clipBegin{0};  // row r: clips[clipBegin[r], clipBegin[r + 1])
    std::vector<PathClip> clips;
    std::vector<std::uint64_t> asyncBegin{0};  // row r: async[asyncBegin[r], asyncBegin[r + 1]) (span requests)
    std::vector<SpanPart> async;
    std::vector<TimeNs> latencyNs, blindNs;

    std::size_t rows() const { return cached.size(); }
    bool has(std::size_t row) const { return row < cached.size() && cached[row]; }
    void get(std::size_t row, CriticalPath& out) const;
    // The next row: its path over segmentCount segments, or none.
    void add(const CriticalPath& path, std::uint32_t segmentCount);
    void addMissing();
    // Every row of next, after these.
    void addAll(const CachedCriticalPaths& next);
};
// From the store's cached results; a request without one (or with a damaged one) is left uncached.
Result<CachedCriticalPaths> loadCachedCriticalPaths(const TraceStore& store, const TraceData& data);
// Each result analyze cached for a request of `data`, with that request's row: one scan of the stored
// results, matched to rows by request id (both in id order). f returns false to stop the scan.
Status forEachCachedResult(const TraceStore& store, const TraceData& data,
                           const std::function<bool(std::size_t row, TimeNs startNs, TimeNs latencyNs, TimeNs blindNs, std::string_view blob)>& f);
// The same paths computed by the per-request pass, sharded (what analyze caches; benchmarks and tests).
CachedCriticalPaths computeCriticalPaths(const InMemoryAnalysis& analysis, unsigned threads);

} // namespace tracelight
