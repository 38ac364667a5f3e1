#pragma once
// What the Compare tab asks of the session, and the whole results it draws: the comparison of two periods,
// and for the entry shown its flow graphs laid out, its two representative requests' swim lanes and its
// regression tree; both periods over time. The session computes each on a worker (app/CompareJob).
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "compare/FlowGraphView.h"
#include "tracelight/compare/TrainSchedule.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/compare/AaStudy.h"
#include "tracelight/compare/PeriodComparison.h"

namespace tracelight::widgets {

struct CompareRequest {
    std::shared_ptr<const InMemoryAnalysis> analysis;
    std::string baseline, problem;
    CompareOptions options;
    // The last comparison of the same two periods: only re-ranked with the new options (categorised once).
    std::shared_ptr<const PeriodComparison> previous;
};
using CompareOutcome = std::shared_ptr<const Result<PeriodComparison>>;

struct EntryGraphsRequest {
    std::shared_ptr<const InMemoryAnalysis> analysis;
    std::shared_ptr<const PeriodComparison> comparison;
    CompareEntry entry;
    double charWidth = 7, lineHeight = 14;  // the labels' font, for the layout
};
using EntryGraphsOutcome = std::shared_ptr<const Result<std::shared_ptr<const FlowGraphView::Drawing>>>;

struct SwimLanesRequest {
    RequestId first, second;  // either may be invalid: that side stays empty
};
// The two representatives in detail, and each one's train schedule zoomed out to components.
struct SwimLanes {
    std::shared_ptr<const RequestDetail> first, second;
    TrainSchedule firstTrain, secondTrain;
};
using SwimLanesOutcome = std::shared_ptr<const Result<SwimLanes>>;

struct EntryTreeRequest {
    std::shared_ptr<const PeriodComparison> comparison;
    CompareEntry entry;
    std::set<std::string> dropped;  // attributes left out
};
using EntryTreeOutcome = std::shared_ptr<const Result<RegressionTree>>;

// The two periods over time (compare/AaStudy.h): the baseline's A/A and the problem period against it, per bucket.
struct OverTimeRequest {
    std::shared_ptr<const PeriodComparison> comparison;
    int buckets = 12;
    std::string splitBy;  // the baseline's A/A by the users this attribute names ("": by request)
};
using OverTimeOutcome = std::shared_ptr<const Result<std::shared_ptr<const PeriodsOverTime>>>;

} // namespace tracelight::widgets
