#include "tracelight/analysis/AnalysisResults.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <unordered_map>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Bytes.h"
#include "tracelight/base/Parallel.h"
#include "tracelight/base/StringMap.h"
#include "tracelight/base/TripleIndex.h"
#include "tracelight/analysis/RequestPass.h"
#include "tracelight/analysis/Segments.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/StoredAnalysis.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/ResultCache.h"

namespace tracelight {

namespace {

constexpr const char* kModelBinary = "model.bin";
constexpr const char* kModelTypes = "model.types";
constexpr const char* kSegmentStats = "segment_stats";

} // namespace

void RequestLabelIds::add(std::uint32_t id) {
    if (id >= m_used.size()) m_used.resize(std::max<std::size_t>(std::size_t(id) + 1, 2 * m_used.size()), false);
    if (m_used[id]) return;
    m_used[id] = true;
    m_end = std::max(m_end, std::size_t(id) + 1);
    if (m_ids.size() <= kOneByOne) m_ids.push_back(id);
}

LabelTexts RequestLabelIds::read(const TraceStore& store) {
    m_used.resize(m_end);  // the texts are indexed up to the highest id, not the bitmap's doubled size
    if (m_ids.size() > kOneByOne) return store.labelTexts(m_used);
    LabelTexts text(m_end);
    for (auto id : m_ids) text.set(id, store.label(LabelId(id)));
    return text;
}

SegmentTypeTextIndex::SegmentTypeTextIndex(const std::vector<SegmentTypeName>& stored) {
    m_types.reserve(stored.size());
    for (std::uint32_t i = 0; i < stored.size(); ++i)
        m_types.emplace(textNumber(stored[i].task), textNumber(stored[i].startEvent), textNumber(stored[i].endEvent), i);
}

std::uint32_t SegmentTypeTextIndex::textNumber(std::string_view text) {
    if (auto it = m_texts.find(text); it != m_texts.end()) return it->second;
    return m_texts.emplace(std::string(text), static_cast<std::uint32_t>(m_texts.size())).first->second;
}

std::optional<StoredModel> loadStoredModel(const TraceStore& store) {
    auto bytes = latestResult(store, kModelBinary, kAnalysisVersion);
    auto typeBytes = latestResult(store, kModelTypes, kAnalysisVersion);
    if (!bytes || !typeBytes) return std::nullopt;
    auto model = CausalModel::deserialize(*bytes);
    if (!model) return std::nullopt;
    StoredModel out{std::move(model.value()), {}};
    // The labels the types use, each once (length-prefixed), then three indices into them per type.
    std::string_view in(*typeBytes);
    auto number = [&](std::uint32_t& v) { return getValue(in, v); };
    std::uint32_t labelCount = 0;
    if (!number(labelCount) || labelCount > in.size() / 4) return std::nullopt;
    std::vector<std::string> labels(labelCount);
    for (auto& text : labels) {
        std::uint32_t size = 0;
        if (!number(size) || in.size() < size) return std::nullopt;
        text.assign(in.substr(0, size));
        in.remove_prefix(size);
    }
    if (in.size() % 12 != 0 || in.size() / 12 != out.model.typeCount()) return std::nullopt;
    out.types.reserve(in.size() / 12);
    while (!in.empty()) {
        std::uint32_t ids[3];
        for (auto& id : ids)
            if (!number(id) || id >= labelCount) return std::nullopt;
        out.types.push_back({labels[ids[0]], labels[ids[1]], labels[ids[2]]});
    }
    return out;
}

Status storeModel(TraceStore& store, const std::string& params, const TraceData& data, const CausalModel& model) {
    // Types by their labels' text, each label written once: 30,000 types of one trace share a few thousand.
    std::unordered_map<std::uint32_t, std::uint32_t> indexOf;  // label id -> index in the table
    std::string table, ids;
    auto put = [](std::string& out, std::uint32_t v) { putValue(out, v); };
    for (const auto& t : data.segmentTypes)
        for (auto id : {t.task.value, t.startEvent.value, t.endEvent.value}) {
            auto [it, fresh] = indexOf.emplace(id, static_cast<std::uint32_t>(indexOf.size()));
            if (fresh) {
                const std::string& text = data.label(id);
                put(table, static_cast<std::uint32_t>(text.size()));
                table += text;
            }
            put(ids, it->second);
        }
    std::string types;
    put(types, static_cast<std::uint32_t>(indexOf.size()));
    types += table;
    types += ids;
    if (Status s = putResult(store, kModelTypes, kAnalysisVersion, params, types); !s) return s;
    return putResult(store, kModelBinary, kAnalysisVersion, params, model.serialize());
}

// Per type, in type order: occurrences, mean duration, network share, critical count, mean critical time
// and the slowest requests it was critical in, as indices into a table of their names written once
// before (the types' own names are the stored model's: a trace's 76,000 types wrote them again as JSON,
// a sixth of its analysis).
Status storeSegmentStats(TraceStore& store, const std::string& params, const std::vector<SegmentTypeStats>& stats) {
    std::unordered_map<std::string_view, std::uint64_t> indexOf;
    std::string names, body;
    for (const auto& t : stats) {
        putVarint(body, static_cast<std::uint64_t>(t.occurrences));
        putValue(body, t.meanDurationNs);
        putValue(body, t.networkShare);
        putVarint(body, static_cast<std::uint64_t>(t.criticalCount));
        putValue(body, t.meanCriticalNs);
        putVarint(body, t.slowestCriticalRequests.size());
        for (const auto& r : t.slowestCriticalRequests) {
            auto [it, fresh] = indexOf.emplace(r, indexOf.size());
            if (fresh) {
                putVarint(names, r.size());
                names += r;
            }
            putVarint(body, it->second);
        }
    }
    std::string out;
    putVarint(out, indexOf.size());
    out += names;
    putVarint(out, stats.size());
    out += body;
    return putResult(store, kSegmentStats, kAnalysisVersion, params, out);
}

namespace {

// The statistics storeSegmentStats wrote into types (as many as both have); false when the bytes are damaged.
bool readSegmentStats(std::string_view in, std::vector<SegmentTypeStats>& types) {
    std::uint64_t nameCount = 0, typeCount = 0;
    if (!getVarint(in, nameCount) || nameCount > in.size()) return false;
    std::vector<std::string_view> names(static_cast<std::size_t>(nameCount));
    for (auto& name : names) {
        std::uint64_t size = 0;
        if (!getVarint(in, size) || size > in.size()) return false;
        name = in.substr(0, static_cast<std::size_t>(size));
        in.remove_prefix(static_cast<std::size_t>(size));
    }
    if (!getVarint(in, typeCount) || typeCount > in.size()) return false;
    SegmentTypeStats beyond;  // a type the model does not have: read, so the bytes are checked, not kept
    for (std::uint64_t i = 0; i < typeCount; ++i) {
        SegmentTypeStats& t = i < types.size() ? types[static_cast<std::size_t>(i)] : beyond;
        std::uint64_t occurrences = 0, critical = 0, slowest = 0;
        // At most as many slowest requests as are kept: a damaged count cannot make it copy one long name
        // over and over.
        if (!getVarint(in, occurrences) || !getValue(in, t.meanDurationNs) || !getValue(in, t.networkShare) ||
            !getVarint(in, critical) || !getValue(in, t.meanCriticalNs) || !getVarint(in, slowest) || slowest > kSlowestCriticalKept)
            return false;
        t.occurrences = static_cast<std::int64_t>(occurrences);
        t.criticalCount = static_cast<std::int64_t>(critical);
        t.slowestCriticalRequests.clear();
        for (std::uint64_t k = 0; k < slowest; ++k) {
            std::uint64_t name = 0;
            if (!getVarint(in, name) || name >= names.size()) return false;
            t.slowestCriticalRequests.emplace_back(names[static_cast<std::size_t>(name)]);
        }
    }
    return in.empty();
}

// What a request's detail reads besides its events and their labels: the stored model with its types
// numbered by text, the clock offsets, the cached result, the known links and the spans. None of it
// depends on the events, so it is read beside them, on a second connection when the store is a file.
struct DetailContext {
    std::optional<StoredModel> stored;
    bool fromSpans = false;
    std::unordered_map<std::uint32_t, TimeNs> offsetOfHost;
    std::optional<StoredRequestResult> cachedResult;
    std::vector<LinkRow> links;
    Status linksRead = Status::ok();  // a failed read of them fails the detail, not silently drops links
    std::vector<SpanRefRow> spans;
    Status spansRead = Status::ok();  // likewise
    // A label as a segment type names it (span data: its operation, without the occurrence number): a
    // million-span trace has three million segments but a handful of operations. The stored model's types
    // first, then the types this request has and the model lacks.
    SegmentTypeTextIndex types;

