#include "tracelight/compare/AaStudy.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_map>

#include "tracelight/store/RequestTable.h"

namespace tracelight {

std::vector<std::string> requestTypeOfEach(const TraceStore& store, const RequestCategories& c, std::span<const RequestId> ids) {
    std::vector<std::string> out(c.rows.size());
    if (auto table = loadRequestTable(store); table && table->hasSpans) {
        std::unordered_map<std::uint32_t, std::uint32_t> rowOf;  // request id -> table row
        for (std::uint32_t i = 0; i < table->size(); ++i) rowOf[table->ids[i].value] = i;
        for (std::size_t i = 0; i < c.rows.size(); ++i)
            if (const auto row = rowOf.find(ids[i].value); row != rowOf.end() && table->operation[row->second] != RequestTable::kNoLabel)
                out[i] = table->spanLabels[table->operation[row->second]];
    } else {
        std::vector<std::uint64_t> categories(c.category.begin(), c.category.end());
        std::sort(categories.begin(), categories.end());
        categories.erase(std::unique(categories.begin(), categories.end()), categories.end());
        std::vector<const CategoryInfo*> infos;
        for (auto cat : categories) {
            const auto it = c.info.find(cat);
            infos.push_back(it == c.info.end() ? nullptr : &it->second);
        }
        const std::vector<std::string> typeOfCategory = requestTypes(infos);
        for (std::size_t i = 0; i < c.category.size(); ++i)
            out[i] = typeOfCategory[static_cast<std::size_t>(std::lower_bound(categories.begin(), categories.end(), c.category[i]) -
                                                             categories.begin())];
    }
    for (auto& t : out)
        if (t.empty()) t = "(unknown)";
    return out;
}

AaStudy aaStudy(const RequestCategories& c, std::span<const std::uint8_t> inB, std::span<const std::uint32_t> unit,
                std::span<const std::string> types, const AaStudyOptions& options, const CompareOptions& compareOptions,
                std::span<const TimeNs> startNs) {
    AaStudy out;
    std::vector<std::uint32_t> a, b;
    for (std::size_t i = 0; i < inB.size(); ++i) {
        if (inB[i] == 0) a.push_back(static_cast<std::uint32_t>(i));
        if (inB[i] == 1) b.push_back(static_cast<std::uint32_t>(i));
    }
    out.requestsA = static_cast<std::int64_t>(a.size());
    out.requestsB = static_cast<std::int64_t>(b.size());
    const AaPercentilesOptions percentileOptions{options.seed, options.resamples};
    out.percentiles = groupPercentiles(c.latencyNs, inB, unit, percentileOptions);
    if (options.compareGroups && !a.empty() && !b.empty()) {
        const Comparison cmp = compareCategories(c, a, b, compareOptions);
        out.compare = {cmp.categoriesTested, cmp.mutations()};
    }
    if (options.buckets < 1) return out;

    // The types named once, most requests first (then by name), and each request's by its index.
    std::map<std::string_view, std::int64_t> counts;
    for (const auto& t : types) ++counts[t];
    std::vector<std::pair<std::string_view, std::int64_t>> ranked(counts.begin(), counts.end());
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    std::unordered_map<std::string_view, std::uint32_t> index;
    for (const auto& [name, count] : ranked) {
        index.emplace(name, static_cast<std::uint32_t>(out.types.size()));
        out.types.emplace_back(name);
    }
    std::vector<std::uint32_t> typeIndex(types.size());
    for (std::size_t i = 0; i < types.size(); ++i) typeIndex[i] = index.at(types[i]);
    out.buckets = percentilesOverTime(c.latencyNs, startNs.empty() ? std::span<const TimeNs>(c.startNs) : startNs, inB, unit, typeIndex,
                                      out.types.size(), options.buckets, percentileOptions);
    return out;
}

PeriodsOverTime periodsOverTime(const PeriodComparison& pc, std::span<const std::string> types, int buckets, std::uint64_t seed,
                                int resamples, std::span<const std::string> users) {
    PeriodsOverTime out;
    if (!pc.categories) return out;
    const RequestCategories& c = *pc.categories;
    AaStudyOptions options;
    options.seed = seed;
    options.resamples = resamples;
    options.buckets = buckets;
    options.compareGroups = false;  // the comparison itself is beside it
    std::vector<std::uint8_t> halves(c.rows.size(), 2), versus(c.rows.size(), 2);
    std::vector<std::uint32_t> unit;  // by user: each baseline entry's user (the interval re-deals users)
    if (users.size() == c.rows.size()) {
        std::vector<std::string> keys;
        keys.reserve(pc.baselineEntries.size());
        for (auto e : pc.baselineEntries) keys.push_back(users[e]);
        const UserSplit split = splitByUser(keys, seed);
        unit.assign(c.rows.size(), 0);
        for (std::size_t k = 0; k < pc.baselineEntries.size(); ++k) {
            halves[pc.baselineEntries[k]] = split.inB[k];
            unit[pc.baselineEntries[k]] = split.unit[k];
        }
    } else {
        const std::vector<std::uint8_t> split = randomHalves(pc.baselineEntries.size(), seed);
        for (std::size_t k = 0; k < pc.baselineEntries.size(); ++k) halves[pc.baselineEntries[k]] = split[k];
    }
    for (auto e : pc.baselineEntries) versus[e] = 0;
    for (auto e : pc.problemEntries) versus[e] = 1;
    // Each period's first and last start; periods apart in time are aligned at their first requests.
    auto range = [&](const std::vector<std::uint32_t>& entries) {
        std::pair<TimeNs, TimeNs> r{std::numeric_limits<TimeNs>::max(), std::numeric_limits<TimeNs>::min()};
        for (auto e : entries) r = {std::min(r.first, c.startNs[e]), std::max(r.second, c.startNs[e])};
        return r;
    };
    const auto base = range(pc.baselineEntries), problem = range(pc.problemEntries);
    std::vector<TimeNs> starts;
    if (!pc.baselineEntries.empty() && !pc.problemEntries.empty() && (problem.first > base.second || base.first > problem.second)) {
        out.aligned = true;
        starts = c.startNs;
        for (auto e : pc.baselineEntries) starts[e] -= base.first;
        for (auto e : pc.problemEntries) starts[e] -= problem.first;
    }
    out.aa = aaStudy(c, halves, unit, types, options, {}, starts);
    out.versus = aaStudy(c, versus, {}, types, options, {}, starts);
    return out;
}

} // namespace tracelight
