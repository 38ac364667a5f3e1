#include "tracelight/store/RequestReads.h"
#include "tracelight/store/StoredAnalysis.h"
#include "tracelight/studies/Aggregates.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/analysis/RequestPass.h"
#include "tracelight/analysis/Segments.h"
#include "tracelight/analysis/Slack.h"
#include "tracelight/analysis/SpanRequestPath.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/SpanCalls.h"
#include "tracelight/store/Periods.h"
#include "tracelight/store/ResultCache.h"

namespace tracelight {

namespace {
constexpr TimeNs kNoSlack = RequestAggregates::kNoSlack;
constexpr const char* kCategoryRules = "category_rules";
} // namespace

int RequestAggregates::categoryIndex(std::string_view name) const {
    for (std::size_t c = 0; c < categories.size(); ++c)
        if (categories[c] == name) return static_cast<int>(c);
    return -1;
}

SegmentTypeFactsTable segmentTypeFacts(const TraceData& td) {
    const std::size_t types = td.segmentTypes.size();
    SegmentTypeFactsTable out;
    out.facts.resize(types);
    out.seen.assign(types, false);
    for (std::size_t r = 0; r < td.requestCount(); ++r) {
        const auto events = td.eventsOf(r);
        for (std::size_t e = 1; e < events.size(); ++e) {
            const auto t = events[e].segmentType;
            if (!t.isValid() || out.seen[t.value]) continue;
            out.seen[t.value] = true;
            const SegmentType& st = td.segmentTypes[t.value];
            out.facts[t.value] = {td.label(st.task.value), td.label(st.startEvent.value), td.label(st.endEvent.value),
                                  td.label(td.hostLabels[events[e - 1].host.value].value), events[e - 1].host != events[e].host,
                                  td.label(td.hostLabels[events[e].host.value].value), td.isFromSpans(r)};
        }
    }
    return out;
}

TypeCategories categorizeSegmentTypes(const TraceData& td, const CategoryRules& rules) {
    TypeCategories a;
    // Category of every segment type, from its first instance.
    const std::size_t types = td.segmentTypes.size();
    const SegmentTypeFactsTable table = segmentTypeFacts(td);
    const auto& facts = table.facts;
    const auto& seen = table.seen;
    auto indexOf = [&](const std::string& name) {
        for (std::size_t i = 0; i < a.categories.size(); ++i)
            if (a.categories[i] == name) return static_cast<int>(i);
        return -1;
    };
    a.typeCategory.resize(types);
    for (std::size_t t = 0; t < types; ++t) {
        const std::string name = seen[t] ? rules.categorize(facts[t]) : std::string("unused");
        int index = indexOf(name);
        if (index < 0) {
            index = static_cast<int>(a.categories.size());
            a.categories.push_back(name);
        }
        a.typeCategory[t] = index;
    }
    return a;
}

Result<std::vector<std::string>> requestSegmentCategories(const TraceStore& store, std::string_view requestName,
                                                          const CategoryRules& rules) {
    const auto stored = requestResult(store, requestName);
    if (!stored) return Status::error(store.path() + ": no request '" + std::string(requestName) + "'");
    auto data = loadTraceData(store);
    if (!data) return data.status();
    const TraceData& td = data.value();
    const auto row = std::find(td.requestIds.begin(), td.requestIds.end(), stored->id);
    if (row == td.requestIds.end()) return Status::error(store.path() + ": no events of request '" + std::string(requestName) + "'");
    return requestSegmentCategories(td, static_cast<std::size_t>(row - td.requestIds.begin()), rules);
}

std::vector<std::string> requestSegmentCategories(const TraceData& td, std::size_t row, const CategoryRules& rules) {
    const TypeCategories typed = categorizeSegmentTypes(td, rules);
    std::vector<std::string> out;
    // Segment k ends at the k-th event that closes one, as buildSegments numbers them.
    const auto events = td.eventsOf(row);
    for (std::size_t e = 1; e < events.size(); ++e)
        if (const auto t = events[e].segmentType; t.isValid())
            out.push_back(typed.categories[static_cast<std::size_t>(typed.typeCategory[t.value])]);
    return out;
}

namespace {

// The critical paths of requests as (segment type, duration), and how many segments each has, in row order.
struct PathParts {
    std::vector<std::uint32_t> type;
    std::vector<TimeNs> ns;
    std::vector<std::uint32_t> count;