    void read(const TraceStore& store, RequestId request, const std::string& name) {
        stored = loadStoredModel(store);
        const auto spanRequests = spanRequestIds(store);
        fromSpans = std::binary_search(spanRequests.begin(), spanRequests.end(), request.value);
        offsetOfHost = clockOffsets(store);
        cachedResult = requestResult(store, name);
        auto read = store.causalLinks(request);
        if (read) links = std::move(read.value());
        else linksRead = read.status();
        auto spanRows = spanRefs(store, request);
        if (spanRows) spans = std::move(spanRows.value());
        else spansRead = spanRows.status();
        if (stored) types = SegmentTypeTextIndex(stored->types);
    }
};

// A second read-only connection to the store's file with the same last import, or none (in memory, or
// it cannot be opened): then everything is read on the one connection, in turn.
std::unique_ptr<TraceStore> sideConnection(const TraceStore& store) {
    if (store.path().empty() || store.path() == ":memory:") return nullptr;
    auto opened = TraceStore::open(store.path(), TraceStore::Mode::ReadOnly);
    if (!opened || opened.value()->lastImportId() != store.lastImportId()) return nullptr;
    return std::move(opened.value());
}

// Runs a and b on two threads when there is a side connection (b is the one that uses it); else in turn.
void inTurnOrAtOnce(bool atOnce, const std::function<void()>& a, const std::function<void()>& b) {
    if (!atOnce) {
        a();
        b();
        return;
    }
    forEachShard(2, 2, [&](unsigned shard, std::size_t, std::size_t) { shard == 0 ? a() : b(); });
}

// The detail's per-segment lists from its events (grouped by task, in task order; hosts by index into d.hosts),
// reserved exactly: a segment joins two consecutive events of one task. taskIndex: label id -> index into the tasks.
void fillSegmentLists(RequestDetail& d, std::span<const EventRecord> events, const std::vector<std::uint32_t>& taskIndex) {
    std::size_t segments = 0;
    for (std::size_t i = 1; i < events.size(); ++i) segments += events[i].task == events[i - 1].task;
    for (auto* perSegment : {&d.segmentStartEvent, &d.segmentEndEvent, &d.segmentTask, &d.segmentStartHost, &d.segmentEndHost})
        perSegment->reserve(segments);
    d.localStartNs.reserve(segments);
    d.localEndNs.reserve(segments);
    for (std::size_t i = 1; i < events.size(); ++i) {
        const EventRecord &from = events[i - 1], &to = events[i];
        if (from.task != to.task) continue;
        d.segmentStartEvent.push_back(from.event);
        d.segmentEndEvent.push_back(to.event);
        d.segmentTask.push_back(taskIndex[to.task]);
        d.segmentStartHost.push_back(from.host.value);
        d.segmentEndHost.push_back(to.host.value);
        d.localStartNs.push_back(from.localNs);
        d.localEndNs.push_back(to.localNs);
    }
}

// A request without a cached result: its graph, critical path and slack from the one pass, on the clocks given
// and task order.
void runPassOnLocalClocks(RequestDetail& d, const CausalModel& model, std::span<const EventRecord> events, const ClockOffsets& offsets,
                          std::span<const EventLink> links) {
    RequestPass pass(model);
    pass.run(events, offsets, links, d.spanRefs);
    RequestPassResult result = pass.takeResult();
    d.dag = std::move(result.dag);
    d.criticalPath = std::move(result.criticalPath);
    d.slackNs = std::move(result.slack);
}

// The texts of the used label ids as TraceData::label spells them, in one pass over the data's labels and its
// occurrences (sorted by id) instead of a search of them for each: a million-span trace names three million.
LabelTexts labelTextsOf(const TraceData& data, const std::vector<bool>& used) {
    LabelTexts texts(used.size());
    std::vector<bool> set(used.size(), false);
    for (const auto& [id, text] : data.labels)
        if (id < used.size() && used[id]) {
            texts.set(id, text);
            set[id] = true;
        }
    std::string spelt;  // one buffer for every occurrence's text
    const std::string* name = nullptr;
    std::uint32_t nameId = 0;
    for (const LabelOccurrence& o : data.occurrences) {
        if (o.id >= used.size() || !used[o.id] || set[o.id]) continue;
        if (!name || nameId != o.name) {
            const auto it = data.labels.find(o.name);
            if (it == data.labels.end()) continue;
            name = &it->second;
            nameId = o.name;
        }
        assignOccurrenceName(spelt, *name, o.occurrence);
        texts.set(o.id, spelt);
        set[o.id] = true;
    }
    for (std::uint32_t id = 0; id < used.size(); ++id)
        if (used[id] && !set[id]) texts.set(id, "?");  // as TraceData::label reads an id it does not know
    return texts;
}

void markCritical(RequestDetail& d) {
    d.critical.assign(d.dag.segments.size(), false);
    for (auto v : d.criticalPath.segments) d.critical[v] = true;
}

} // namespace

Result<RequestDetail> loadRequestDetail(const TraceStore& store, RequestId request, const CancelToken* cancel, DependencyWork* later) {
    if (later) *later = nullptr;
    auto cancelled = [cancel] { return cancel && cancel->isCancelled(); };
    if (cancelled()) return Status::error("cancelled");
    RequestDetail d;
    d.id = request;
    {
        auto name = requestName(store, request);
        if (!name) return Status::error(store.path() + ": no request #" + std::to_string(request.value));
        d.name = std::move(*name);
    }
    d.attributes = requestAttributes(store, request);

    const std::unique_ptr<TraceStore> side = sideConnection(store);
    const TraceStore& other = side ? *side : store;
    DetailContext context;
    // The events, hosts and tasks as the rows come, in (task, ord) order, by label id, while the context
    // is read beside: no list of the rows is held (a million-span trace's: 124 MB), only each event's
    // position, which the links name their ends by.
    constexpr std::uint32_t kNone = ~0u;
    std::vector<EventRecord> events;
    std::vector<std::int64_t> ords;  // by event
    std::vector<std::uint32_t> hostLabels;  // by index into d.hosts (the tasks' labels are d.taskLabel)
    std::vector<std::uint32_t> hostIndex, taskIndex;  // by label id
    std::vector<std::uint32_t> taskFirstRow;          // by index into the tasks
    RequestLabelIds labelIds;
    auto index = [&](std::vector<std::uint32_t>& byLabel, std::uint32_t id) -> std::uint32_t& {
        if (id >= byLabel.size()) byLabel.resize(std::max<std::size_t>(std::size_t(id) + 1, 2 * byLabel.size()), kNone);
        return byLabel[id];
    };
    Status scanned = Status::ok();
    auto readEvents = [&] {
        const std::size_t expected = store.requestEventCountHint(request);
        events.reserve(expected);
        ords.reserve(expected);
        scanned = store.scanRequestEvents(request, [&](const EventRow& row) {
            std::uint32_t& h = index(hostIndex, row.host);
            if (h == kNone) {
                h = static_cast<std::uint32_t>(hostLabels.size());
                hostLabels.push_back(row.host);
            }
            std::uint32_t& t = index(taskIndex, row.task);
            if (t == kNone) {
                t = static_cast<std::uint32_t>(d.taskLabel.size());
                d.taskLabel.push_back(row.task);
                taskFirstRow.push_back(static_cast<std::uint32_t>(events.size()));
            }
            for (auto id : {row.task, row.event, row.host}) labelIds.add(id);
            events.push_back({row.task, row.event, HostId(h), SegmentTypeId(), row.localNs});
            ords.push_back(row.ord);
        });
    };
    inTurnOrAtOnce(side != nullptr, readEvents, [&] { context.read(other, request, d.name); });
    if (!scanned) return scanned;
    if (!context.linksRead) return context.linksRead;
    if (!context.spansRead) return context.spansRead;
    if (events.empty()) return Status::error(store.path() + ": request '" + d.name + "' has no events");
    if (cancelled()) return Status::error("cancelled");
    CausalModel empty;
    const CausalModel& model = context.stored ? context.stored->model : empty;
    d.analysed = context.stored.has_value() && context.cachedResult && context.cachedResult->analysed;
    d.fromSpans = context.fromSpans;
    ClockOffsets offsets;
    for (const std::uint32_t hostLabel : hostLabels) {
        const auto offset = context.offsetOfHost.find(hostLabel);
        offsets.offsetNs.push_back(offset == context.offsetOfHost.end() ? 0 : offset->second);
    }

    // The segments' lists, reserved exactly (a segment joins two consecutive events of one task), while
    // the labels are read beside; the segments' types need the labels' texts and are found after.
    LabelTexts text;
    auto segmentLists = [&] { fillSegmentLists(d, events, taskIndex); };
    inTurnOrAtOnce(side != nullptr, segmentLists, [&] { text = labelIds.read(other); });
    auto label = [&](std::uint32_t id) { return text.text(id); };
    // Each segment's type: the triple of its task's and its events' type texts, numbered by label id once.
    auto types = [&] {
        std::vector<std::uint32_t> typeTextOf(text.idEnd(), kNone);  // label id -> text number
        auto typeText = [&](std::uint32_t id) {
            std::uint32_t& slot = typeTextOf[id];
            if (slot == kNone) {
                const std::string_view t = label(id);
                slot = context.types.textNumber(context.fromSpans ? operationName(t) : t);
            }
            return slot;
        };
        std::uint32_t nextUnknownType = static_cast<std::uint32_t>(model.typeCount());
        for (std::size_t i = 1; i < events.size(); ++i)
            if (events[i].task == events[i - 1].task) {
                const auto [type, unknown] = context.types.emplace(typeText(events[i].task), typeText(events[i - 1].event),
                                                                   typeText(events[i].event), nextUnknownType);
                if (unknown) ++nextUnknownType;
                events[i].segmentType = SegmentTypeId(type);
            }
    };
    // Beside the types: the names of hosts, and the links' and spans' ends. Rows come in (task, ord) order
    // and each became the event of the same index, so a task's events are one run: a link's end is found in
    // its task's run, first where its position says (positions are usually consecutive), else by binary search.
    auto eventAt = [&](std::uint32_t task, std::int64_t ord) -> std::optional<std::uint32_t> {
        if (task >= taskIndex.size() || taskIndex[task] == kNone) return std::nullopt;
        const std::uint32_t t = taskIndex[task];
        const std::size_t begin = taskFirstRow[t], end = t + 1 < taskFirstRow.size() ? taskFirstRow[t + 1] : ords.size();
        const std::int64_t first = ords[begin];  // unsigned difference: a damaged ord cannot overflow
        const std::uint64_t step = static_cast<std::uint64_t>(ord) - static_cast<std::uint64_t>(first);
        if (ord >= first && step < end - begin && ords[begin + static_cast<std::size_t>(step)] == ord)
            return static_cast<std::uint32_t>(begin + static_cast<std::size_t>(step));
        const auto from = ords.begin() + static_cast<std::ptrdiff_t>(begin), to = ords.begin() + static_cast<std::ptrdiff_t>(end);
        const auto it = std::lower_bound(from, to, ord);
        if (it == to || *it != ord) return std::nullopt;
        return static_cast<std::uint32_t>(it - ords.begin());
    };
    std::vector<EventLink> links;
    auto namesAndLinks = [&] {
        d.hosts.reserve(hostLabels.size());
        for (auto id : hostLabels) d.hosts.emplace_back(label(id));
        links.reserve(context.links.size());
        for (const LinkRow& l : context.links) {
            const auto from = eventAt(l.fromTask, l.fromOrd), to = eventAt(l.toTask, l.toOrd);
            if (from && to) links.push_back({*from, *to});
        }
        d.spanRefs.reserve(context.spans.size());
        resolveSpanRefs(context.spans, eventAt, [&](SpanRef s) { d.spanRefs.push_back(s); });
    };
    inTurnOrAtOnce(side != nullptr, namesAndLinks, types);
    // The events and the links between them hold what is left to do (a million-span trace's positions:
    // 25 MB; its stored links: 44 MB).
    std::vector<std::int64_t>().swap(ords);
    std::vector<LinkRow>().swap(context.links);
    std::vector<SpanRefRow>().swap(context.spans);
    if (cancelled()) return Status::error("cancelled");
    if (!d.analysed) {
        runPassOnLocalClocks(d, model, events, offsets, links);
    } else {
        // The cached result, through the CLI's decoder; the pass builds only the graph, for drawing: now, or
        // in the work left for later, which keeps the events, links and model it needs.
        if (later) {
            const RequestSpan span = buildSegments(events, offsets, d.dag.segments);
            d.dag.startNs = span.startNs;
            d.dag.endNs = span.endNs;
            auto kept = std::make_shared<const CausalModel>(std::move(context.stored->model));
            std::vector<SegmentLink> joined;  // the links between segments: the events need not be kept
            segmentLinks(events, links, joined);
            *later = [kept, joined = std::move(joined)](std::span<const SegmentInstance> segments) {
                RequestPass pass(*kept);
                RequestDependencies found;
                pass.edges(segments, joined, found.edges, found.firstEdgeTo);
                return found;
            };
            d.dependenciesFollow = true;
        } else {
            RequestPass pass(model);
            pass.graph(events, offsets, links);
            d.dag = std::move(pass.takeResult().dag);
        }
        const StoredRequestResult& cachedResult = *context.cachedResult;
        auto cached = decodeCachedResult(store, d.name, cachedResult.data, d.dag.segments.size());
        if (!cached) return cached.status();
        d.slackNs = std::move(cached->slackNs);
        d.criticalPath.latencyNs = cachedResult.latencyNs;
        d.criticalPath.blindNs = cachedResult.blindNs;
        d.criticalPath.segments = std::move(cached->criticalPath);
        // Blind intervals are cached relative to the request's first event; the detail keeps adjusted time.
        for (const BlindInterval& b : cached->blind) d.criticalPath.blind.push_back({cachedResult.startNs + b.startNs, b.durationNs});
        for (const PathClip& c : cached->clips)
            d.criticalPath.clips.push_back({c.entry, cachedResult.startNs + c.startNs, cachedResult.startNs + c.endNs});
        d.criticalPath.entrySpan = std::move(cached->entrySpan);
        for (const SpanPart& a : cached->async) d.criticalPath.async.push_back({a.span, cachedResult.startNs + a.startNs, cachedResult.startNs + a.endNs});
    }
    markCritical(d);
    d.texts = std::move(text);
    return d;
}

Result<RequestDetail> requestDetailFromData(const TraceData& data, std::size_t row, std::string name, const CancelToken* cancel) {
    if (row >= data.requestCount()) return Status::error("no request '" + name + "'");
    RequestDetail d;
    d.id = data.requestIds[row];
    d.name = std::move(name);
    d.fromSpans = data.isFromSpans(row);
    // The events as loadRequestDetail reads them from the request's rows: hosts and segment types numbered by
    // first appearance in this request (its types as an empty model's unknown ones), tasks in order.
    constexpr std::uint32_t kNone = ~0u;
    const auto source = data.eventsOf(row);
    std::vector<EventRecord> events(source.begin(), source.end());
    std::vector<std::uint32_t> hostIndex(data.hostLabels.size(), kNone), typeIndex(data.segmentTypes.size(), kNone), taskIndex;
    std::vector<bool> used;  // label ids the events name
    auto use = [&](std::uint32_t id) {
        if (id >= used.size()) used.resize(std::max<std::size_t>(std::size_t(id) + 1, 2 * used.size()), false);
        used[id] = true;
    };
    std::uint32_t nextType = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
        EventRecord& e = events[i];
        std::uint32_t& h = hostIndex[e.host.value];
        if (h == kNone) {
            h = static_cast<std::uint32_t>(d.hosts.size());
            d.hosts.push_back(data.label(data.hostLabels[e.host.value].value));
        }
        e.host = HostId(h);
        if (e.task >= taskIndex.size()) taskIndex.resize(std::max<std::size_t>(std::size_t(e.task) + 1, 2 * taskIndex.size()), kNone);
        if (taskIndex[e.task] == kNone) {
            taskIndex[e.task] = static_cast<std::uint32_t>(d.taskLabel.size());
            d.taskLabel.push_back(e.task);
            use(e.task);
        }
        use(e.event);
        if (i > 0 && events[i - 1].task == e.task && e.segmentType.isValid()) {
            std::uint32_t& t = typeIndex[e.segmentType.value];
            if (t == kNone) t = nextType++;
            e.segmentType = SegmentTypeId(t);
        } else {
            e.segmentType = SegmentTypeId();
        }
        if (cancel && (i & 0xffff) == 0 && cancel->isCancelled()) return Status::error("cancelled");
    }
    if (events.empty()) return Status::error("request '" + d.name + "' has no events");
    while (!used.empty() && !used.back()) used.pop_back();  // indexed up to the highest id, not the doubled size
    d.texts = labelTextsOf(data, used);
    const auto spans = data.spansOf(row);
    d.spanRefs.assign(spans.begin(), spans.end());
    fillSegmentLists(d, events, taskIndex);
    if (cancel && cancel->isCancelled()) return Status::error("cancelled");
    runPassOnLocalClocks(d, CausalModel{}, events, ClockOffsets::none(d.hosts.size()), data.linksOf(row));
    markCritical(d);
    return d;
}

