#include "tracelight/bottleneck/Bottlenecks.h"
#include "tracelight/analysis/RequestWalk.h"

#include <algorithm>
#include <unordered_map>

#include "tracelight/base/Json.h"
#include "tracelight/base/Parallel.h"
#include "tracelight/bottleneck/BottleneckTrend.h"
#include "tracelight/bottleneck/RequestBottlenecks.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/LatencySlice.h"

namespace tracelight {

namespace {

// One shard's sums: [group][type] and each group's requests and latency.
struct ShardSums {
    std::vector<std::vector<TimeNs>> byType;
    std::vector<std::vector<double>> squares;  // [group][type]: sums of squared contributions, for the variance
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
            s.squares.resize(m_groupCount);
            s.requests.assign(m_groupCount, 0);
            s.latency.assign(m_groupCount, 0);
        }
        for (auto i = m_rowBegin[row]; i < m_rowBegin[row + 1]; ++i) {
            const auto g = m_rowGroups[i];
            auto& sums = s.byType[g];
            auto& squares = s.squares[g];
            if (sums.size() < byType.size()) sums.resize(byType.size(), 0);
            if (squares.size() < byType.size()) squares.resize(byType.size(), 0);
            for (std::size_t t = 0; t < byType.size(); ++t) {
                sums[t] += byType[t];
                squares[t] += double(byType[t]) * double(byType[t]);
            }
            s.requests[g] += 1;
            s.latency[g] += latency;
        }
    }

private:
    std::size_t m_groupCount;
    std::vector<std::uint32_t> m_rowBegin, m_rowGroups;
};

BottleneckSummary summarize(const std::vector<BottleneckType>& types, std::int64_t requests, TimeNs latency,
                            const std::vector<TimeNs>& sums, const std::vector<double>& squares) {
    BottleneckSummary out;
    out.requests = requests;
    out.latencyTotalNs = latency;
    out.meanLatencyNs = requests > 0 ? double(latency) / double(requests) : 0;
    for (std::size_t t = 0; t < types.size(); ++t) {
        const TimeNs total = t < sums.size() ? sums[t] : 0;
        // Types no request of the group has are left out; the gaps are always there, as a type.
        if (total == 0 && types[t].name != kGapsType) continue;
        const double mean = requests > 0 ? double(total) / double(requests) : 0;
        // Sum of squares less n mean², clamped: rounding may leave a hair below zero when every request has the same.
        const double variance = requests > 1 ? std::max(0.0, (squares[t] - double(requests) * mean * mean) / double(requests - 1)) : 0;
        out.types.push_back({types[t].name, types[t].howToFix, total, mean, latency > 0 ? double(total) / double(latency) : 0, variance});
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
    const TraceData& td = analysis.data;
    BottleneckTypeTable types(td, options.rules, options.categories);
    const auto hosts = hostsByName(td);
    const Accumulator accumulator(groups, td.requestCount());
    const unsigned threads = resolveThreads(options.threads);
    std::vector<ShardSums> shards(threads);

    const Status walked = forEachRequestWithSpans(
        td, store, [&](std::uint32_t r) { return accumulator.selected(r); }, threads, "splitting request timelines", progress,
        cancel, [&](unsigned shard) {
            return [&, shard, pass = RequestBottleneckPass(analysis, hosts, types)](std::uint32_t row, const std::vector<SpanShape>* spans) mutable {
                const RequestContribution& c = pass.run(row, spans);
                accumulator.add(shards[shard], row, pass.latencyNs(), c.byType);
            };
        });
    if (!walked) return walked;

    const std::vector<BottleneckType> table = types.types();
    std::vector<BottleneckSummary> out;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        std::vector<TimeNs> sums(table.size(), 0);
        std::vector<double> squares(table.size(), 0);
        std::int64_t requests = 0;
        TimeNs latency = 0;
        for (const auto& s : shards) {
            if (s.byType.empty()) continue;
            for (std::size_t t = 0; t < s.byType[g].size(); ++t) sums[t] += s.byType[g][t];
            for (std::size_t t = 0; t < s.squares[g].size(); ++t) squares[t] += s.squares[g][t];
            requests += s.requests[g];
            latency += s.latency[g];
        }
        out.push_back(summarize(table, requests, latency, sums, squares));
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

void writeLatencySliceJson(JsonWriter& w, const LatencySliceResult* slice) {
    if (!slice) {
        w.null();
        return;
    }
    w.beginObject().key("from").value(slice->range.loPercent()).key("to").value(slice->range.hiPercent())
        .key("scope_requests").value(slice->scopeRequests).key("min_latency_us").value(nsToUs(slice->minLatencyNs))
        .key("max_latency_us").value(nsToUs(slice->maxLatencyNs)).endObject();
}

void writeBottleneckTrendJson(JsonWriter& w, const BottleneckTrend& trend) {
    w.beginObject().key("bucket").value(trend.bucketing.unit).key("bucket_us").value(nsToUs(trend.bucketing.sizeNs));
    w.key("buckets").beginArray();
    for (std::size_t b = 0; b < trend.buckets.size(); ++b) {
        const BottleneckSummary& s = trend.buckets[b];
        w.beginObject().key("start_us").value(nsToUs(trend.bucketStartNs[b])).key("requests").value(s.requests)
            .key("mean_latency_us").value(s.meanLatencyNs / 1000.0).key("types").beginArray();
        for (const auto& t : s.types)
            w.beginObject().key("name").value(t.name).key("contribution_us").value(t.meanNs / 1000.0).key("share").value(t.share).endObject();
        w.endArray().endObject();
    }
    w.endArray().endObject();
}

std::string bottlenecksJson(const BottleneckSummary& all, const std::string& attribute, const std::vector<BottleneckStratum>& strata,
                            const BottlenecksJsonExtras& extras) {
    JsonWriter w;
    w.beginObject().key("requests").value(all.requests).key("mean_latency_us").value(all.meanLatencyNs / 1000.0);
    w.key("latency_percentile");
    writeLatencySliceJson(w, extras.slice);
    w.key("types");
    writeTypes(w, all);
    w.key("strata").beginArray();
    for (const auto& s : strata) {
        w.beginObject().key("attr").value(attribute).key("value").value(s.value).key("requests").value(s.summary.requests).key("types");
        writeTypes(w, s.summary);
        w.endObject();
    }
    w.endArray();
    if (extras.trend) {
        w.key("trend");
        writeBottleneckTrendJson(w, *extras.trend);
    }
    w.endObject();
    return w.text();
}

} // namespace tracelight
