#pragma once
// One comparison of two named periods, for the CLI and the app alike: the periods checked (unknown, empty,
// the same, too small to test), their requests categorised once, then compared and A/A-split; a change of
// threshold, alpha or Benjamini-Hochberg re-ranks the same categories without categorising again.
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tracelight/compare/Compare.h"
#include "tracelight/compare/Suspects.h"
#include "tracelight/compare/RegressionTree.h"

namespace tracelight {

class TraceStore;

struct PeriodComparison {
    std::string baseline, problem;
    std::shared_ptr<const RequestCategories> categories;
    std::vector<RequestId> requestIds;              // per entry of categories->rows
    std::vector<std::uint32_t> baselineEntries, problemEntries;  // indices into categories->rows
    CompareOptions options;
    Comparison comparison;
    AaResult aa;
    // Span data: the services most likely responsible (compare/Suspects.h); empty for event logs or when
    // nothing changed beyond chance.
    std::vector<Suspect> suspects;
    // Span data: each category's request type, as the request list names a request (RequestTable::operation):
    // the type most of its requests have, with their usual span and host counts ("GetCart · 12 spans on 4
    // hosts"); by category id
    // (ComparedCategory::id - 1). Empty for event logs, whose type is ComparedCategory::root.
    std::vector<std::string> requestTypes;
};

// Fails with one line naming the database and the problem.
Result<PeriodComparison> comparePeriods(const TraceStore& store, const InMemoryAnalysis& analysis, std::string_view baseline,
                                        std::string_view problem, const CompareOptions& options,
                                        const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr);
// The same categories compared again with other options (threshold, alpha, BH, 1:N, A/A seed).
PeriodComparison recompare(const PeriodComparison& previous, const CompareOptions& options);

// A C4.5 tree over the attributes stored at import — the request's, and each event's as "EVENT.key"
// (Spectroscope's low-level parameters: span tags under their operation, trace-point parameters under
// their event) — separating the entry's problem-period requests from its compared precursor's baseline
// requests (structural; CompareEntry::comparedPrecursor) or its own baseline requests (response time). A class with more than
// kTreeRowsPerClass requests is sampled down to that many (a fixed seed: the same tree every time).
constexpr std::size_t kTreeRowsPerClass = 5000;
std::vector<std::uint32_t> sampleTreeRows(const std::vector<std::uint32_t>& entries, std::uint64_t seed);
RegressionTree explainEntry(const TraceStore& store, const PeriodComparison& pc, const CompareEntry& entry,
                            const std::set<std::string>& dropped);

const char* compareKindName(CompareEntry::Kind kind);  // "structural", "response_time"
// A category's request type: PeriodComparison::requestTypes for span data, else ComparedCategory::root.
const std::string& requestTypeOf(const PeriodComparison& pc, const ComparedCategory& cc);

} // namespace tracelight