std::string RequestDetail::segmentName(std::size_t segment) const {
    return std::string(task(segmentTask[segment])) + ":" + segmentEvents(segment);
}

std::string RequestDetail::segmentEvents(std::size_t segment) const {
    std::string name(texts.text(segmentStartEvent[segment]));
    name.append("->").append(texts.text(segmentEndEvent[segment]));
    return name;
}

void RequestDetail::addTask(std::string_view name) {
    const auto id = static_cast<std::uint32_t>(texts.idEnd());
    texts.set(id, name);
    taskLabel.push_back(id);
}

void RequestDetail::nameSegmentEvents(std::string_view start, std::string_view end) {
    const auto id = static_cast<std::uint32_t>(texts.idEnd());
    texts.set(id, start);
    texts.set(id + 1, end);
    segmentStartEvent.push_back(id);
    segmentEndEvent.push_back(id + 1);
}

Result<ModelGraph> loadModelGraph(const TraceStore& store, const CancelToken* cancel) {
    if (cancel && cancel->isCancelled()) return Status::error("cancelled");
    auto stored = loadStoredModel(store);
    if (!stored) return Status::error(store.path() + ": not analysed yet");
    const CausalModel& model = stored->model;
    std::vector<SegmentTypeStats> types(model.typeCount());
    for (std::size_t i = 0; i < types.size(); ++i) {
        types[i].task = stored->types[i].task;
        types[i].startEvent = stored->types[i].startEvent;
        types[i].endEvent = stored->types[i].endEvent;
    }
    if (auto stats = latestResult(store, kSegmentStats, kAnalysisVersion); stats && !readSegmentStats(*stats, types))
        return Status::error(store.path() + ": the stored segment statistics are damaged (run tracelight-cli analyze again)");
    return modelGraphOf(model, std::move(types), cancel);
}