    void append(PathParts& other) {
        type.insert(type.end(), other.type.begin(), other.type.end());
        ns.insert(ns.end(), other.ns.begin(), other.ns.end());
        count.insert(count.end(), other.count.begin(), other.count.end());
        other.type.clear();
        other.ns.clear();
        other.count.clear();
    }
};

// One request's row from its segments (canonical order), their slack and its critical path, however they
// were found: by the per-request pass, or from the result analyze cached. Its path goes onto `path`.
void aggregateRequest(RequestAggregates& a, std::size_t r, std::span<const SegmentInstance> segments, std::span<const TimeNs> slack,
                      std::span<const std::uint32_t> criticalPath, std::span<const PathClip> clips, TimeNs latencyNs, TimeNs blindNs, std::vector<TimeNs>& lastEnd,
                      std::vector<TimeNs>& firstStart, PathParts& path) {
    const std::size_t width = a.width();
    a.latencyNs[r] = latencyNs;
    a.blindNs[r] = blindNs;
    TimeNs* summed = a.summedNs.data() + r * width;
    TimeNs* slackRow = a.slackNs.data() + r * width;
    lastEnd.assign(width, std::numeric_limits<TimeNs>::min());
    firstStart.assign(width, std::numeric_limits<TimeNs>::max());
    for (std::size_t s = 0; s < segments.size(); ++s) {
        const auto c = static_cast<std::size_t>(a.typeCategory[segments[s].type.value]);
        summed[c] += segments[s].durationNs();
        // A category's slack is that of its last segment: how much later it could finish its part.
        if (segments[s].endNs > lastEnd[c]) {
            lastEnd[c] = segments[s].endNs;
            slackRow[c] = slack[s];
        }
        firstStart[c] = std::min(firstStart[c], segments[s].startNs);
    }
    TimeNs* span = a.spanNs.data() + r * width;
    for (std::size_t c = 0; c < width; ++c)
        if (firstStart[c] != std::numeric_limits<TimeNs>::max()) span[c] = lastEnd[c] - firstStart[c];
    TimeNs* critical = a.criticalNs.data() + r * width;
    // Only durations are read: clips may be relative to the request's start (cached) or absolute.
    forEachPathPart(segments, criticalPath, clips, [&](std::uint32_t v, TimeNs from, TimeNs to) {
        const auto type = segments[v].type.value;
        critical[a.typeCategory[type]] += to - from;
        path.type.push_back(type);
        path.ns.push_back(to - from);
    });
    path.count.push_back(static_cast<std::uint32_t>(criticalPath.size()));
}

} // namespace

Result<RequestAggregates> computeAggregates(const InMemoryAnalysis& analysis, const CategoryRules& rules, unsigned threads,
                                            const ProgressSink* progress, const CancelToken* cancel, const TraceStore* cache) {
    auto cancelled = [cancel] { return cancel && cancel->isCancelled(); };
    if (cancelled()) return Status::error("cancelled");
    const TraceData& td = analysis.data;
    RequestAggregates a;
    TypeCategories typed = categorizeSegmentTypes(td, rules);
    a.categories = std::move(typed.categories);
    a.typeCategory = std::move(typed.typeCategory);
    const std::size_t n = td.requestCount(), width = a.categories.size();
    a.ids = td.requestIds;
    a.latencyNs.resize(n);
    a.blindNs.resize(n);
    a.startNs.resize(n);
    a.summedNs.assign(n * width, 0);
    a.criticalNs.assign(n * width, 0);
    a.slackNs.assign(n * width, kNoSlack);
    a.spanNs.assign(n * width, 0);

    threads = resolveThreads(threads);
    ShardedProgress reporter(progress, n, "aggregating critical paths and slack");
    // Rows whose result analyze cached need no graph: their segments, with the cached slack and path, are
    // all a row takes. Read in chunks, each aggregated on every core.
    std::vector<std::uint8_t> fromCache(n, 0);
    PathParts cachedPaths;  // of the rows fromCache, in row order
    if (cache) {
        struct Entry {
            std::uint32_t row;
            TimeNs startNs, latencyNs, blindNs;
            std::size_t blobBegin, blobEnd;  // in `blobs`
        };
        constexpr std::size_t kChunk = 16384;
        std::vector<Entry> chunk;
        std::string blobs;
        struct Scratch {
            std::vector<SegmentInstance> segments;
            CachedRequestResult result;
            std::vector<TimeNs> lastEnd, firstStart;
            PathParts paths;
            std::size_t done = 0;
        };
        std::vector<Scratch> scratch(threads);
        auto aggregateChunk = [&] {
            forEachShard(chunk.size(), threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
                Scratch& s = scratch[shard];
                for (std::size_t i = begin; i < end; ++i) {
                    const Entry& e = chunk[i];
                    buildSegments(td.eventsOf(e.row), analysis.offsets, s.segments);
                    const std::string_view blob = std::string_view(blobs).substr(e.blobBegin, e.blobEnd - e.blobBegin);
                    if (decodeCachedResult(blob, s.segments.size(), s.result) != CachedDecode::Ok) continue;  // the pass does it
                    aggregateRequest(a, e.row, s.segments, s.result.slackNs, s.result.criticalPath, s.result.clips, e.latencyNs, e.blindNs, s.lastEnd,
                                     s.firstStart, s.paths);
                    a.startNs[e.row] = e.startNs;
                    fromCache[e.row] = 1;
                    reporter.step(s.done++);
                }
            });
            for (auto& s : scratch) cachedPaths.append(s.paths);  // shards hold consecutive entries: row order kept
            chunk.clear();
            blobs.clear();
        };
        const Status scanned = forEachCachedResult(*cache, td, [&](std::size_t row, TimeNs startNs, TimeNs latencyNs, TimeNs blindNs, std::string_view blob) {
            chunk.push_back({static_cast<std::uint32_t>(row), startNs, latencyNs, blindNs, blobs.size(), blobs.size() + blob.size()});
            blobs.append(blob);
            if (chunk.size() < kChunk) return true;
            aggregateChunk();
            return !cancelled();
        });
        if (!chunk.empty() && !cancelled()) aggregateChunk();
        (void)scanned;  // a result the scan could not read is computed by the pass below, as a missing one is
        a.rowsFromCache = cachedPaths.count.size();
    }
    if (cancelled()) return Status::error("cancelled");

