#pragma once
// One request tells a story; a million tell the truth. Per-request, per-category facts gathered in one
// sharded pass over every request's dependency graph, and the Mystery Machine's aggregate studies
// over them: breakdown (summed delay vs critical path), stratification, outliers, slack studies,
// and what-if re-scheduling.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/studies/Categories.h"

namespace tracelight {

class TraceStore;

// Per request (rows) and category (columns): time in segments of the category, time it contributed
// to the critical path, and its slack: that of its last-ending segment, i.e. how much later the
// category could finish its part (kNoSlack when absent). All times in integer nanoseconds.
struct RequestAggregates {
    static constexpr TimeNs kNoSlack = kNoTime;

    std::vector<std::string> categories;
    std::vector<int> typeCategory;       // segment type -> category index
    std::vector<RequestId> ids;
    std::vector<TimeNs> latencyNs, blindNs;
    std::vector<TimeNs> startNs;  // each request's first event, on adjusted clocks (epoch ns)
    std::vector<TimeNs> summedNs, criticalNs, slackNs;  // [request * categories + c]
    // From the category's first segment start to its last segment end: its part as one block (the
    // Mystery Machine's "server generation time"); 0 when absent.
    std::vector<TimeNs> spanNs;
    // The critical path of each request as (segment type, duration), for outlier rankings.
    std::vector<std::uint64_t> pathBegin;
    std::vector<std::uint32_t> pathType;
    std::vector<TimeNs> pathNs;
    std::size_t rowsFromCache = 0;  // rows made from analyze's cached result, not by the per-request pass
    // Each row's analysis row when these aggregates cover a subset of the requests (restrictAggregates);
    // empty: row r is analysis row r.
    std::vector<std::uint32_t> analysisRows;
    // The segment types with critical time, the most first (ties by type): what a what-if is worth trying
    // on. A million-span trace has a quarter of a million types, too many to offer.
    std::vector<std::uint32_t> typesByCriticalTime;

