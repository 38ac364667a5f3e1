#include "tracelight/analysis/SqlResults.h"

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/Segments.h"
#include "tracelight/analysis/Slack.h"
#include "tracelight/store/ResultTables.h"
#include "tracelight/store/StoredAnalysis.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

Status writeSqlResults(TraceStore& store, const ProgressSink* progress, const CancelToken* cancel) {
    auto data = loadTraceData(store, progress, cancel);
    if (!data) return data.status();
    const TraceData& td = data.value();
    // The analysis's clocks, by dense host index (what buildSegments adjusts with).
    ClockOffsets offsets = ClockOffsets::none(td.hostLabels.size());
    std::unordered_map<std::uint32_t, std::size_t> dense;
    for (std::size_t h = 0; h < td.hostLabels.size(); ++h) dense[td.hostLabels[h].value] = h;
    for (const auto& [host, offset] : clockOffsets(store))
        if (auto it = dense.find(host); it != dense.end()) offsets.offsetNs[it->second] = offset;

    if (Status s = store.begin(); !s) return s;
    struct RollBack {
        TraceStore& store;
        bool done = false;
        ~RollBack() {
            if (!done) store.rollback();
        }
    } rollBack{store};
    if (Status s = clearResultTables(store); !s) return s;
    // Each type's names, spelt once (the rows view them until they are written).
    std::vector<std::array<std::string, 3>> typeNames(td.segmentTypes.size());
    std::vector<bool> named(td.segmentTypes.size(), false);
    std::vector<SegmentInstance> segments;
    CachedRequestResult cached;
    std::vector<CriticalPathRow> path;
    std::vector<SlackRow> slack;
    Status written = Status::ok();
    std::size_t done = 0;
    const Status scanned = forEachCachedResult(store, td, [&](std::size_t row, TimeNs startNs, TimeNs, TimeNs, std::string_view blob) {
        if (cancel && cancel->isCancelled()) {
            written = Status::error("cancelled");
            return false;
        }
        buildSegments(td.eventsOf(row), offsets, segments);
        if (decodeCachedResult(blob, segments.size(), cached) != CachedDecode::Ok) return true;  // stale or damaged: no rows
        const std::int64_t request = td.requestIds[row].value;
        auto names = [&](const SegmentInstance& s, auto& out) {
            const std::uint32_t t = s.type.value;
            if (!named[t]) {
                const SegmentType& st = td.segmentTypes[t];
                typeNames[t] = {td.label(st.task.value), td.label(st.startEvent.value), td.label(st.endEvent.value)};
                named[t] = true;
            }
            out.task = typeNames[t][0];
            out.startEvent = typeNames[t][1];
            out.endEvent = typeNames[t][2];
        };
        path.clear();
        slack.clear();
        std::vector<bool> critical(segments.size(), false);
        // The path's parts (a clipped entry only its part on the path) and the blind time, in time order.
        forEachPathEntry(cached.criticalPath.size(), cached.clips, [&](std::size_t k, const PathClip* clip) {
            const std::uint32_t v = cached.criticalPath[k];
            const SegmentInstance& s = segments[v];
            critical[v] = true;
            CriticalPathRow r;
            r.request = request;
            names(s, r);
            r.startNs = clip ? clip->startNs : s.startNs - startNs;
            r.endNs = clip ? clip->endNs : s.endNs - startNs;
            path.push_back(r);
        });
        for (const BlindInterval& b : cached.blind) {
            CriticalPathRow r;
            r.request = request;
            r.blind = true;
            r.startNs = b.startNs;
            r.endNs = b.startNs + b.durationNs;
            path.push_back(r);
        }
        std::stable_sort(path.begin(), path.end(), [](const CriticalPathRow& a, const CriticalPathRow& b) { return a.startNs < b.startNs; });
        for (std::size_t k = 0; k < path.size(); ++k) path[k].position = static_cast<std::int64_t>(k);
        for (std::size_t v = 0; v < segments.size(); ++v) {
            SlackRow r;
            r.request = request;
            r.segment = static_cast<std::int64_t>(v);
            names(segments[v], r);
            r.startNs = segments[v].startNs - startNs;
            r.durationNs = segments[v].durationNs();
            if (v < cached.slackNs.size() && cached.slackNs[v] != kUnboundedSlack) r.slackNs = cached.slackNs[v];
            r.critical = critical[v];
            r.network = segments[v].network;
            slack.push_back(r);
        }
        written = addResultRows(store, path, slack);
        if (progress && (++done & 1023) == 0) (*progress)(double(done) / double(std::max<std::size_t>(1, td.requestCount())), "writing SQL tables");
        return static_cast<bool>(written);
    });
    if (!written) return written;
    if (!scanned) return scanned;
    rollBack.done = true;
    return store.commit();
}

} // namespace tracelight