    // The other rows (every row without a store): the per-request pass.
    std::vector<PathParts> paths(threads);
    forEachShard(n, threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
        RequestPass pass(analysis.model, td);
        std::vector<TimeNs> lastEnd, firstStart;
        std::size_t done = 0;
        for (std::size_t r = begin; r < end; ++r) {
            if (fromCache[r]) continue;
            const RequestPassResult& result = pass.run(td, r, analysis.offsets);
            a.startNs[r] = result.dag.startNs;
            aggregateRequest(a, r, result.dag.segments, result.slack, result.criticalPath.segments, result.criticalPath.clips,
                             result.criticalPath.latencyNs,
                             result.criticalPath.blindNs, lastEnd, firstStart, paths[shard]);
            if ((done & 0xFF) == 0xFF && cancelled()) return;
            reporter.step(done++);
        }
    });
    // A shard that stopped early left rows unfilled: say so rather than hand them out as complete.
    if (cancelled()) return Status::error("cancelled");
    // Each row's path from the cached ones or its shard's, in row order (shards hold consecutive rows).
    std::size_t total = cachedPaths.type.size();
    for (const auto& p : paths) total += p.type.size();
    a.pathType.reserve(total);
    a.pathNs.reserve(total);
    a.pathBegin.reserve(n + 1);
    a.pathBegin.push_back(0);
    struct Cursor {
        const PathParts* parts;
        std::size_t row = 0, at = 0;
    };
    Cursor cached{&cachedPaths};
    std::size_t shard = 0;
    Cursor passed{&paths[0]};
    for (std::size_t r = 0; r < n; ++r) {
        Cursor* from = &cached;
        if (!fromCache[r]) {
            while (passed.row == passed.parts->count.size()) passed = {&paths[++shard]};
            from = &passed;
        }
        const std::uint32_t k = from->parts->count[from->row++];
        a.pathType.insert(a.pathType.end(), from->parts->type.begin() + static_cast<std::ptrdiff_t>(from->at),
                          from->parts->type.begin() + static_cast<std::ptrdiff_t>(from->at + k));
        a.pathNs.insert(a.pathNs.end(), from->parts->ns.begin() + static_cast<std::ptrdiff_t>(from->at),
                        from->parts->ns.begin() + static_cast<std::ptrdiff_t>(from->at + k));
        from->at += k;
        a.pathBegin.push_back(a.pathBegin.back() + k);
    }
    a.typesByCriticalTime = typesByCriticalTime(a);
    return a;
}

std::vector<std::uint32_t> typesByCriticalTime(const RequestAggregates& a) {
    std::vector<TimeNs> time(a.typeCategory.size(), 0);
    for (std::size_t k = 0; k < a.pathType.size(); ++k) {
        const std::uint32_t type = a.pathType[k];
        if (type >= time.size()) time.resize(std::size_t(type) + 1, 0);
        time[type] += a.pathNs[k];
    }
    std::vector<std::uint32_t> types;
    for (std::uint32_t t = 0; t < time.size(); ++t)
        if (time[t] > 0) types.push_back(t);
    std::sort(types.begin(), types.end(), [&](std::uint32_t x, std::uint32_t y) { return time[x] != time[y] ? time[x] > time[y] : x < y; });
    return types;
}

Result<InMemoryAnalysis> loadAnalysis(const TraceStore& store, const ProgressSink* progress, const CancelToken* cancel) {
    // One snapshot for the events and the model; inside it a big store is read in runs, one per core.
    if (Status s = store.beginRead(); !s) return s;
    auto data = loadTraceData(store, progress, cancel);
    auto model = data ? loadStoredModel(store) : std::nullopt;
    store.endRead();
    if (!data) return data.status();
    if (!model) return Status::error(store.path() + ": not analysed yet (run tracelight-cli analyze)");
    TraceData& td = data.value();
    // Renumber segment types as the stored model numbers them (by their labels' text); types it never saw
    // come after.
    SegmentTypeTextIndex modelTypes(model->types);
    std::vector<SegmentType> types(model->types.size());
    std::vector<bool> placed(model->types.size(), false);
    std::vector<std::uint32_t> remap(td.segmentTypes.size());
    for (std::uint32_t t = 0; t < td.segmentTypes.size(); ++t) {
        const SegmentType& st = td.segmentTypes[t];
        const std::uint32_t known = modelTypes.find(modelTypes.textNumber(td.label(st.task.value)), modelTypes.textNumber(td.label(st.startEvent.value)),
                                                    modelTypes.textNumber(td.label(st.endEvent.value)));
        if (known != SegmentTypeTextIndex::kAbsent) {
            remap[t] = known;
            types[known] = st;
            placed[known] = true;
        } else {
            remap[t] = static_cast<std::uint32_t>(types.size());
            types.push_back(st);
        }
    }
    // A model type this data no longer holds keeps its name through labels of its own.
    std::uint32_t nextLabel = 0xC0000000u;
    for (std::uint32_t i = 0; i < model->types.size(); ++i)
        if (!placed[i]) {
            const auto& name = model->types[i];
            LabelId ids[3];
            const std::string* texts[3] = {&name.task, &name.startEvent, &name.endEvent};
            for (int k = 0; k < 3; ++k) {
                ids[k] = LabelId(nextLabel);
                td.labels[nextLabel++] = *texts[k];
            }
            types[i] = {ids[0], ids[1], ids[2]};
        }
    for (auto& e : td.events)
        if (e.segmentType.isValid()) e.segmentType = SegmentTypeId(remap[e.segmentType.value]);
    td.segmentTypes = std::move(types);
    // Clock offsets by dense host index.
    ClockOffsets offsets = ClockOffsets::none(td.hostLabels.size());
    std::unordered_map<std::uint32_t, std::size_t> dense;
    for (std::size_t h = 0; h < td.hostLabels.size(); ++h) dense[td.hostLabels[h].value] = h;
    for (const auto& [host, offset] : clockOffsets(store)) {
        auto it = dense.find(host);
        if (it != dense.end()) offsets.offsetNs[it->second] = offset;
    }
    return InMemoryAnalysis{std::move(td), std::move(offsets), std::move(model->model)};
}

CategoryRules loadCategoryRules(const TraceStore& store) {
    if (auto json = latestResult(store, kCategoryRules, 0))
        if (auto rules = CategoryRules::fromJson(*json)) return rules.value();
    return CategoryRules::defaults();
}

Status saveCategoryRules(TraceStore& store, const CategoryRules& rules) {
    return putResult(store, kCategoryRules, 0, "", rules.toJson());
}

