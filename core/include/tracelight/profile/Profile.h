#pragma once
// Critical-path profiles (Google's critical path tracing, CACM 2023): the critical paths of a set of
// requests merged by identical stack and divided by the number of requests — the average critical path —
// and the diff of two such profiles, each frame's change tested against its noise.
//
// Stacks: span data — the span ancestry, `service:operation` › child `service:operation` › …, with a
// call's hop (trip out and back) as one frame `caller → callee` (`frontend → currencyservice`) under the caller;
// event logs — category › task › segment (START->END). Blind time (the critical path's gaps that no
// segment covers) is its own frame `blind`, under the span that was waiting across the gap (the deepest
// span enclosing both critical segments beside it); for event logs at the top. Span data's work that the
// caller did not wait for is not on the path: it is the top-level frame `[async]`, by the span that began it
// (its time is beside the latency, not part of it).
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Progress.h"
#include "tracelight/base/RandomSplit.h"
#include "tracelight/base/Status.h"
#include "tracelight/studies/Categories.h"

namespace tracelight {

class TraceStore;

enum class FrameKind : std::uint8_t { Span, Segment, Network, Blind, Category, Task, Async };
const char* frameKindName(FrameKind kind);  // "span", "segment", "network", "blind", "category", "task", "async"

struct ProfileFrameInfo {
    std::int32_t parent = -1;  // frames come parents first
    std::string name;
    FrameKind kind = FrameKind::Segment;
    std::vector<std::string> services;  // a span's service; both ends of a network trip; none for blind
};

// Per-request critical time of a frame, over the requests of one group. Log2 histogram of the frame's
// total critical time in the requests where it was critical: bin b holds [2^b, 2^(b+1)) microseconds,
// bin 0 everything under 2 µs.
constexpr int kProfileHistogramBins = 24;
// The requests in which a frame held the most critical time, to open them in the waterfall.
constexpr std::size_t kProfileSlowestKept = 3;
struct FrameRequest {
    TimeNs totalNs = 0;
    std::uint32_t row = 0;  // analysis row (InMemoryAnalysis::data.requestIds[row] is the request)
};
struct FrameStats {
    double totalSum = 0, totalSumSq = 0;  // ns, ns²: total = self + its children's
    double selfSum = 0;
    std::int64_t criticalRequests = 0;    // requests in which it had critical time
    std::array<std::int32_t, kProfileHistogramBins> histogram{};
    std::array<FrameRequest, kProfileSlowestKept> slowest{};  // by totalNs, largest first; totalNs 0: none
    void keepIfSlow(FrameRequest r);
};

struct ProfileGroup {
    std::int64_t requests = 0;
    std::int64_t selected = 0;  // the requests it was drawn from at random (0: it is all of them)
    double latencySumNs = 0;
    std::vector<FrameStats> frames;  // by frame id
};

// Profiles of several groups of requests over one frame table (a diff and its A/A split come from one
// pass). Means are per request of the group: a frame absent from a request counts 0 there.
struct ProfileSet {
    std::vector<ProfileFrameInfo> frames;
    std::vector<ProfileGroup> groups;
    std::int64_t truncatedStacks = 0;  // stacks cut at kMaxProfileDepth
    std::int64_t cachedPaths = 0;      // requests whose cached critical path was read (ProfileOptions::paths)
    std::int64_t mergedFrames = 0;     // frames past kMaxProfileFrames, merged into their parent's "[other]"

