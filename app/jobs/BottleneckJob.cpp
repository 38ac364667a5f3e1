#include "LaneServing.h"
#include "TabJobs.h"
#include "bottleneck/BottlenecksView.h"
#include "tracelight/store/TraceStore.h"
#include "common/TimeFormat.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/studies/LatencySlice.h"

namespace tracelight::app {

std::shared_ptr<const widgets::BottleneckOutcome> computeBottlenecks(const widgets::BottleneckRequest& request,
                                                                     const widgets::StoreSource& source, const CancelToken& cancel,
                                                                     const ProgressSink& progress) {
    auto out = std::make_shared<widgets::BottleneckOutcome>();
    auto store = openReader(source);
    if (!store || !request.analysis) {
        out->status = store ? Status::error("nothing is analysed") : store.status();
        return out;
    }
    const InMemoryAnalysis& analysis = *request.analysis;
    const auto& ids = analysis.data.requestIds;
    const std::string& by = request.sliceBy;
    const std::string& value = request.stratum;
    std::vector<std::uint32_t> rows = request.scope ? rowsOfRequests(ids, *request.scope) : periodRows(*store.value(), ids, request.period);
    // A latency slice of the requests, before they are sliced by an attribute (the strata are of the slice).
    if (!request.latencyPercentile.empty()) {
        auto range = parsePercentileRange(request.latencyPercentile);
        if (!range) {
            out->status = Status::error("Latency percentiles: " + range.message());
            return out;
        }
        if (!range->isAll()) {
            const LatencySliceResult slice = sliceByLatency(analysis, rows, range.value());
            out->sliceText = QObject::tr("latency percentiles %1: %L2 of %L3 requests, %4 to %5")
                                 .arg(QString::fromStdString(range->text()))
                                 .arg(slice.rows.size())
                                 .arg(slice.scopeRequests)
                                 .arg(widgets::formatDurationNs(slice.minLatencyNs), widgets::formatDurationNs(slice.maxLatencyNs));
            if (slice.rows.empty() && !rows.empty()) {
                out->emptyReason = QObject::tr("Latency percentiles %1 hold none of the %L2 requests of %3: widen the range.")
                                       .arg(QString::fromStdString(range->text()))
                                       .arg(rows.size())
                                       .arg(request.periodName);
                return out;
            }
            rows = slice.rows;
        }
    }
    QString stratumName;
    std::vector<std::vector<std::uint32_t>> strataRows;  // the slice shown whole: each stratum side by side
    if (!by.empty()) {
        for (auto& g : groupByAttribute(attributeValues(*store.value(), ids, by), ids.size(), 4, rows)) {
            const QString v = QString::fromStdString(g.value);
            out->strata << v;
            out->strataLabels << QObject::tr("%1 = %2 (%L3 requests)").arg(QString::fromStdString(by), v).arg(g.rows.size());
            if (value.empty()) strataRows.push_back(g.rows);
            if (g.value == value) rows = std::move(g.rows), stratumName = v;
        }
        if (!value.empty() && stratumName.isEmpty()) rows.clear();  // that value is gone from this period
    }
    if (rows.empty()) {
        out->emptyReason = value.empty() ? QObject::tr("%1 holds no analysed request.").arg(request.periodName)
                                         : QObject::tr("No analysed request of %1 has %2 = %3.")
                                               .arg(request.periodName, QString::fromStdString(by), QString::fromStdString(value));
        return out;
    }
    BottleneckOptions options;
    options.categories = loadCategoryRules(*store.value());
    options.rules = loadBottleneckRules(*store.value());
    auto trend = computeBottleneckTrend(analysis, store.value().get(), rows, options, &progress, &cancel);
    if (!trend) {
        out->status = trend.status();
        return out;
    }
    out->trend = std::make_shared<const BottleneckTrend>(std::move(trend.value()));
    if (!request.baseline.empty()) {  // before (the baseline period, cut to the same latency slice) and after (these)
        std::vector<std::uint32_t> before = periodRows(*store.value(), ids, request.baseline);
        if (!request.latencyPercentile.empty())
            if (auto range = parsePercentileRange(request.latencyPercentile); range && !range->isAll())
                before = sliceByLatency(analysis, before, range.value()).rows;
        if (before.empty()) {
            out->emptyReason = QObject::tr("Period %1 holds no analysed request to compare with.").arg(QString::fromStdString(request.baseline));
            return out;
        }
        auto comparison = compareBottlenecks(analysis, store.value().get(), before, rows, options, 0.05, 1, nullptr, &cancel);
        if (!comparison) {
            out->status = comparison.status();
            return out;
        }
        out->comparison = std::make_shared<const BottleneckComparison>(std::move(comparison.value()));
    }
    if (!strataRows.empty()) {
        auto strata = computeBottlenecks(analysis, store.value().get(), strataRows, options, nullptr, &cancel);
        if (!strata) {
            out->status = strata.status();
            return out;
        }
        for (std::size_t i = 0; i < strata->size(); ++i)
            out->strataShares.push_back({out->strata[static_cast<qsizetype>(i)], std::move(strata.value()[i])});
    }
    return out;
}

void serve(widgets::BottlenecksView& view, Session& session) {
    serveLane(view, session, Session::Job::Bottlenecks, &widgets::BottlenecksView::computeRequested, &widgets::BottlenecksView::showOutcome, &computeBottlenecks);
    QObject::connect(&session.job(Session::Job::Bottlenecks), &widgets::JobRunner::progress, &view, &widgets::BottlenecksView::showProgress);
}

} // namespace tracelight::app