RequestAggregates restrictAggregates(const RequestAggregates& a, const std::vector<std::uint32_t>& rows) {
    RequestAggregates out;
    out.categories = a.categories;
    out.typeCategory = a.typeCategory;
    const std::size_t w = a.width();
    out.ids.reserve(rows.size());
    out.pathBegin.reserve(rows.size() + 1);
    out.pathBegin.push_back(0);
    for (const std::uint32_t r : rows) {
        out.ids.push_back(a.ids[r]);
        out.analysisRows.push_back(a.analysisRows.empty() ? r : a.analysisRows[r]);
        out.latencyNs.push_back(a.latencyNs[r]);
        out.blindNs.push_back(a.blindNs[r]);
        if (r < a.startNs.size()) out.startNs.push_back(a.startNs[r]);
        using Column = std::vector<TimeNs> RequestAggregates::*;
        for (const Column column : {&RequestAggregates::summedNs, &RequestAggregates::criticalNs, &RequestAggregates::slackNs, &RequestAggregates::spanNs})
            (out.*column).insert((out.*column).end(), (a.*column).begin() + std::ptrdiff_t(r * w), (a.*column).begin() + std::ptrdiff_t((r + 1) * w));
        const auto from = std::ptrdiff_t(a.pathBegin[r]), to = std::ptrdiff_t(a.pathBegin[r + 1]);
        out.pathType.insert(out.pathType.end(), a.pathType.begin() + from, a.pathType.begin() + to);
        out.pathNs.insert(out.pathNs.end(), a.pathNs.begin() + from, a.pathNs.begin() + to);
        out.pathBegin.push_back(out.pathType.size());
    }
    out.typesByCriticalTime = typesByCriticalTime(out);
    return out;
}

std::vector<std::string> attributeValues(const TraceStore& store, const std::vector<RequestId>& ids, std::string_view key) {
    const auto byId = key == kPeriodKey ? periodNamesByRequest(store) : attributeValues(store, key);
    std::vector<std::string> out(ids.size());
    for (std::size_t r = 0; r < ids.size(); ++r)
        if (auto it = byId.find(ids[r].value); it != byId.end()) out[r] = it->second;
    return out;
}

std::vector<std::uint32_t> periodRows(const TraceStore& store, const std::vector<RequestId>& ids, std::string_view period) {
    if (period.empty()) {
        std::vector<std::uint32_t> all(ids.size());
        std::iota(all.begin(), all.end(), 0u);
        return all;
    }
    return rowsOfRequests(ids, requestsInPeriod(store, period));
}

std::vector<std::uint32_t> rowsOfRequests(const std::vector<RequestId>& ids, const std::vector<RequestId>& wanted) {
    std::unordered_set<std::uint32_t> want;
    for (RequestId id : wanted) want.insert(id.value);
    std::vector<std::uint32_t> rows;
    for (std::size_t r = 0; r < ids.size(); ++r)
        if (want.count(ids[r].value)) rows.push_back(static_cast<std::uint32_t>(r));
    return rows;
}

Result<std::int64_t> periodSize(const TraceStore& store, std::string_view period) {
    auto info = store.info();
    if (!info) return info.status();
    std::string known;
    for (const auto& p : info->periods) {
        if (p.name == period) return p.requests;
        known += (known.empty() ? "" : ", ") + p.name;
    }
    return Status::error(store.path() + ": no period '" + std::string(period) + "' (periods: " + (known.empty() ? "none" : known) + ")");
}

Breakdown breakdown(const RequestAggregates& a, const std::vector<std::uint32_t>& rows) {
    Breakdown b;
    const std::size_t width = a.width();
    // Exact integer sums (int64 ns holds 292 years of summed time), divided once.
    std::vector<TimeNs> summed(width, 0), critical(width, 0);
    TimeNs latency = 0, blind = 0;
    auto add = [&](std::size_t r) {
        latency += a.latencyNs[r];
        blind += a.blindNs[r];
        for (std::size_t c = 0; c < width; ++c) {
            summed[c] += a.summed(r, c);
            critical[c] += a.critical(r, c);
        }
    };
    if (rows.empty()) for (std::size_t r = 0; r < a.requests(); ++r) add(r);
    else for (auto r : rows) add(r);
    b.requests = static_cast<std::int64_t>(rows.empty() ? a.requests() : rows.size());
    const double count = std::max<double>(1, double(b.requests));
    b.meanLatencyNs = double(latency) / count;
    for (std::size_t c = 0; c < width; ++c) {
        if (a.categories[c] == "unused") continue;
        b.categories.push_back({a.categories[c], double(summed[c]) / count, double(critical[c]) / count,
                                latency > 0 ? double(critical[c]) / double(latency) : 0});
    }
    // Blind time is time on the critical path that no segment covers: all of it is critical, so its summed
    // delay is its critical time (summed >= critical holds for every category).
    b.categories.push_back({"blind", double(blind) / count, double(blind) / count, latency > 0 ? double(blind) / double(latency) : 0});
    return b;
}

std::vector<std::pair<std::string, Breakdown>> foldSmallCategories(std::vector<std::pair<std::string, Breakdown>> groups,
                                                                   std::size_t kept) {
    // Each category's critical time over every group: its mean there times the group's requests.
    std::vector<std::string> names;
    std::unordered_map<std::string, double> total;
    for (const auto& [label, b] : groups)
        for (const auto& c : b.categories) {
            if (!total.count(c.name)) names.push_back(c.name);
            total[c.name] += c.criticalNs * double(b.requests);
        }
    std::stable_sort(names.begin(), names.end(), [&](const std::string& x, const std::string& y) { return total[x] > total[y]; });
    // A category the rules named "other" is folded with the rest, so that one entry has that name.
    std::vector<std::string> keep;
    bool folded = false;
    for (const auto& name : names) {
        if (name != kOtherCategory && keep.size() < kept) keep.push_back(name);
        else folded = true;
    }
    for (auto& [label, b] : groups) {
        std::unordered_map<std::string, const CategoryBreakdown*> byName;
        for (const auto& c : b.categories) byName[c.name] = &c;
        std::vector<CategoryBreakdown> out;
        for (const auto& name : keep) {
            auto it = byName.find(name);
            out.push_back(it != byName.end() ? *it->second : CategoryBreakdown{name, 0, 0, 0});
            byName.erase(name);
        }
        if (folded) {
            CategoryBreakdown other{std::string(kOtherCategory), 0, 0, 0};
            for (const auto& c : b.categories)
                if (byName.count(c.name)) {
                    other.summedNs += c.summedNs;
                    other.criticalNs += c.criticalNs;
                    other.criticalShare += c.criticalShare;
                }
            out.push_back(other);
        }
        b.categories = std::move(out);
    }
    return groups;
}

