#include "tracelight/bottleneck/Bottlenecks.h"

#include <algorithm>
#include <unordered_map>

#include "tracelight/base/Json.h"
#include "tracelight/base/Parallel.h"
#include "tracelight/bottleneck/RequestBottlenecks.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

namespace {

// One shard's sums: [group][type] and each group's requests and latency.
struct ShardSums {
    std::vector<std::vector<TimeNs>> byType;
    std::vector<std::int64_t> requests;
    std::vector<TimeNs> latency;
};

class Accumulator {
public:
    Accumulator(const std::vector<std::vector<std::uint32_t>>& groups, std::size_t rows) : m_groupCount(groups.size()) {
        // The groups of each row, compressed (row r: m_rowGroups[m_rowBegin[r] .. m_rowBegin[r + 1])).
        std::vector<std::uint32_t> count(rows + 1, 0);
        for (const auto& g : groups)
            for (auto r : g)
                if (r < rows) ++count[r + 1];
        m_rowBegin.assign(rows + 1, 0);
        for (std::size_t r = 0; r < rows; ++r) m_rowBegin[r + 1] = m_rowBegin[r] + count[r + 1];
        m_rowGroups.resize(m_rowBegin[rows]);
        std::vector<std::uint32_t> fill(m_rowBegin.begin(), m_rowBegin.end() - 1);
        for (std::uint32_t g = 0; g < groups.size(); ++g)
            for (auto r : groups[g])
                if (r < rows) m_rowGroups[fill[r]++] = g;
    }

    bool selected(std::size_t row) const { return m_rowBegin[row + 1] > m_rowBegin[row]; }

    void add(ShardSums& s, std::size_t row, TimeNs latency, const std::vector<TimeNs>& byType) const {
        if (s.byType.empty()) {
            s.byType.resize(m_groupCount);
            s.requests.assign(m_groupCount, 0);
            s.latency.assign(m_groupCount, 0);
        }
        for (auto i = m_rowBegin[row]; i < m_rowBegin[row + 1]; ++i) {
            const auto g = m_rowGroups[i];
            auto& sums = s.byType[g];
            if (sums.size() < byType.size()) sums.resize(byType.size(), 0);
            for (std::size_t t = 0; t < byType.size(); ++t) sums[t] += byType[t];
            s.requests[g] += 1;
            s.latency[g] += latency;
        }
    }

private:
    std::size_t m_groupCount;
    std::vector<std::uint32_t> m_rowBegin, m_rowGroups;
};

BottleneckSummary summarize(const std::vector<BottleneckType>& types, std::int64_t requests, TimeNs latency,
                            const std::vector<TimeNs>& sums) {
    BottleneckSummary out;
    out.requests = requests;
    out.latencyTotalNs = latency;
    out.meanLatencyNs = requests > 0 ? double(latency) / double(requests) : 0;
    for (std::size_t t = 0; t < types.size(); ++t) {
        const TimeNs total = t < sums.size() ? sums[t] : 0;
        // Types no request of the group has are left out; the gaps are always there, as a type.
        if (total == 0 && types[t].name != kGapsType) continue;
        out.types.push_back({types[t].name, types[t].howToFix, total, requests > 0 ? double(total) / double(requests) : 0,
                             latency > 0 ? double(total) / double(latency) : 0});
    }
    std::sort(out.types.begin(), out.types.end(), [](const auto& a, const auto& b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
    });
    return out;
}

} // namespace

