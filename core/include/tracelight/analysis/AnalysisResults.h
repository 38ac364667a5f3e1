#pragma once
// Reading analysis results back for views: one request in full detail (its graph, critical path and
// slack, on adjusted and local clocks), and the model as a graph of segment types with statistics.
#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <unordered_map>
#include <vector>

#include "tracelight/analysis/CriticalPath.h"
#include "tracelight/analysis/ModelInference.h"
#include "tracelight/analysis/RequestDag.h"
#include "tracelight/analysis/TraceData.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/StringMap.h"
#include "tracelight/base/TripleIndex.h"
#include "tracelight/base/Status.h"
#include "tracelight/store/LabelTexts.h"

namespace tracelight {

class TraceStore;
struct EventRow;

struct RequestDetail {
    RequestId id;
    std::string name;
    std::vector<std::pair<std::string, std::string>> attributes;
    bool analysed = false;                 // false: local clocks and task order only
    bool fromSpans = false;                // imported from spans: the store keeps its span tree
    std::vector<std::string> hosts;        // names, in order of first appearance
    RequestDag dag;                        // adjusted clocks
    // The request's label texts. Tasks and a segment's events are label ids into them: a million-span
    // trace has a million tasks and three million segments, and a string each cost more than the rest of
    // the detail (64 MB for the tasks' names alone).
    LabelTexts texts;
    std::vector<std::uint32_t> taskLabel;  // in order of first appearance
    std::size_t taskCount() const { return taskLabel.size(); }
    std::string_view task(std::size_t index) const { return texts.text(taskLabel[index]); }
    std::vector<std::uint32_t> segmentStartEvent, segmentEndEvent;
    std::string segmentName(std::size_t segment) const;  // "task:START->END"
    std::string segmentEvents(std::size_t segment) const;  // "START->END"
    // For a request built by hand (the views' tests): the next task, and the next segment's two event names.
    void addTask(std::string_view name);
    void nameSegmentEvents(std::string_view start, std::string_view end);
    std::vector<std::uint32_t> segmentTask;       // index into the tasks (taskLabel)
    std::vector<std::uint32_t> segmentStartHost;  // index into hosts
    std::vector<std::uint32_t> segmentEndHost;
    std::vector<TimeNs> localStartNs, localEndNs;  // each event on its own host's clock
    CriticalPath criticalPath;
    std::vector<TimeNs> slackNs;
    std::vector<bool> critical;            // per segment
    std::vector<SpanRef> spanRefs;         // its spans by idx, by event index in (task, ord) order as TraceData::spansOf; event logs: none
    // Loaded with the dependencies to follow (loadRequestDetail's `later`): dag.edges is empty until then.
    bool dependenciesFollow = false;
};

// The request graph's edges of a detail whose dependencies follow, as RequestDag holds them.
struct RequestDependencies {
    std::vector<DagEdge> edges;             // by (to, from)
    std::vector<std::uint32_t> firstEdgeTo;
};
// Work that finds them, given the detail's segments (dag.segments, not copied: a million-span trace's are
// 100 MB); it holds the rest of what it needs (the links between segments and the model) and runs on any thread.
using DependencyWork = std::function<RequestDependencies(std::span<const SegmentInstance> segments)>;

// An analysed request's critical path, blind intervals and slack are its cached result, decoded by the
// same loader as the CLI's critical-path and slack (loadRequestAnalysis), so the two never disagree; only
// the graph's edges (for drawing), which the cache does not hold, are built, by the one per-request pass.
// A request not analysed yet gets all of it from that pass on local clocks and task order. Cancelled:
// the status "cancelled".
// With `later`, an analysed request's graph is left to the work put there (dependenciesFollow): a view can
// draw the bars, the critical path and slack first, as only a selected segment's dependencies need the
// edges; a million-span trace's graph is a third of its detail. Otherwise `later` is left empty.
Result<RequestDetail> loadRequestDetail(const TraceStore& store, RequestId request, const CancelToken* cancel = nullptr,
                                        DependencyWork* later = nullptr);

// Request `row` of data read straight from its file (import/TraceFileContents.h), before any database holds it:
// its detail from the same pass on local clocks and task order that loadRequestDetail gives a request not
// analysed yet, so the two agree segment for segment (no attributes: the file's reader does not keep them).
Result<RequestDetail> requestDetailFromData(const TraceData& data, std::size_t row, std::string name,
                                            const CancelToken* cancel = nullptr);

// How many of the slowest requests where a segment type was critical the model view lists.
constexpr std::size_t kSlowestCriticalKept = 25;
struct SegmentTypeStats {
    std::string task, startEvent, endEvent;
    std::int64_t occurrences = 0;   // requests holding it
    double meanDurationNs = 0;
    double networkShare = 0;        // of instances that cross hosts
    std::int64_t criticalCount = 0; // requests where it was on the critical path
    double meanCriticalNs = 0;      // mean time it contributed to the critical path, over all requests
    std::vector<std::string> slowestCriticalRequests;  // up to kSlowestCriticalKept, slowest first
    std::string name() const { return task + ":" + startEvent + "->" + endEvent; }
};

struct ModelGraph {
    std::int64_t requests = 0;
    std::int64_t supportFloor = 0;
    std::vector<SegmentTypeStats> types;  // index = segment type id
    struct Edge {
        std::uint32_t from, to;
        std::int64_t support;
        bool confirmed;
    };
    std::vector<Edge> happensBefore;       // transitively reduced, confirmed and unconfirmed
    std::vector<Edge> mutualExclusion;     // unordered pairs (from < to)
    std::vector<Edge> pipelines;           // producer -> consumer links
    std::vector<ConvergencePoint> convergence;
};

Result<ModelGraph> loadModelGraph(const TraceStore& store, const CancelToken* cancel = nullptr);
// The graph of a model whose types (index = segment type id) carry their names and statistics.
Result<ModelGraph> modelGraphOf(const CausalModel& model, std::vector<SegmentTypeStats> types, const CancelToken* cancel = nullptr);

// The distinct label ids a request's events name, marked in a bitmap over the id range as the events
// stream past (two or three ids per event: a million-span trace gives millions, which sorting took a tenth
// of `critical-path`'s time to reduce), then their texts read: one query each for a few, one scan of the
// labels for many (a trace of 100,000 spans uses some 200,000 labels).
class RequestLabelIds {
public:
    void add(std::uint32_t id);
    LabelTexts read(const TraceStore& store);

private:
    static constexpr std::size_t kOneByOne = 512;  // beyond, one scan of the label tables is cheaper than a query each
    std::vector<bool> m_used;
    std::size_t m_end = 0;             // one past the highest id added
    std::vector<std::uint32_t> m_ids;  // the first kOneByOne + 1
};

// A segment type by its labels' text (operation names for span data: their labels may not be in the store).
struct SegmentTypeName {
    std::string task, startEvent, endEvent;
    auto operator<=>(const SegmentTypeName&) const = default;
};

// The cached model with its segment types, when the store has one.
struct StoredModel {
    CausalModel model;
    std::vector<SegmentTypeName> types;
};
std::optional<StoredModel> loadStoredModel(const TraceStore& store);

// Segment types by the texts of their names, the stored model's first so that they keep their ids: each
// distinct text numbered once and the triples of numbers in one open-addressing table, so that finding a
// type compares no strings (a million-span trace's model has hundreds of thousands of types).
class SegmentTypeTextIndex {
public:
    static constexpr std::uint32_t kAbsent = TripleIndex::kAbsent;

    SegmentTypeTextIndex() = default;
    explicit SegmentTypeTextIndex(const std::vector<SegmentTypeName>& stored);
    // The number of a text, given on first sight.
    std::uint32_t textNumber(std::string_view text);
    // The type of these text numbers and false, or `fresh`, newly stored, and true.
    std::pair<std::uint32_t, bool> emplace(std::uint32_t task, std::uint32_t start, std::uint32_t end, std::uint32_t fresh) {
        return m_types.emplace(task, start, end, fresh);
    }
    std::uint32_t find(std::uint32_t task, std::uint32_t start, std::uint32_t end) const { return m_types.find(task, start, end); }

private:
    StringMap<std::uint32_t> m_texts;
    TripleIndex m_types;
};

// Writers used by analyzeStore (inside its transaction).
Status storeModel(TraceStore& store, const std::string& params, const TraceData& data, const CausalModel& model);
// The statistics of each type, in type order; their task, start and end are not stored (storeModel has them).
Status storeSegmentStats(TraceStore& store, const std::string& params, const std::vector<SegmentTypeStats>& stats);

} // namespace tracelight