std::vector<AttributeGroup> groupByAttribute(const std::vector<std::string>& values, std::size_t rowCount, int quantiles,
                                             const std::vector<std::uint32_t>& rows) {
    // The rows to group: the subset given, else every row that has a value slot.
    std::vector<std::uint32_t> use;
    if (rows.empty()) {
        use.resize(std::min<std::size_t>(values.size(), rowCount));
        std::iota(use.begin(), use.end(), 0u);
    } else {
        for (auto r : rows)
            if (r < values.size() && r < rowCount) use.push_back(r);
    }
    // Numeric when every present value (of these rows) parses as a number.
    std::vector<double> numbers(values.size(), std::nan(""));
    bool numeric = !use.empty();
    std::size_t present = 0;
    for (auto r : use) {
        if (values[r].empty()) continue;
        ++present;
        char* end = nullptr;
        const double v = std::strtod(values[r].c_str(), &end);
        if (end == values[r].c_str() || *end != '\0' || !std::isfinite(v)) numeric = false;
        else numbers[r] = v;
    }
    std::map<std::string, std::vector<std::uint32_t>> groups;
    if (numeric && present > 0 && quantiles > 1) {
        std::vector<double> sorted;
        for (auto r : use)
            if (!std::isnan(numbers[r])) sorted.push_back(numbers[r]);
        std::sort(sorted.begin(), sorted.end());
        std::vector<double> edges;
        for (int q = 1; q < quantiles; ++q) edges.push_back(sorted[sorted.size() * static_cast<std::size_t>(q) / static_cast<std::size_t>(quantiles)]);
        edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
        auto label = [&](std::size_t bucket) {
            const double lo = bucket == 0 ? sorted.front() : edges[bucket - 1];
            const double hi = bucket == edges.size() ? sorted.back() : edges[bucket];
            char buf[96];
            std::snprintf(buf, sizeof buf, "%02zu: [%g, %g%s", bucket + 1, lo, hi, bucket == edges.size() ? "]" : ")");
            return std::string(buf);
        };
        for (auto r : use) {
            if (std::isnan(numbers[r])) {
                groups["(none)"].push_back(r);
                continue;
            }
            const std::size_t bucket = static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), numbers[r]) - edges.begin());
            groups[label(bucket)].push_back(r);
        }
    } else {
        for (auto r : use) groups[values[r].empty() ? std::string("(none)") : values[r]].push_back(r);
    }
    std::vector<AttributeGroup> out;
    for (auto& [value, members] : groups) out.push_back({value, std::move(members)});
    return out;
}

std::vector<Stratum> stratify(const RequestAggregates& a, const std::vector<std::string>& values, int quantiles,
                              const std::vector<std::uint32_t>& rows) {
    std::vector<Stratum> strata;
    for (auto& g : groupByAttribute(values, a.requests(), quantiles, rows)) {
        Stratum s{std::move(g.value), std::move(g.rows), {}};
        s.breakdown = breakdown(a, s.rows);
        strata.push_back(std::move(s));
    }
    return strata;
}

std::vector<float> criticalShareCdf(const RequestAggregates& a, std::size_t category) {
    std::vector<float> shares(a.requests());
    for (std::size_t r = 0; r < a.requests(); ++r)
        shares[r] = a.latencyNs[r] > 0 ? static_cast<float>(double(a.critical(r, category)) / double(a.latencyNs[r])) : 0.f;
    std::sort(shares.begin(), shares.end());
    return shares;
}

namespace {
template <typename T>
T quantileOf(std::vector<T> values, double q) {
    if (values.empty()) return 0;
    const std::size_t k = std::min(values.size() - 1, static_cast<std::size_t>(std::floor(q * double(values.size() - 1) + 0.5)));
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
    return values[k];
}
} // namespace

double quantile(std::vector<float> values, double q) { return quantileOf(std::move(values), q); }
TimeNs quantile(std::vector<TimeNs> values, double q) { return quantileOf(std::move(values), q); }

namespace {
TimeNs outlierThresholdNs(const RequestAggregates& a, const std::vector<std::uint32_t>& rows, double fraction) {
    std::vector<TimeNs> latencies;
    latencies.reserve(rows.size());
    for (auto r : rows) latencies.push_back(a.latencyNs[r]);
    return quantile(latencies, 1.0 - fraction);
}
std::vector<std::uint32_t> everyRow(const RequestAggregates& a) {
    std::vector<std::uint32_t> all(a.requests());
    std::iota(all.begin(), all.end(), 0u);
    return all;
}
} // namespace

std::vector<std::uint32_t> outlierRows(const RequestAggregates& a, double fraction) {
    const std::vector<std::uint32_t> all = everyRow(a);
    const TimeNs threshold = outlierThresholdNs(a, all, fraction);
    std::vector<std::uint32_t> rows;
    for (auto r : all)
        if (a.latencyNs[r] > threshold) rows.push_back(r);
    return rows;
}