Result<std::vector<BottleneckSummary>> computeBottlenecks(const InMemoryAnalysis& analysis, const TraceStore* store,
                                                          const std::vector<std::vector<std::uint32_t>>& groups,
                                                          const BottleneckOptions& options, const ProgressSink* progress,
                                                          const CancelToken* cancel) {
    auto cancelled = [cancel] { return cancel && cancel->isCancelled(); };
    const TraceData& td = analysis.data;
    BottleneckTypeTable types(td, options.rules, options.categories);
    const auto hosts = hostsByName(td);
    const Accumulator accumulator(groups, td.requestCount());
    const unsigned threads = resolveThreads(options.threads);
    std::vector<ShardSums> shards(threads);

    // As the profile does: span requests with their span records, read in one streaming scan and handled
    // in batches; the rest (event logs) in one sharded pass.
    std::vector<std::uint32_t> spanRows, plainRows;
    for (std::uint32_t r = 0; r < td.requestCount(); ++r)
        if (accumulator.selected(r)) (td.isFromSpans(r) && store ? spanRows : plainRows).push_back(r);
    ShardedProgress reporter(progress, spanRows.size() + plainRows.size(), "splitting request timelines");

    forEachShard(plainRows.size(), threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
        RequestBottleneckPass pass(analysis, hosts, types);
        for (std::size_t i = begin; i < end; ++i) {
            if (((i - begin) & 0xFF) == 0xFF && cancelled()) return;
            const RequestContribution& c = pass.run(plainRows[i], nullptr);
            accumulator.add(shards[shard], plainRows[i], pass.latencyNs(), c.byType);
            reporter.step(i - begin);
        }
    });
    if (cancelled()) return Status::error("cancelled");

    if (!spanRows.empty()) {
        std::unordered_map<std::uint64_t, std::uint32_t> rowOf;
        rowOf.reserve(spanRows.size());
        for (auto r : spanRows) rowOf.emplace(td.requestIds[r].value, r);
        std::vector<std::pair<std::uint32_t, RequestSpans>> batch;
        std::vector<bool> seen(td.requestCount(), false);
        auto flush = [&] {
            forEachShard(batch.size(), threads, [&](unsigned shard, std::size_t begin, std::size_t end) {
                RequestBottleneckPass pass(analysis, hosts, types);
                for (std::size_t i = begin; i < end; ++i) {
                    if (cancelled()) return;
                    const RequestContribution& c = pass.run(batch[i].first, &batch[i].second);
                    accumulator.add(shards[shard], batch[i].first, pass.latencyNs(), c.byType);
                }
            });
            batch.clear();
        };
        Status scanned = store->scanSpans([&](RequestId id, const RequestSpans& spans) {
            auto it = rowOf.find(id.value);
            if (it == rowOf.end()) return !cancelled();
            seen[it->second] = true;
            batch.emplace_back(it->second, spans);
            if (batch.size() >= 2048) flush();
            return !cancelled();
        });
        if (!scanned) return scanned;
        flush();
        if (cancelled()) return Status::error("cancelled");
        // Span requests whose span records are missing still count, by their segments.
        RequestBottleneckPass pass(analysis, hosts, types);
        for (auto r : spanRows)
            if (!seen[r]) {
                const RequestContribution& c = pass.run(r, nullptr);
                accumulator.add(shards[0], r, pass.latencyNs(), c.byType);
            }
    }

    const std::vector<BottleneckType> table = types.types();
    std::vector<BottleneckSummary> out;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        std::vector<TimeNs> sums(table.size(), 0);
        std::int64_t requests = 0;
        TimeNs latency = 0;
        for (const auto& s : shards) {
            if (s.byType.empty()) continue;
            for (std::size_t t = 0; t < s.byType[g].size(); ++t) sums[t] += s.byType[g][t];
            requests += s.requests[g];
            latency += s.latency[g];
        }
        out.push_back(summarize(table, requests, latency, sums));
    }
    return out;
}

namespace {
void writeTypes(JsonWriter& w, const BottleneckSummary& s) {
    w.beginArray();
    for (const auto& t : s.types)
        w.beginObject().key("name").value(t.name).key("how_to_fix").value(t.howToFix).key("contribution_us").value(t.meanNs / 1000.0)
            .key("share").value(t.share).endObject();
    w.endArray();
}
} // namespace

std::string bottlenecksJson(const BottleneckSummary& all, const std::string& attribute, const std::vector<BottleneckStratum>& strata) {
    JsonWriter w;
    w.beginObject().key("requests").value(all.requests).key("mean_latency_us").value(all.meanLatencyNs / 1000.0).key("types");
    writeTypes(w, all);
    w.key("strata").beginArray();
    for (const auto& s : strata) {
        w.beginObject().key("attr").value(attribute).key("value").value(s.value).key("requests").value(s.summary.requests).key("types");
        writeTypes(w, s.summary);
        w.endObject();
    }
    w.endArray().endObject();
    return w.text();
}

} // namespace tracelight
