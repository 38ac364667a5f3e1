#pragma once
// What the Profile tab asks of the session, and the whole result it draws: the tab says whose critical paths
// to profile and against which period; the session computes it on a worker (app/ProfileJob).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Status.h"
#include "tracelight/compare/Suspects.h"
#include "tracelight/profile/Profile.h"
#include "tracelight/profile/ProfileAaTable.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::widgets {

struct ProfileRequest {
    enum class Source { Period, Outliers, Selection };
    std::shared_ptr<const InMemoryAnalysis> analysis;
    Source source = Source::Period;
    std::string period;                                   // "" = every request, or the scope when there is one
    std::shared_ptr<const std::vector<RequestId>> scope;  // the request table's, for the first choice
    std::shared_ptr<const RequestAggregates> aggregates;  // the outliers' source
    std::vector<RequestId> selection;
    std::string where;  // an attribute filter on top of any source
    std::string base;   // "" = no diff; else the period diffed against
};

struct ProfileOutcome {
    Status status = Status::ok();
    std::shared_ptr<const ProfileSet> profile;
    std::shared_ptr<const ProfileDiff> diff;  // base group 0 against target group 1
    std::int64_t aaFrames = 0;                // what the same diff flags between two halves of the base
    std::vector<Suspect> suspects;            // of a diff: who made the target slower
};

// The A/A table beside a diff (critical path tracing, Table 3): how many frames two random profiles of the base
// period move past each threshold by chance, per sample size; asked for once the diff is shown.
struct ProfileAaOutcome {
    Status status = Status::ok();
    std::vector<AaTableCell> cells;  // sizes outer, thresholds inner
    std::int64_t baseRequests = 0;   // what the pairs were drawn from
    int repeats = 0;
};

} // namespace tracelight::widgets
