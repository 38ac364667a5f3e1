#pragma once
// Spectroscope's comparison of a non-problem (baseline) and a problem period: requests grouped into
// categories of identical structure, response-time mutations (Kolmogorov-Smirnov per category, then per
// critical-path edge), structural mutations (count threshold) with their precursors (same root, 1:N,
// edit distance), ranked by contribution to the change in mean latency; and an A/A split of the baseline
// that shows how many "mutations" chance alone produces at this sample size.
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/RequestDag.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/Status.h"

namespace tracelight {

// ---- categories ------------------------------------------------------------------------------------

// A request's structure as a 64-bit hash of its canonical form: every segment is its type's name with its
// successors in the request's (transitively reduced) graph; successors, and the graph's roots, in a fixed
// order, so concurrent work done in another interleaving hashes the same. names: per segment type.
std::uint64_t structureHash(const RequestDag& dag, std::span<const std::uint64_t> typeNameHash);
// The canonical string of the same walk: "label(child,child)" depth first, siblings ordered by label and
// then by their own structure; a segment reached a second time (a join) is written "^label".
std::string canonicalString(const RequestDag& dag, std::span<const std::string> typeNames,
                            std::span<const std::uint64_t> typeNameHash);

// The graph a category is made of: the request's graph without the orders it merely happened to take
// (mutual exclusion and pipeline FIFO edges: another interleaving of the same work takes another order).
// A dependency that transitive reduction had hidden behind such an edge is restored when the model
// confirms it (a happens-before relation between the two types), then the graph is reduced again.
RequestDag structureGraph(const RequestDag& dag, const CausalModel& model);

struct CategoryInfo {
    std::string canonical;  // of its first request
    // "task:EVENT" of the start events along its entry's own thread of control (up to 16): from its (first) root,
    // through each segment's only successor, and past a fork through the successor on the same task (the order
    // of concurrent work is an interleaving, the entry's next step is not). Behind a generic entry (every request
    // of a service enters through one span) the first calls it makes name the request's type.
    std::vector<std::string> lead;
};

// What the comparison needs of each request of the chosen rows, from the one per-request pass: its
// category, latency and critical path (segment type, duration). Linear in the rows' critical paths.
struct RequestCategories {
    std::vector<std::uint32_t> rows;        // request rows of the analysis, as given
    std::vector<std::uint64_t> category;    // per entry of rows
    std::vector<TimeNs> latencyNs;
    std::vector<TimeNs> startNs;            // skew-corrected start (the timelines' x)
    std::vector<TimeNs> localStartNs;       // the same start on the hosts' recorded clocks (View › Local Clocks)
    std::vector<std::uint64_t> pathBegin;   // critical path of entry i: [pathBegin[i], pathBegin[i+1])
    std::vector<std::uint32_t> pathType;
    std::vector<TimeNs> pathNs;
    std::unordered_map<std::uint64_t, CategoryInfo> info;
    std::vector<std::string> typeNames;     // "task:START->END" per segment type
    std::vector<std::string> typeStart, typeEnd;  // "task:START", "task:END"
};
Result<RequestCategories> categorizeRequests(const InMemoryAnalysis& analysis, std::vector<std::uint32_t> rows,
                                             unsigned threads = 0, const ProgressSink* progress = nullptr,
                                             const CancelToken* cancel = nullptr);

// The request type of each category (the paper's root node, READ or WRITE): its first start event that not
// every one of the categories given shares. A prefix common to all requests (a client's call, a gateway)
// says nothing of the type. A null or a category without start events: "".
std::vector<std::string> requestTypes(std::span<const CategoryInfo* const> infos);

// ---- comparison ------------------------------------------------------------------------------------

struct CompareOptions {
    double threshold = 10;     // SM_THRESHOLD: requests a category must gain (lose) to be a mutation (precursor)
    static constexpr double kPaperThreshold = 50;  // the paper's SM_THRESHOLD
    double alpha = 0.05;
    // All the tests (the categories' KS tests of response time and of each edge, their count tests) are one
    // family corrected for multiplicity: Holm (the chance of any false entry at most alpha) or, with this,
    // Benjamini-Hochberg (the expected share of false entries among those found at most alpha).
    bool benjaminiHochberg = false;
    // The paper's own statistics: a category marked by its response-time KS test at alpha uncorrected (its edges
    // tested at alpha only to find the red ones), and a structural mutation (precursor) any category that gained
    // (lost) at least the threshold, without the count test. More found, and more by chance: the A/A says how
    // many (docs/concepts/comparison.md).
    bool paperStatistics = false;
    std::int64_t minSample = 10;     // per period, for a KS test
    bool oneToN = true;              // a precursor must have lost at least what its mutation gained (up to chance)
    std::uint64_t aaSeed = 1;
    bool aa = true;
};

struct PrecursorRef {
    std::uint32_t category;  // index into Comparison::categories
    std::int64_t editDistance;
};
struct ChangedEdge {
    std::uint32_t type;  // segment type
    double baselineMeanNs = 0, problemMeanNs = 0, pValue = 1;
    double baselineVarianceNs2 = 0, problemVarianceNs2 = 0;
};
struct CompareEntry {
    enum class Kind { Structural, ResponseTime };
    Kind kind = Kind::ResponseTime;
    std::uint32_t category = 0;  // index into Comparison::categories
    // Adjusted: the smallest of its KS tests (response time, edges; with the paper's statistics its response time's);
    // the count test for a structural entry.
    double pValue = 1;
    double rawPValue = 1;
    double contributionNs = 0;   // to the change in mean latency of the problem period
    std::vector<PrecursorRef> precursors;
    std::vector<ChangedEdge> changedEdges;
    // The candidate precursor a structural entry is compared with (side by side, diff, swim lanes, regression
    // tree): an index into precursors, the closest unless the user chose another (choosePrecursor).
    std::size_t chosenPrecursor = 0;
    const PrecursorRef* comparedPrecursor() const {
        return chosenPrecursor < precursors.size() ? &precursors[chosenPrecursor] : nullptr;
    }
};

struct CategoryStats {
    std::int64_t count = 0;
    double meanNs = 0, varianceNs2 = 0;
    double c2() const { return meanNs > 0 ? varianceNs2 / (meanNs * meanNs) : 0; }  // squared coefficient of variation
};
// The latency of one edge (a critical-path segment type) in a category and period: count is the requests that had
// it on their critical path, the mean and (sample) variance are of its time there per request.
struct EdgeStats {
    std::uint32_t type = 0;  // segment type
    CategoryStats stats;
};

struct ComparedCategory {
    std::uint64_t hash = 0;
    std::uint32_t id = 0;  // 1-based, by total count (then canonical string): stable for the same data
    const CategoryInfo* info = nullptr;
    std::string root;  // the request's type: its first start event not shared by every category compared
    CategoryStats baseline, problem;
    double countPValue = 1;  // exact binomial test of its problem count given both periods' sizes (unadjusted)
    std::vector<std::uint32_t> baselineEntries, problemEntries;  // indices into RequestCategories::rows
};

// Spectroscope's sixth case study rules out a change in variance that leaves the means alone: the two periods'
// distributions of intra-category variance (of response time, over the categories with at least the KS test's
// sample in that period) compared by the two-sample KS test. Untested when a period has no such category.
struct VarianceComparison {
    std::int64_t baselineCategories = 0, problemCategories = 0;
    bool tested = false;
    double d = 0, pValue = 1;  // the KS distance and its p-value
};

struct Comparison {
    std::int64_t baselineRequests = 0, problemRequests = 0;
    VarianceComparison variance;
    std::vector<ComparedCategory> categories;
    std::vector<CompareEntry> entries;  // ranked by contribution, largest first
    std::int64_t categoriesTested = 0;  // KS-tested (enough requests in both periods)
    // Wall time of compareCategories' stages (the benchmark's split): grouping the requests by category, their
    // statistics and every test (KS on responses and edges, the count tests); structural entries' precursors
    // (same root, 1:N, edit distance) and contributions; the final ranking by contribution.
    struct Timings {
        std::int64_t testsNs = 0, precursorsNs = 0, rankingNs = 0;
    } timings;
    std::int64_t mutations() const { return static_cast<std::int64_t>(entries.size()); }
};

// Mean and variance of each edge's latency over the given requests (indices into c.rows: one category's requests
// of one period), by segment type; Spectroscope's "average edge latencies and corresponding variances".
std::vector<EdgeStats> edgeStatistics(const RequestCategories& c, std::span<const std::uint32_t> entries);

// The same for one category in both periods, by segment type (an edge absent from a period has count 0 there).
struct CategoryEdgeStats {
    std::uint32_t type = 0;
    CategoryStats baseline, problem;
};
std::vector<CategoryEdgeStats> categoryEdgeStatistics(const RequestCategories& c, const ComparedCategory& category);

// Makes the candidate precursor of category categoryId (ComparedCategory::id) the one entry is compared with.
// Fails, naming the candidates, when that category is not one of them.
Status choosePrecursor(const Comparison& comparison, CompareEntry& entry, std::uint32_t categoryId);

// baseline, problem: indices into c.rows.
Comparison compareCategories(const RequestCategories& c, std::span<const std::uint32_t> baseline,
                             std::span<const std::uint32_t> problem, const CompareOptions& options);

// The baseline split at random (seeded) into two halves, compared with the same options.
struct AaResult {
    std::int64_t categoriesTested = 0, mutations = 0;
};
AaResult aaSplit(const RequestCategories& c, std::span<const std::uint32_t> baseline, const CompareOptions& options);

std::int64_t editDistance(std::string_view a, std::string_view b);

} // namespace tracelight
