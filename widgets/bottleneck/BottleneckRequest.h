#pragma once
// What the Bottlenecks tab asks of the session, and the whole result it draws: the tab names the requests
// (the scope or a period, sliced by an attribute or one of its values); the session computes their bottleneck
// trend on a worker (app/BottleneckJob).
#include <QString>
#include <QStringList>
#include <memory>
#include <string>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Status.h"
#include "tracelight/bottleneck/BottleneckComparison.h"
#include "tracelight/bottleneck/BottleneckTrend.h"

namespace tracelight::widgets {

// One stratum of a slice: its value and its types' shares.
struct StratumShares {
    QString value;
    BottleneckSummary summary;
};

struct BottleneckRequest {
    std::shared_ptr<const InMemoryAnalysis> analysis;
    std::string period;                                   // "" = every request, or the scope when there is one
    std::shared_ptr<const std::vector<RequestId>> scope;  // the request table's, for the first choice
    QString periodName;                                   // as the tab shows it, for "… holds no analysed request"
    std::string sliceBy;                                  // an attribute, or ""
    std::string stratum;                                  // one of its values, or "" for every stratum side by side
    std::string latencyPercentile;                        // "LO..HI": a latency slice of the requests first; "" = all
    std::string baseline;                                 // a period to compare the requests with (before/after); "" = none
};

struct BottleneckOutcome {
    Status status = Status::ok();
    std::shared_ptr<const BottleneckTrend> trend;
    QStringList strata;  // the slice-by attribute's values (with their request counts in strataLabels)
    QStringList strataLabels;
    QString emptyReason;                      // set when the selection holds no analysed request
    QString sliceText;                        // the latency slice, when one was asked: its range, requests, latencies
    std::shared_ptr<const BottleneckComparison> comparison;  // the requests against the baseline period, when asked
    std::vector<StratumShares> strataShares;  // every stratum's shares, when a slice is shown whole
};

} // namespace tracelight::widgets
