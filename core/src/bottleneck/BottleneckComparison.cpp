#include "tracelight/bottleneck/BottleneckComparison.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "tracelight/base/Json.h"
#include "tracelight/base/RandomSplit.h"
#include "tracelight/bottleneck/BottleneckTrend.h"
#include "tracelight/compare/Statistics.h"
#include "tracelight/studies/LatencySlice.h"

namespace tracelight {

BottleneckChanges compareBottleneckSummaries(const BottleneckSummary& base, const BottleneckSummary& problem, double alpha) {
    BottleneckChanges out;
    out.baseRequests = base.requests;
    out.problemRequests = problem.requests;
    out.baseMeanLatencyNs = base.meanLatencyNs;
    out.problemMeanLatencyNs = problem.meanLatencyNs;
    // Every type of either side, by name (a type may be in one only).
    struct Both {
        const TypeContribution* base = nullptr;
        const TypeContribution* problem = nullptr;
    };
    std::map<std::string, Both> byName;
    for (const auto& t : base.types) byName[t.name].base = &t;
    for (const auto& t : problem.types) byName[t.name].problem = &t;
    const double nb = double(base.requests), np = double(problem.requests);
    std::vector<double> p;
    for (const auto& [name, both] : byName) {
        TypeChange c;
        c.name = name;
        c.howToFix = both.base ? both.base->howToFix : both.problem->howToFix;
        const double varB = both.base ? both.base->varianceNs2 : 0, varP = both.problem ? both.problem->varianceNs2 : 0;
        c.baseMeanNs = both.base ? both.base->meanNs : 0;
        c.problemMeanNs = both.problem ? both.problem->meanNs : 0;
        c.baseShare = both.base ? both.base->share : 0;
        c.problemShare = both.problem ? both.problem->share : 0;
        // Welch's statistic, normal p-value (two-sided).
        const double se2 = varB / std::max(nb, 1.0) + varP / std::max(np, 1.0);
        const double delta = c.deltaNs();
        double pValue;
        if (nb < 2 || np < 2) pValue = 1;
        else if (se2 <= 0) pValue = delta == 0 ? 1 : 0;
        else pValue = std::erfc(std::fabs(delta) / std::sqrt(2 * se2));
        p.push_back(pValue);
        out.types.push_back(std::move(c));
    }
    // Many types are tested at once: Benjamini-Hochberg keeps the share of false discoveries at alpha.
    const std::vector<double> adjusted = benjaminiHochberg(p);
    for (std::size_t i = 0; i < out.types.size(); ++i) {
        out.types[i].pValue = adjusted[i];
        out.types[i].significant = adjusted[i] < alpha;
        out.significantTypes += out.types[i].significant ? 1 : 0;
    }
    std::stable_sort(out.types.begin(), out.types.end(), [](const TypeChange& a, const TypeChange& b) {
        if (a.significant != b.significant) return a.significant;
        return std::fabs(a.deltaNs()) > std::fabs(b.deltaNs());
    });
    return out;
}

Result<BottleneckComparison> compareBottlenecks(const InMemoryAnalysis& analysis, const TraceStore* store,
                                                const std::vector<std::uint32_t>& baseRows,
                                                const std::vector<std::uint32_t>& problemRows, const BottleneckOptions& options,
                                                double alpha, std::uint64_t seed, const ProgressSink* progress, const CancelToken* cancel) {
    auto [a, b] = splitAtRandom(baseRows, seed);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    auto summaries = computeBottlenecks(analysis, store, {baseRows, problemRows, a, b}, options, progress, cancel);
    if (!summaries) return summaries.status();
    BottleneckComparison out;
    out.seed = seed;
    out.changes = compareBottleneckSummaries(summaries.value()[0], summaries.value()[1], alpha);
    out.aa = compareBottleneckSummaries(summaries.value()[2], summaries.value()[3], alpha);
    return out;
}

namespace {
void writeSide(JsonWriter& w, const BottleneckSide& side, std::int64_t requests, double meanLatencyNs) {
    w.beginObject().key("period").value(side.period).key("requests").value(requests).key("mean_latency_us").value(meanLatencyNs / 1000.0);
    w.key("latency_percentile");
    writeLatencySliceJson(w, side.slice);
    w.endObject();
}
} // namespace

std::string bottleneckComparisonJson(const BottleneckComparison& comparison, const BottleneckSide& baseline, const BottleneckSide& problem,
                                     double alpha, const BottleneckTrend* trend) {
    const BottleneckChanges& c = comparison.changes;
    JsonWriter w;
    w.beginObject().key("baseline");
    writeSide(w, baseline, c.baseRequests, c.baseMeanLatencyNs);
    w.key("problem");
    writeSide(w, problem, c.problemRequests, c.problemMeanLatencyNs);
    w.key("test").value("welch").key("alpha").value(alpha).key("significant_types").value(c.significantTypes);
    w.key("types").beginArray();
    for (const auto& t : c.types)
        w.beginObject().key("name").value(t.name).key("how_to_fix").value(t.howToFix).key("baseline_us").value(t.baseMeanNs / 1000.0)
            .key("problem_us").value(t.problemMeanNs / 1000.0).key("delta_us").value(t.deltaNs() / 1000.0)
            .key("baseline_share").value(t.baseShare).key("problem_share").value(t.problemShare).key("p_value").value(t.pValue)
            .key("significant").value(t.significant).endObject();
    w.endArray();
    const BottleneckChanges& aa = comparison.aa;
    w.key("aa").beginObject().key("period").value(baseline.period).key("seed").value(static_cast<std::uint64_t>(comparison.seed))
        .key("a_requests").value(aa.baseRequests).key("b_requests").value(aa.problemRequests)
        .key("significant_types").value(aa.significantTypes).key("types").beginArray();
    for (const auto& t : aa.types)
        w.beginObject().key("name").value(t.name).key("a_us").value(t.baseMeanNs / 1000.0).key("b_us").value(t.problemMeanNs / 1000.0)
            .key("delta_us").value(t.deltaNs() / 1000.0).key("p_value").value(t.pValue).key("significant").value(t.significant).endObject();
    w.endArray().endObject();
    if (trend) {
        w.key("trend");
        writeBottleneckTrendJson(w, *trend);
    }
    w.endObject();
    return w.text();
}

} // namespace tracelight