Outliers outliers(const RequestAggregates& a, double fraction, std::int64_t minimumPaths, const std::vector<std::uint32_t>& rows) {
    Outliers o;
    std::vector<std::uint32_t> all;
    const std::vector<std::uint32_t>* use = &rows;
    if (rows.empty()) {
        all = everyRow(a);
        use = &all;
    }
    o.thresholdNs = outlierThresholdNs(a, *use, fraction);
    std::unordered_map<std::uint32_t, std::array<TimeNs, 2>> time;   // type -> critical time in (rest, outliers)
    std::unordered_map<std::uint32_t, std::int64_t> paths;
    TimeNs latency[2] = {0, 0};
    for (const std::size_t r : *use) {
        const int set = a.latencyNs[r] > o.thresholdNs ? 1 : 0;
        o.outlierRequests += set;
        latency[set] += a.latencyNs[r];
        for (std::uint64_t k = a.pathBegin[r]; k < a.pathBegin[r + 1]; ++k) {
            time[a.pathType[k]][static_cast<std::size_t>(set)] += a.pathNs[k];
            ++paths[a.pathType[k]];
        }
    }
    for (const auto& [type, t] : time) {
        if (paths[type] < minimumPaths || (t[0] == 0 && t[1] == 0)) continue;
        OutlierSegment s{type, latency[1] > 0 ? double(t[1]) / double(latency[1]) : 0, latency[0] > 0 ? double(t[0]) / double(latency[0]) : 0, 0};
        s.ratio = s.restShare > 0 ? s.outlierShare / s.restShare : (s.outlierShare > 0 ? 1e9 : 0);
        o.segments.push_back(s);
    }
    std::sort(o.segments.begin(), o.segments.end(), [](const OutlierSegment& x, const OutlierSegment& y) {
        return x.ratio != y.ratio ? x.ratio > y.ratio : x.type < y.type;
    });
    // Slack, per category, by the same split.
    const auto median = [](std::vector<TimeNs>& v) {
        const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
        std::nth_element(v.begin(), mid, v.end());
        return *mid;
    };
    std::vector<TimeNs> sets[2];
    for (std::size_t c = 0; c < a.width(); ++c) {
        sets[0].clear();
        sets[1].clear();
        for (const std::size_t r : *use)
            if (a.hasSlack(r, c)) sets[a.latencyNs[r] > o.thresholdNs ? 1 : 0].push_back(a.slack(r, c));
        if (sets[0].empty() || sets[1].empty()) continue;
        OutlierSlack s;
        s.category = c;
        s.outlierRequests = static_cast<std::int64_t>(sets[1].size());
        s.restRequests = static_cast<std::int64_t>(sets[0].size());
        s.outlierMedianNs = median(sets[1]);
        s.restMedianNs = median(sets[0]);
        s.ratio = s.restMedianNs > 0 ? double(s.outlierMedianNs) / double(s.restMedianNs) : s.outlierMedianNs > 0 ? 1e9 : 1;
        o.slack.push_back(s);
    }
    // The most slack lost first: the smallest ratio of what is left, then the largest absolute loss.
    std::sort(o.slack.begin(), o.slack.end(), [](const OutlierSlack& x, const OutlierSlack& y) {
        if (x.ratio != y.ratio) return x.ratio < y.ratio;
        const TimeNs lostX = x.restMedianNs - x.outlierMedianNs, lostY = y.restMedianNs - y.outlierMedianNs;
        return lostX != lostY ? lostX > lostY : x.category < y.category;
    });
    return o;
}

std::vector<SlackBucket> slackBuckets(const RequestAggregates& a, std::size_t category, int buckets,
                                      const std::vector<std::uint32_t>& subset) {
    std::vector<std::uint32_t> rows;
    if (subset.empty()) {
        for (std::size_t r = 0; r < a.requests(); ++r)
            if (a.hasSlack(r, category)) rows.push_back(static_cast<std::uint32_t>(r));
    } else {
        for (auto r : subset)
            if (a.hasSlack(r, category)) rows.push_back(r);
    }
    // Stable, so equal slacks (many zeros) keep request order and buckets are reproducible.
    std::stable_sort(rows.begin(), rows.end(), [&](auto x, auto y) { return a.slack(x, category) < a.slack(y, category); });
    std::vector<SlackBucket> out;
    for (int b = 0; b < buckets && !rows.empty(); ++b) {
        const std::size_t lo = rows.size() * static_cast<std::size_t>(b) / static_cast<std::size_t>(buckets);
        const std::size_t hi = rows.size() * static_cast<std::size_t>(b + 1) / static_cast<std::size_t>(buckets);
        if (hi <= lo) continue;
        // Pearson correlation of the category's time with the latency.
        double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
        for (std::size_t k = lo; k < hi; ++k) {
            const double x = double(a.span(rows[k], category)), y = double(a.latencyNs[rows[k]]);
            sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y;
        }
        const double m = double(hi - lo);
        const double cov = sxy - sx * sy / m, vx = sxx - sx * sx / m, vy = syy - sy * sy / m;
        out.push_back({a.slack(rows[lo], category), a.slack(rows[hi - 1], category), static_cast<std::int64_t>(hi - lo),
                       vx > 0 && vy > 0 ? cov / std::sqrt(vx * vy) : 0, vx > 0 ? cov / vx : 0});
    }
    return out;
}

SlackPrediction predictSlack(const RequestAggregates& a, std::size_t category, TimeNs cutoffNs, const std::vector<std::string>& users) {
    SlackPrediction p;
    // Rows in start order (aggregates without start times: row order).
    std::vector<std::uint32_t> order;
    for (std::size_t r = 0; r < a.requests() && r < users.size(); ++r)
        if (!users[r].empty()) order.push_back(static_cast<std::uint32_t>(r));
    if (a.startNs.size() == a.requests())
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return a.startNs[x] < a.startNs[y]; });
    std::unordered_map<std::string, std::size_t> previous;
    for (const std::uint32_t r : order) {
        auto it = previous.find(users[r]);
        // Absent (kNoSlack) counts as slack, as +inf did.
        const bool actual = a.slack(r, category) >= cutoffNs;
        if (it != previous.end()) {
            const bool predicted = a.slack(it->second, category) >= cutoffNs;
            ++p.pairs;
            if (predicted && actual) ++p.truePositive;
            else if (predicted && !actual) ++p.falsePositive;
            else if (!predicted && !actual) ++p.trueNegative;
            else ++p.falseNegative;
            p.slackPairs.emplace_back(a.slack(it->second, category), a.slack(r, category));
            it->second = r;
        } else {
            previous.emplace(users[r], r);
        }
    }
    return p;
}