    double meanLatencyNs(std::size_t g) const;
    // The top-level "[async]" frame (work nobody waited for), or -1 when no request had any.
    std::int32_t asyncFrame() const;
    double meanTotalNs(std::size_t g, std::size_t f) const;
    double meanSelfNs(std::size_t g, std::size_t f) const;
    double varianceTotalNs2(std::size_t g, std::size_t f) const;  // per-request sample variance
    double ci95TotalNs(std::size_t g, std::size_t f) const;  // half-width, central limit theorem
    double onPathShare(std::size_t g, std::size_t f) const;  // share of the group's requests where it was critical
    std::string path(std::size_t f) const;                  // "a;b;c" (a ';' in a name becomes ',')
};

// Stacks deeper than this keep their first kMaxProfileDepth - 1 frames and end in "[deeper]"; more distinct
// frames than kMaxProfileFrames merge, past the cut, into an "[other]" frame under their parent.
constexpr std::size_t kMaxProfileDepth = 1000;
constexpr std::size_t kMaxProfileFrames = 200000;

struct ProfileOptions {
    CategoryRules rules = CategoryRules::defaults();  // event logs' top level
    unsigned threads = 0;
    // The critical paths analyze cached (loadCachedCriticalPaths), read instead of running the per-request
    // pass again; a request without one takes the pass. Null: every request takes the pass.
    const CachedCriticalPaths* paths = nullptr;
};

// groups[g]: the analysis rows of group g (a row may be in several groups, at most 8 in all).
// store: for span data's span tree (one streaming scan); may be null for event logs only.
// Empty selection: an error naming it. Cancelled: "cancelled".
Result<ProfileSet> buildProfiles(const InMemoryAnalysis& analysis, const TraceStore* store,
                                 const std::vector<std::vector<std::uint32_t>>& groups, const ProfileOptions& options = {},
                                 const ProgressSink* progress = nullptr, const CancelToken* cancel = nullptr);

// ---- diff ------------------------------------------------------------------------------------------

struct FrameChange {
    std::uint32_t frame = 0;
    double baseTotalNs = 0, targetTotalNs = 0, baseSelfNs = 0, targetSelfNs = 0;
    double pValue = 1;   // Welch (normal approximation) on the per-request total critical time
    bool significant = false;  // Benjamini-Hochberg across frames at alpha
    // The frame's relative slowdown: (target self + floor) / (base self + floor), the floor a thousandth of the base's
    // mean latency (0.1 %) so that a frame of almost no time cannot lead on a tiny absolute change.
    double selfRatio = 1;
    double deltaTotalNs() const { return targetTotalNs - baseTotalNs; }
    double deltaSelfNs() const { return targetSelfNs - baseSelfNs; }
};
struct ProfileDiff {
    // Significant first, each part by relative slowdown of self time (selfRatio), then by its increase. A
    // fault multiplies the time of the service it hits; what it drags along grows by less than its own
    // size (Online Boutique's shipping CPU contention: GetQuote's self time 20x, productcatalog's 2x).
    std::vector<FrameChange> frames;
    std::int64_t significantFrames = 0;
};
// Frames of group `target` against group `base` of one ProfileSet.
ProfileDiff diffProfiles(const ProfileSet& set, std::size_t base, std::size_t target, double alpha = 0.05);

// The A/A diff's groups: the base split by splitAtRandom (base/RandomSplit.h).

// ---- export ----------------------------------------------------------------------------------------

// The profile JSON (docs/reference/json.md): {"requests", "selected", "total_us", "frames": [{"id", "parent", "name", "kind", "services",
// "total_us", "self_us", "critical_share", "ci95_us", "on_path_share", "histogram"}]}.
std::string profileJson(const ProfileSet& set, std::size_t group);
// pprof's gzipped profile.proto: one sample per frame with self time (its stack leaf first), value the mean
// critical nanoseconds per request; a function per distinct frame name. Opens in `pprof`.
Result<std::string> profilePprof(const ProfileSet& set, std::size_t group);
// The diff's JSON: {"base": {"period", "requests"}, "target": {...}, "expected_false_positives", "frames": [...]}.
std::string profileDiffJson(const ProfileSet& set, std::size_t base, std::size_t target, const ProfileDiff& diff,
                            std::string_view baseName, std::string_view targetName, double expectedFalsePositives);
// Brendan Gregg's collapsed stacks: "a;b;c N", N the frame's mean self critical time per request in integer
// nanoseconds (frames with none left out).
std::string profileFolded(const ProfileSet& set, std::size_t group);
// speedscope's file format (a sampled profile whose samples are the stacks and weights their mean self
// time in nanoseconds).
std::string profileSpeedscope(const ProfileSet& set, std::size_t group, std::string_view name);

} // namespace tracelight