    std::size_t requests() const { return ids.size(); }
    std::size_t width() const { return categories.size(); }
    TimeNs summed(std::size_t r, std::size_t c) const { return summedNs[r * width() + c]; }
    TimeNs critical(std::size_t r, std::size_t c) const { return criticalNs[r * width() + c]; }
    TimeNs slack(std::size_t r, std::size_t c) const { return slackNs[r * width() + c]; }
    bool hasSlack(std::size_t r, std::size_t c) const { return slack(r, c) != kNoSlack; }
    TimeNs span(std::size_t r, std::size_t c) const { return spanNs[r * width() + c]; }
    int categoryIndex(std::string_view name) const;
};

// The aggregates of some of the rows (in the order given): the scope an analysis view covers. Every study
// over the result is the study of those requests; what-if re-schedules only them.
RequestAggregates restrictAggregates(const RequestAggregates& a, const std::vector<std::uint32_t>& rows);

// RequestAggregates::typesByCriticalTime of these paths: their critical time summed per type.
std::vector<std::uint32_t> typesByCriticalTime(const RequestAggregates& a);

// The category of every segment type by the rules, from the facts of its first instance: categories
// (names, in order of first use) and, per type, an index into them ("unused" for types no request has).
struct TypeCategories {
    std::vector<std::string> categories;
    std::vector<int> typeCategory;
};
TypeCategories categorizeSegmentTypes(const TraceData& data, const CategoryRules& rules);
// What category (and bottleneck) rules look at, per segment type: the facts of its first instance;
// seen[t] is false for a type no request has.
struct SegmentTypeFactsTable {
    std::vector<SegmentTypeFacts> facts;
    std::vector<bool> seen;
};
SegmentTypeFactsTable segmentTypeFacts(const TraceData& data);
// The category of each segment of one request (in RequestAnalysis::segments order) as the breakdown puts its
// segment type: categorizeSegmentTypes over the whole store, since a type's category comes from its first
// instance in any request.
Result<std::vector<std::string>> requestSegmentCategories(const TraceStore& store, std::string_view requestName,
                                                          const CategoryRules& rules);
// The same for request `row` of data in memory.
std::vector<std::string> requestSegmentCategories(const TraceData& data, std::size_t row, const CategoryRules& rules);

// A cancelled run returns the status "cancelled", never the rows it had filled so far. With `cache` (the
// store the analysis was loaded from), a request's cached result (analyze's slack and critical path) is
// used instead of building its graph again; a request without one, or with a stale one, takes the pass.
Result<RequestAggregates> computeAggregates(const InMemoryAnalysis& analysis, const CategoryRules& rules, unsigned threads = 0,
                                            const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr,
                                            const TraceStore* cache = nullptr);

// An analysed database in memory, with segment types numbered as the stored model numbers them.
Result<InMemoryAnalysis> loadAnalysis(const TraceStore& store, const ProgressSink* progress = nullptr,
                                      const CancelToken* cancel = nullptr);
// Category rules kept in the database (the defaults when none were saved).
CategoryRules loadCategoryRules(const TraceStore& store);
Status saveCategoryRules(TraceStore& store, const CategoryRules& rules);

// A request attribute per row (empty where absent), and the rows of one period (an empty name: every row).
// The key "period" (kPeriodKey) gives each request's periods instead, their names joined by ", " in the
// order the periods were made, so that any view or command that stratifies by an attribute can compare periods.
inline constexpr std::string_view kPeriodKey = "period";
std::vector<std::string> attributeValues(const TraceStore& store, const std::vector<RequestId>& ids, std::string_view key);
std::vector<std::uint32_t> periodRows(const TraceStore& store, const std::vector<RequestId>& ids, std::string_view period);
// The rows (indices into ids, the analysis order) whose request is among `wanted`, in row order.
std::vector<std::uint32_t> rowsOfRequests(const std::vector<RequestId>& ids, const std::vector<RequestId>& wanted);
// How many requests a period holds; an unknown name is the error "DB: no period 'P' (periods: a, b)".
Result<std::int64_t> periodSize(const TraceStore& store, std::string_view period);

// ---- studies -------------------------------------------------------------------------------------

// Means over requests are fractional nanoseconds (doubles); nsToUs converts them for output.
struct CategoryBreakdown {
    std::string name;
    double summedNs = 0;    // mean over requests
    double criticalNs = 0;  // mean over requests
    double criticalShare = 0;  // of the mean latency
};
struct Breakdown {
    std::int64_t requests = 0;
    double meanLatencyNs = 0;
    std::vector<CategoryBreakdown> categories;  // plus "blind", last, so critical times add up to the mean latency
};
// rows: the requests to include (empty: all).
Breakdown breakdown(const RequestAggregates& a, const std::vector<std::uint32_t>& rows = {});

// Span data has dozens of services: a stacked bar of each is unreadable. The `kept` categories with the most
// critical time over every group (each weighted by its requests) keep their entry, the most first; the rest
// are summed into one "other" entry, last. Every group gets the same entries in the same order.
inline constexpr std::string_view kOtherCategory = "other";
std::vector<std::pair<std::string, Breakdown>> foldSmallCategories(std::vector<std::pair<std::string, Breakdown>> groups,
                                                                   std::size_t kept);

// Request rows grouped by an attribute's value (the grouping `stratify` uses): a numeric attribute is cut
// into `quantiles` equal-population ranges ("01: [a, b)"), absent values are "(none)"; groups by name.
// rows: only these rows, with quantiles of their values; empty = every row below rowCount.
struct AttributeGroup {
    std::string value;
    std::vector<std::uint32_t> rows;
};
std::vector<AttributeGroup> groupByAttribute(const std::vector<std::string>& values, std::size_t rowCount, int quantiles = 4,
                                             const std::vector<std::uint32_t>& rows = {});

struct Stratum {
    std::string value;
    std::vector<std::uint32_t> rows;
    Breakdown breakdown;
};
// Groups requests by an attribute's value; a numeric attribute is cut into `quantiles` equal-population
// ranges ("[a, b)"). values: the attribute per request row (empty = absent, grouped as "(none)").
// rows: only these request rows (a period), with quantiles of their values; empty = every request.
std::vector<Stratum> stratify(const RequestAggregates& a, const std::vector<std::string>& values, int quantiles = 4,
                              const std::vector<std::uint32_t>& rows = {});

// Each request's share of its critical path spent in a category, sorted ascending (a CDF's x values).
std::vector<float> criticalShareCdf(const RequestAggregates& a, std::size_t category);

struct OutlierSegment {
    std::uint32_t type;
    double outlierShare = 0, restShare = 0, ratio = 0;  // share of critical-path time, in each set
};
// A category's slack in the outliers against the rest: the median over the requests where it has slack (its
// last segment could have ended that much later without delaying the request). Less slack in the outliers
// means the category came nearer to deciding their latency.
struct OutlierSlack {
    std::size_t category = 0;
    std::int64_t outlierRequests = 0, restRequests = 0;  // with slack in the category
    TimeNs outlierMedianNs = 0, restMedianNs = 0;
    double ratio = 1;  // outlier median / rest median (1 when both are 0; 1e9 when only the rest.s is)
};
struct Outliers {
    TimeNs thresholdNs = 0;
    std::int64_t outlierRequests = 0;
    std::vector<OutlierSegment> segments;  // most over-represented in the outliers first
    std::vector<OutlierSlack> slack;       // categories with slack in both sets; the most slack lost first
};
// The top `fraction` of requests by latency against the rest (types seen on fewer than minimumPaths
// critical paths are left out, and so are types with no critical time in either set: zero-length spans
// would be rows of "0 % against 0 %"); and, per category, their slack.
// rows: the requests to compare (empty: all).
Outliers outliers(const RequestAggregates& a, double fraction = 0.05, std::int64_t minimumPaths = 20,
                  const std::vector<std::uint32_t>& rows = {});
// The outliers themselves, as outliers() splits them: the rows whose latency is above the (1 - fraction)
// quantile of every row's.
std::vector<std::uint32_t> outlierRows(const RequestAggregates& a, double fraction = 0.05);

// Slack validation (Mystery Machine, case study 2): equal-population buckets of a category's slack, and
// in each the correlation of that category's time (its span, first start to last end) with
// end-to-end latency.
struct SlackBucket {
    TimeNs slackFromNs = 0, slackToNs = 0;
    std::int64_t requests = 0;
    double correlation = 0;  // Pearson, of the category's time with the latency
    double slope = 0;        // least-squares: latency per unit of category time
};
// rows: the requests to study (empty: all) — e.g. one connection type, so that a second, dominant
// source of latency variance does not mask the effect.
std::vector<SlackBucket> slackBuckets(const RequestAggregates& a, std::size_t category, int buckets = 5,
                                      const std::vector<std::uint32_t>& rows = {});

// Does a user's previous request predict this one's slack? "Slack" means at least cutoffNs. A user's requests
// are taken in the order they started (the Mystery Machine's previous request, by time).
struct SlackPrediction {
    std::int64_t pairs = 0;          // consecutive requests of one user
    std::int64_t truePositive = 0, falsePositive = 0, trueNegative = 0, falseNegative = 0;
    double typeOneRate() const { return falsePositive + trueNegative ? double(falsePositive) / double(falsePositive + trueNegative) : 0; }
    double typeTwoRate() const { return truePositive + falseNegative ? double(falseNegative) / double(truePositive + falseNegative) : 0; }
    double accuracy() const { return pairs ? double(truePositive + trueNegative) / double(pairs) : 0; }
    // Each pair's slack, the previous request's then this one's (kNoSlack where the category is absent): the
    // paper's scatter of consecutive slacks.
    std::vector<std::pair<TimeNs, TimeNs>> slackPairs;
};
// users: the user attribute per request row; each user's requests in start order (ties: row order).
SlackPrediction predictSlack(const RequestAggregates& a, std::size_t category, TimeNs cutoffNs, const std::vector<std::string>& users);

// What if every segment of a type (or category) took `factor` times as long (plus addNs)? Each request's
// graph is re-scheduled with the fixed waits held; returns the new end-to-end latencies, one per row of `a`.
struct WhatIfTarget {
    int type = -1;      // a segment type, or
    int category = -1;  // a category index
};
// Cancelled: the status "cancelled".
Result<std::vector<TimeNs>> whatIf(const InMemoryAnalysis& analysis, const RequestAggregates& a, WhatIfTarget target, double factor,
                           TimeNs addNs = 0, unsigned threads = 0, const CancelToken* cancel = nullptr);
// Several components changed at once: every segment of type t takes typeFactors[t] times as long (types past
// the end keep theirs).
Result<std::vector<TimeNs>> whatIf(const InMemoryAnalysis& analysis, const RequestAggregates& a, const std::vector<double>& typeFactors,
                                   unsigned threads = 0, const CancelToken* cancel = nullptr);

// The segment types a what-if key names, as the app's What-if offers them: "category C" or a category's name C (for
// span data a service, or a hop "caller → callee", which may be typed "caller -> callee"); a segment type
// "task:START->END"; or an operation, a task's name ("service:operation" for span data): its segments but the
// trips between hosts, which are the hop's. Unknown: an error listing the categories.
Result<std::vector<std::uint32_t>> whatIfKeyTypes(const InMemoryAnalysis& analysis, const RequestAggregates& a, std::string_view key);

// ---- what the aggregates view shows, one call per page (run off the GUI thread; the view only draws) ----

struct BreakdownStudy {
    std::vector<std::pair<std::string, Breakdown>> groups;              // "all requests", or one per stratum
    // criticalShareCdf of the (up to) 4 categories with the most critical time, the most first
    std::vector<std::pair<std::string, std::vector<float>>> shareCdfs;
};
// values: the stratifying attribute per request row (nullptr: every request in one group); a numeric one is cut
// into `quantiles` equal-population ranges.
BreakdownStudy breakdownStudy(const RequestAggregates& a, const std::vector<std::string>* values, int quantiles = 4);

struct SlackStudy {
    std::vector<TimeNs> slackNs;  // of every request where the category has slack, ascending (the CDF)
    TimeNs cutoffNs = 0;          // the cut-off used: the one given, else the median slack
    std::vector<SlackBucket> buckets;
    bool predicted = false;       // users were given
    SlackPrediction prediction;
};
// cutoffNs < 0: the median. rows: the requests of the bucket study (empty: all). users: nullptr for no prediction.
SlackStudy slackStudy(const RequestAggregates& a, std::size_t category, TimeNs cutoffNs, const std::vector<std::uint32_t>& rows,
                      const std::vector<std::string>* users, int buckets = 5);

// True when the category's time is the whole request (within 1 %) in at least 90 % of the requests it is in:
// the root service of span data. Its time against latency is the diagonal, and it has no slack.
bool spansWholeRequests(const RequestAggregates& a, std::size_t category);
// The category the slack views start on: of those in at least 5 % of the requests that do not span whole
// requests, the one whose slack varies most (ties: the most critical time); else the one with the most
// critical time. -1 when there is no category.
int slackStudyCategory(const RequestAggregates& a);
// The categories with slack in at least one request, in category order. Span data of synchronous calls often has
// none: every span's caller waits for it.
std::vector<std::size_t> categoriesWithSlack(const RequestAggregates& a);

// The rows whose value is `wanted`; the distinct non-empty values, most frequent first (ties by value), at most limit.
std::vector<std::uint32_t> rowsWithValue(const std::vector<std::string>& values, std::string_view wanted);
std::vector<std::string> valuesByFrequency(const std::vector<std::string>& values, std::size_t limit);

double quantile(std::vector<float> values, double q);  // q in [0, 1]
TimeNs quantile(std::vector<TimeNs> values, double q);

} // namespace tracelight