namespace {
// Every row of `a` re-scheduled with each segment's duration changed by change(type, durationNs).
template <typename Change>
Result<std::vector<TimeNs>> rescheduleRows(const InMemoryAnalysis& analysis, const RequestAggregates& a, const Change& change,
                                           unsigned threads, const CancelToken* cancel) {
    if (cancel && cancel->isCancelled()) return Status::error("cancelled");
    const TraceData& td = analysis.data;
    const std::size_t rows = a.analysisRows.empty() ? td.requestCount() : a.analysisRows.size();
    std::vector<TimeNs> out(rows);
    forEachShard(rows, resolveThreads(threads), [&](unsigned, std::size_t begin, std::size_t end) {
        RequestPass pass(analysis.model, td);
        std::vector<TimeNs> delta;
        std::vector<std::uint32_t> rootEnds;
        for (std::size_t row = begin; row < end; ++row) {
            if (((row - begin) & 0xFFF) == 0 && cancel && cancel->isCancelled()) return;
            const std::size_t r = a.analysisRows.empty() ? row : a.analysisRows[row];
            const RequestDag& dag = pass.graph(td.eventsOf(r), analysis.offsets, td.linksOf(r));
            delta.assign(dag.segments.size(), 0);
            for (std::size_t s = 0; s < dag.segments.size(); ++s)
                delta[s] = change(dag.segments[s].type.value, dag.segments[s].durationNs());
            // Span data: through its span graph, from the roots' start to their latest end.
            const auto spans = td.spansOf(r);
            const auto roots = spans.empty() ? std::nullopt : rootsExtent(td.eventsOf(r), spans, analysis.offsets);
            if (!roots) {
                out[row] = rescheduledLatency(dag, delta);
                continue;
            }
            rootEndSegments(td.eventsOf(r), spans, rootEnds);
            out[row] = rescheduledSpanLatency(dag, delta, rootEnds, roots->startNs);
        }
    });
    if (cancel && cancel->isCancelled()) return Status::error("cancelled");
    return out;
}
} // namespace

Result<std::vector<TimeNs>> whatIf(const InMemoryAnalysis& analysis, const RequestAggregates& a, WhatIfTarget target, double factor,
                                   TimeNs addNs, unsigned threads, const CancelToken* cancel) {
    const auto change = [&](std::uint32_t type, TimeNs durationNs) -> TimeNs {
        const bool hit = target.type >= 0 ? static_cast<int>(type) == target.type
                                          : (type < a.typeCategory.size() && a.typeCategory[type] == target.category);
        return hit ? std::llround(double(durationNs) * (factor - 1.0)) + addNs : 0;
    };
    return rescheduleRows(analysis, a, change, threads, cancel);
}

Result<std::vector<TimeNs>> whatIf(const InMemoryAnalysis& analysis, const RequestAggregates& a, const std::vector<double>& typeFactors,
                                   unsigned threads, const CancelToken* cancel) {
    const auto change = [&](std::uint32_t type, TimeNs durationNs) -> TimeNs {
        const double factor = type < typeFactors.size() ? typeFactors[type] : 1.0;
        return factor == 1.0 ? 0 : std::llround(double(durationNs) * (factor - 1.0));
    };
    return rescheduleRows(analysis, a, change, threads, cancel);
}

Result<std::vector<std::uint32_t>> whatIfKeyTypes(const InMemoryAnalysis& analysis, const RequestAggregates& a, std::string_view key) {
    const TraceData& td = analysis.data;
    const auto typesOfCategory = [&](int category) {
        std::vector<std::uint32_t> types;
        for (std::size_t t = 0; t < a.typeCategory.size(); ++t)
            if (a.typeCategory[t] == category) types.push_back(static_cast<std::uint32_t>(t));
        return types;
    };
    // A category, as the app offers it ("category C") or by its name; a hop typed with "->" for "→".
    std::string name(key);
    constexpr std::string_view kCategoryPrefix = "category ";
    if (name.starts_with(kCategoryPrefix)) name.erase(0, kCategoryPrefix.size());
    if (const int c = a.categoryIndex(name); c >= 0) return typesOfCategory(c);
    if (const auto arrow = name.find("->"); arrow != std::string::npos && name.find(':') == std::string::npos) {
        std::string caller = name.substr(0, arrow), callee = name.substr(arrow + 2);
        const auto trim = [](std::string& s) {
            s.erase(0, s.find_first_not_of(' '));
            s.erase(s.find_last_not_of(' ') + 1);
        };
        trim(caller);
        trim(callee);
        std::string hop;
        if (const int c = a.categoryIndex(assignHopName(hop, SpanHop{caller, callee})); c >= 0) return typesOfCategory(c);
    }
    // A segment type, as the app lists it.
    for (std::size_t t = 0; t < td.segmentTypes.size(); ++t)
        if (td.segmentName(SegmentTypeId(static_cast<std::uint32_t>(t))) == key) return std::vector<std::uint32_t>{static_cast<std::uint32_t>(t)};
    // An operation (a task): its segments but the trips between hosts, whose time is the hop's.
    std::vector<std::uint32_t> types;
    std::optional<SegmentTypeFactsTable> facts;
    for (std::size_t t = 0; t < td.segmentTypes.size(); ++t) {
        if (td.label(td.segmentTypes[t].task.value) != key) continue;
        if (!facts) facts = segmentTypeFacts(td);
        if (facts->seen[t] && !facts->facts[t].network) types.push_back(static_cast<std::uint32_t>(t));
    }
    if (!types.empty()) return types;
    std::string known;
    for (const auto& c : a.categories)
        if (c != "unused") known += (known.empty() ? "" : ", ") + c;
    return Status::error("no category, segment type or operation '" + std::string(key) + "' (categories: " + known + ")");
}

