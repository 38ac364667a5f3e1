#include "tracelight/compare/PeriodComparison.h"

#include "tracelight/compare/FlowGraph.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "tracelight/store/RequestReads.h"
#include "tracelight/store/RequestTable.h"

#include "tracelight/analysis/TraceData.h"
#include "tracelight/base/RandomSplit.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight {

namespace {
bool parseNumber(const std::string& s, double& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(out);
}
} // namespace

const char* compareKindName(CompareEntry::Kind k) { return k == CompareEntry::Kind::Structural ? "structural" : "response_time"; }

namespace {

// Each category's request type (by id): its requests' most common operation in the request list, with the
// most common span and host counts: a short summary of the shape that tells two categories of one type apart.
std::vector<std::string> requestTypesOf(const PeriodComparison& pc, const RequestTable& table) {
    std::unordered_map<std::uint32_t, std::uint32_t> rowOf;  // request id -> table row
    for (std::uint32_t i = 0; i < table.size(); ++i) rowOf[table.ids[i].value] = i;
    std::vector<std::string> out(pc.comparison.categories.size());
    for (const ComparedCategory& cc : pc.comparison.categories) {
        std::map<std::uint32_t, std::uint32_t> operations, spans, hosts;
        for (const auto* entries : {&cc.baselineEntries, &cc.problemEntries})
            for (auto entry : *entries) {
                const auto row = rowOf.find(pc.requestIds[entry].value);
                if (row == rowOf.end() || table.operation[row->second] == RequestTable::kNoLabel) continue;
                ++operations[table.operation[row->second]];
                ++spans[table.spanCount[row->second]];
                ++hosts[table.hostCount[row->second]];
            }
        if (operations.empty() || cc.id == 0 || cc.id > out.size()) continue;
        auto most = [](const std::map<std::uint32_t, std::uint32_t>& counts) {
            return std::max_element(counts.begin(), counts.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
        };
        out[cc.id - 1] = table.spanLabels[most(operations)] + " · " + std::to_string(most(spans)) + " spans on " +
                         std::to_string(most(hosts)) + " hosts";
    }
    return out;
}

} // namespace

Result<PeriodComparison> comparePeriods(const TraceStore& store, const InMemoryAnalysis& analysis, std::string_view baselineName,
                                        std::string_view problemName, const CompareOptions& options, const ProgressSink* progress,
                                        const CancelToken* cancel) {
    const std::string db = store.path();
    if (baselineName == problemName)
        return Status::error(db + ": the baseline and the problem are the same period '" + std::string(baselineName) + "'; compare two periods");
    for (std::string_view period : {baselineName, problemName}) {
        auto requests = periodSize(store, period);
        if (!requests) return requests.status();
        if (requests.value() == 0) return Status::error(db + ": period '" + std::string(period) + "' holds no requests");
        if (requests.value() < options.minSample)
            return Status::error(db + ": period '" + std::string(period) + "' holds " + std::to_string(requests.value()) +
                                 " requests, too few to test (at least " + std::to_string(options.minSample) + ")");
    }
    const auto& ids = analysis.data.requestIds;
    const auto base = periodRows(store, ids, baselineName);
    const auto prob = periodRows(store, ids, problemName);
    if (base.empty() || prob.empty())
        return Status::error(db + ": period '" + std::string(base.empty() ? baselineName : problemName) + "' has no analysed requests");
    std::vector<std::uint32_t> rows(base);
    rows.insert(rows.end(), prob.begin(), prob.end());
    auto categories = categorizeRequests(analysis, rows, 0, progress, cancel);
    if (!categories) return Status::error(categories.message() == "cancelled" ? categories.message() : db + ": " + categories.message());
    PeriodComparison pc;
    pc.baseline = std::string(baselineName);
    pc.problem = std::string(problemName);
    pc.baselineEntries.resize(base.size());
    pc.problemEntries.resize(prob.size());
    for (std::uint32_t i = 0; i < base.size(); ++i) pc.baselineEntries[i] = i;
    for (std::uint32_t i = 0; i < prob.size(); ++i) pc.problemEntries[i] = static_cast<std::uint32_t>(base.size() + i);
    auto shared = std::make_shared<const RequestCategories>(std::move(categories.value()));
    pc.requestIds.reserve(shared->rows.size());
    for (auto r : shared->rows) pc.requestIds.push_back(ids[r]);
    pc.categories = std::move(shared);
    auto suspects = findSuspects(analysis, store, base, prob, SuspectOptions{}, progress, cancel);
    if (!suspects) return Status::error(suspects.message() == "cancelled" ? suspects.message() : db + ": " + suspects.message());
    pc.suspects = std::move(suspects.value());
    PeriodComparison out = recompare(pc, options);
    if (auto table = loadRequestTable(store, cancel); table && table->hasSpans) out.requestTypes = requestTypesOf(out, table.value());
    return out;
}

const std::string& requestTypeOf(const PeriodComparison& pc, const ComparedCategory& cc) {
    if (cc.id >= 1 && cc.id <= pc.requestTypes.size() && !pc.requestTypes[cc.id - 1].empty()) return pc.requestTypes[cc.id - 1];
    return cc.root;
}

PeriodComparison recompare(const PeriodComparison& previous, const CompareOptions& options) {
    PeriodComparison pc;
    pc.baseline = previous.baseline;
    pc.problem = previous.problem;
    pc.categories = previous.categories;
    pc.requestIds = previous.requestIds;
    pc.baselineEntries = previous.baselineEntries;
    pc.problemEntries = previous.problemEntries;
    pc.suspects = previous.suspects;
    pc.requestTypes = previous.requestTypes;  // categories are ided by their counts, the same in every re-ranking
    pc.options = options;
    pc.comparison = compareCategories(*pc.categories, pc.baselineEntries, pc.problemEntries, options);
    pc.aa = aaSplit(*pc.categories, pc.baselineEntries, options);
    return pc;
}

std::vector<std::uint32_t> sampleTreeRows(const std::vector<std::uint32_t>& entries, std::uint64_t seed) {
    if (entries.size() <= kTreeRowsPerClass) return entries;
    auto [sample, rest] = splitAtRandom(entries, seed);
    std::vector<std::uint32_t> shuffled = std::move(sample);
    shuffled.insert(shuffled.end(), rest.begin(), rest.end());
    shuffled.resize(kTreeRowsPerClass);
    std::sort(shuffled.begin(), shuffled.end());
    return shuffled;
}

RegressionTree explainEntry(const TraceStore& store, const PeriodComparison& pc, const CompareEntry& e,
                            const std::set<std::string>& drop) {
    const auto [positives, negatives] = entrySides(pc, e);
    std::vector<std::pair<std::map<std::string, std::string>, bool>> raw;
    std::map<std::string, bool> numeric;  // name -> all values numeric
    auto add = [&](const std::vector<std::uint32_t>& entries, bool positive, std::uint64_t seed) {
        for (auto entry : sampleTreeRows(entries, seed)) {
            std::map<std::string, std::string> values;
            auto put = [&](std::string key, std::string value) {
                double d;
                auto [it, fresh] = numeric.emplace(key, true);
                if (!parseNumber(value, d)) it->second = false;
                values.emplace(std::move(key), std::move(value));  // the first of a name in the request wins
            };
            for (auto& [k, v] : requestAttributes(store, pc.requestIds[entry])) put(k, v);
            // Spectroscope's low-level parameters: each event's attributes, named by the event (its operation
            // for spans, whatever the occurrence) and the key.
            for (auto& a : eventAttributes(store, pc.requestIds[entry]))
                put(std::string(operationName(a.event)) + "." + a.key, std::move(a.value));
            raw.push_back({std::move(values), positive});
        }
    };
    add(positives.entries, true, 1);
    add(negatives.entries, false, 2);
    std::vector<TreeAttribute> attrs;
    for (auto& [name, isNumber] : numeric)
        attrs.push_back({name, isNumber ? TreeAttributeKind::Numeric : TreeAttributeKind::Categorical});
    std::vector<TreeRow> rows;
    rows.reserve(raw.size());
    for (auto& [values, positive] : raw) {
        TreeRow row;
        row.positive = positive;
        for (const auto& a : attrs) {
            auto it = values.find(a.name);
            if (it == values.end()) row.values.push_back(TreeValue::none());
            else if (a.kind == TreeAttributeKind::Numeric) row.values.push_back(TreeValue::numeric(std::strtod(it->second.c_str(), nullptr)));
            else row.values.push_back(TreeValue::category(it->second));
        }
        rows.push_back(std::move(row));
    }
    TreeOptions opt;
    opt.dropped = drop;
    opt.classNames[0] = negatives.precursor ? "precursor" : "baseline";
    opt.classNames[1] = "problem";
    return buildRegressionTree(attrs, rows, opt);
}

} // namespace tracelight