Result<ModelGraph> modelGraphOf(const CausalModel& model, std::vector<SegmentTypeStats> types, const CancelToken* cancel) {
    auto cancelled = [cancel] { return cancel && cancel->isCancelled(); };
    if (cancelled()) return Status::error("cancelled");
    ModelGraph g;
    g.requests = model.requestsAnalysed();
    g.supportFloor = model.supportFloor();
    g.convergence = model.convergence();
    const auto n = static_cast<std::uint32_t>(model.typeCount());
    g.types = std::move(types);
    g.types.resize(n);
    // Happens-before among all surviving relations seen together at least once, transitively reduced; over
    // the types the model tracks (rows of bitsets over those only).
    std::vector<std::uint32_t> tracked;
    std::vector<int> denseOf(n, -1);
    for (std::uint32_t a = 0; a < n; ++a)
        if (model.tracked(SegmentTypeId(a))) {
            denseOf[a] = static_cast<int>(tracked.size());
            tracked.push_back(a);
        }
    const std::size_t m = tracked.size();
    std::vector<Bitset> alive(m, Bitset(m));
    model.forEachPairSeenTogether([&](SegmentTypeId a, SegmentTypeId b, std::int64_t) {
        if (model.happensBefore(a, b, false)) alive[static_cast<std::size_t>(denseOf[a.value])].set(static_cast<std::size_t>(denseOf[b.value]));
    });
    for (std::size_t a = 0; a < m; ++a) {
        if (alive[a].count() == 0) continue;
        Bitset implied(m);
        alive[a].forEach([&](std::size_t b) { implied |= alive[b]; });
        alive[a].forEach([&](std::size_t c) {
            if (implied.test(c)) return;
            const auto s = model.support(SegmentTypeId(tracked[a]), SegmentTypeId(tracked[c]));
            g.happensBefore.push_back({tracked[a], tracked[c], s, s >= model.supportFloor()});
        });
    }
    if (cancelled()) return Status::error("cancelled");
    model.forEachPairSeenTogether([&](SegmentTypeId a, SegmentTypeId b, std::int64_t s) {
        if (a < b && model.mutuallyExclusive(a, b, false)) g.mutualExclusion.push_back({a.value, b.value, s, s >= model.supportFloor()});
    });
    for (const auto& p : model.pipelines())
        for (const auto& l : {p.first, p.second}) {
            const bool seen = std::any_of(g.pipelines.begin(), g.pipelines.end(),
                                          [&](const ModelGraph::Edge& e) { return e.from == l.producer.value && e.to == l.consumer.value; });
            if (!seen) g.pipelines.push_back({l.producer.value, l.consumer.value, p.support, true});
        }
    if (cancelled()) return Status::error("cancelled");
    return g;
}

} // namespace tracelight