BreakdownStudy breakdownStudy(const RequestAggregates& a, const std::vector<std::string>* values, int quantiles) {
    BreakdownStudy out;
    if (!values) out.groups.emplace_back("all requests", breakdown(a));
    else
        for (auto& s : stratify(a, *values, quantiles)) out.groups.emplace_back(std::move(s.value), std::move(s.breakdown));
    // The categories that take most of the critical path: with dozens of services, the first four by index
    // were often ones that hardly matter.
    std::vector<std::pair<TimeNs, std::size_t>> byCritical;
    for (std::size_t c = 0; c < a.width(); ++c) {
        if (a.categories[c] == "unused") continue;
        TimeNs critical = 0;
        for (std::size_t r = 0; r < a.requests(); ++r) critical += a.critical(r, c);
        byCritical.emplace_back(-critical, c);
    }
    std::sort(byCritical.begin(), byCritical.end());
    for (std::size_t k = 0; k < byCritical.size() && k < 4; ++k) {
        const std::size_t c = byCritical[k].second;
        out.shareCdfs.emplace_back(a.categories[c], criticalShareCdf(a, c));
    }
    return out;
}

bool spansWholeRequests(const RequestAggregates& a, std::size_t category) {
    if (category >= a.width()) return false;
    std::size_t present = 0, whole = 0;
    for (std::size_t r = 0; r < a.requests(); ++r) {
        const TimeNs span = a.span(r, category);
        if (span <= 0) continue;
        ++present;
        if (double(span) >= 0.99 * double(a.latencyNs[r])) ++whole;
    }
    return present > 0 && whole * 10 >= present * 9;
}

std::vector<std::size_t> categoriesWithSlack(const RequestAggregates& a) {
    std::vector<std::size_t> out;
    for (std::size_t c = 0; c < a.width(); ++c)
        for (std::size_t r = 0; r < a.requests(); ++r)
            if (a.hasSlack(r, c) && a.slack(r, c) > 0) {
                out.push_back(c);
                break;
            }
    return out;
}

int slackStudyCategory(const RequestAggregates& a) {
    int best = -1, mostCritical = -1, mostCriticalPart = -1;
    double bestVariance = 0;
    TimeNs bestCritical = -1, topCritical = -1, topPartCritical = -1;
    for (std::size_t c = 0; c < a.width(); ++c) {
        if (a.categories[c] == "unused") continue;
        TimeNs critical = 0;
        double sum = 0, squares = 0;
        std::size_t present = 0;
        for (std::size_t r = 0; r < a.requests(); ++r) {
            critical += a.critical(r, c);
            if (!a.hasSlack(r, c)) continue;
            const double ms = nsToMs(a.slack(r, c));
            sum += ms;
            squares += ms * ms;
            ++present;
        }
        if (critical > topCritical) topCritical = critical, mostCritical = static_cast<int>(c);
        // The root service's slack is zero and its time is the latency: the studies would show nothing.
        if (present == 0 || present * 20 < a.requests() || spansWholeRequests(a, c)) continue;
        if (critical > topPartCritical) topPartCritical = critical, mostCriticalPart = static_cast<int>(c);
        const double mean = sum / double(present);
        const double variance = std::max(0.0, squares / double(present) - mean * mean);
        if (variance > bestVariance || (variance > 0 && variance == bestVariance && critical > bestCritical))
            best = static_cast<int>(c), bestVariance = variance, bestCritical = critical;
    }
    return best >= 0 ? best : mostCriticalPart >= 0 ? mostCriticalPart : mostCritical;
}

SlackStudy slackStudy(const RequestAggregates& a, std::size_t category, TimeNs cutoffNs, const std::vector<std::uint32_t>& rows,
                      const std::vector<std::string>* users, int buckets) {
    SlackStudy out;
    if (category >= a.width()) return out;
    // Of the selection (rows; none: every request), as its buckets are.
    auto each = [&](auto&& f) {
        if (rows.empty())
            for (std::size_t r = 0; r < a.requests(); ++r) f(r);
        else
            for (auto r : rows) f(std::size_t{r});
    };
    each([&](std::size_t r) {
        if (r < a.requests() && a.hasSlack(r, category)) out.slackNs.push_back(a.slack(r, category));
    });
    std::sort(out.slackNs.begin(), out.slackNs.end());
    out.cutoffNs = cutoffNs >= 0 ? cutoffNs : (out.slackNs.empty() ? 0 : out.slackNs[(out.slackNs.size() - 1) / 2 + (out.slackNs.size() - 1) % 2]);
    out.buckets = slackBuckets(a, category, buckets, rows);
    if (users) {
        out.predicted = true;
        if (rows.empty()) {
            out.prediction = predictSlack(a, category, out.cutoffNs, *users);
        } else {
            std::vector<std::string> selected(users->size());  // a request without a user is not predicted
            each([&](std::size_t r) {
                if (r < selected.size()) selected[r] = (*users)[r];
            });
            out.prediction = predictSlack(a, category, out.cutoffNs, selected);
        }
    }
    return out;
}

std::vector<std::uint32_t> rowsWithValue(const std::vector<std::string>& values, std::string_view wanted) {
    std::vector<std::uint32_t> rows;
    for (std::size_t r = 0; r < values.size(); ++r)
        if (values[r] == wanted) rows.push_back(static_cast<std::uint32_t>(r));
    return rows;
}

std::vector<std::string> valuesByFrequency(const std::vector<std::string>& values, std::size_t limit) {
    std::unordered_map<std::string_view, std::int64_t> counts;
    for (const auto& v : values)
        if (!v.empty()) ++counts[v];
    std::vector<std::pair<std::int64_t, std::string_view>> ordered;
    for (const auto& [v, n] : counts) ordered.emplace_back(-n, v);
    std::sort(ordered.begin(), ordered.end());
    std::vector<std::string> out;
    for (std::size_t i = 0; i < ordered.size() && i < limit; ++i) out.emplace_back(ordered[i].second);
    return out;
}

} // namespace tracelight
