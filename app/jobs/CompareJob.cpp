#include "LaneServing.h"
#include "TabJobs.h"
#include "compare/CompareWorkspace.h"
#include "tracelight/compare/AaStudy.h"
#include "tracelight/compare/FlowGraph.h"
#include "tracelight/store/Periods.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::app {

using widgets::StoreSource;

widgets::CompareOutcome computeComparison(const widgets::CompareRequest& request, const StoreSource& source, const CancelToken& cancel,
                                          const ProgressSink& progress) {
    using Out = Result<PeriodComparison>;
    if (request.previous) return std::make_shared<const Out>(recompare(*request.previous, request.options));
    auto store = openReader(source);
    if (!store) return std::make_shared<const Out>(store.status());
    if (!request.analysis) return std::make_shared<const Out>(Status::error("nothing is analysed"));
    return std::make_shared<const Out>(
        comparePeriods(*store.value(), *request.analysis, request.baseline, request.problem, request.options, &progress, &cancel));
}

widgets::EntryGraphsOutcome layOutEntryGraphs(const widgets::EntryGraphsRequest& request, const StoreSource&, const CancelToken& cancel,
                                              const ProgressSink&) {
    using Out = Result<std::shared_ptr<const widgets::FlowGraphView::Drawing>>;
    if (!request.analysis || !request.comparison) return std::make_shared<const Out>(Status::error("nothing is compared"));
    auto pair = entryFlowGraphs(*request.analysis, *request.comparison, request.entry, 2000, &cancel);
    if (!pair) return std::make_shared<const Out>(pair.status());
    return std::make_shared<const Out>(widgets::FlowGraphView::layOut(std::move(pair.value()), request.charWidth, request.lineHeight));
}

widgets::SwimLanesOutcome loadSwimLanes(const widgets::SwimLanesRequest& request, const StoreSource& source, const CancelToken& cancel,
                                        const ProgressSink&) {
    using Lanes = widgets::SwimLanes;
    auto store = openReader(source);
    if (!store) return std::make_shared<const Result<Lanes>>(store.status());
    Lanes out;
    for (auto [id, slot, train] : {std::tuple{request.first, &out.first, &out.firstTrain}, std::tuple{request.second, &out.second, &out.secondTrain}}) {
        if (!id.isValid()) continue;
        auto detail = loadRequestDetail(*store.value(), id, &cancel);
        if (!detail) return std::make_shared<const Result<Lanes>>(detail.status());
        *train = trainSchedule(detail.value());
        *slot = std::make_shared<const RequestDetail>(std::move(detail.value()));
    }
    return std::make_shared<const Result<Lanes>>(std::move(out));
}

widgets::EntryTreeOutcome growEntryTree(const widgets::EntryTreeRequest& request, const StoreSource& source, const CancelToken&,
                                        const ProgressSink&) {
    if (!request.comparison) return std::make_shared<const Result<RegressionTree>>(Status::error("nothing is compared"));
    auto store = openReader(source);
    if (!store) return std::make_shared<const Result<RegressionTree>>(store.status());
    return std::make_shared<const Result<RegressionTree>>(explainEntry(*store.value(), *request.comparison, request.entry, request.dropped));
}

widgets::OverTimeOutcome computeOverTime(const widgets::OverTimeRequest& request, const StoreSource& source, const CancelToken&,
                                         const ProgressSink&) {
    using Out = Result<std::shared_ptr<const PeriodsOverTime>>;
    if (!request.comparison || !request.comparison->categories) return std::make_shared<const Out>(Status::error("nothing is compared"));
    auto store = openReader(source);
    if (!store) return std::make_shared<const Out>(store.status());
    const PeriodComparison& pc = *request.comparison;
    const std::vector<std::string> types = requestTypeOfEach(*store.value(), *pc.categories, pc.requestIds);
    std::vector<std::string> users;  // per entry: the user the split attribute names
    if (!request.splitBy.empty()) {
        if (Status known = requireAttribute(*store.value(), request.splitBy); !known) return std::make_shared<const Out>(known);
        users = attributeValues(*store.value(), pc.requestIds, request.splitBy);
    }
    // 400 re-splits per interval, as the Aggregates tab's A/A: the view's intervals in a second or two.
    return std::make_shared<const Out>(
        std::make_shared<const PeriodsOverTime>(periodsOverTime(pc, types, request.buckets, pc.options.aaSeed, 400, users)));
}

void serve(widgets::CompareWorkspace& view, Session& session) {
    using View = widgets::CompareWorkspace;
    serveLane(view, session, Session::Job::Compare, &View::compareRequested, &View::showComparison, &computeComparison);
    serveLane(view, session, Session::Job::CompareGraphs, &View::graphsRequested, &View::showGraphs, &layOutEntryGraphs);
    serveLane(view, session, Session::Job::CompareLanes, &View::swimLanesRequested, &View::showSwimLanes, &loadSwimLanes);
    serveLane(view, session, Session::Job::CompareTree, &View::treeRequested, &View::showTree, &growEntryTree);
    serveLane(view, session, Session::Job::CompareOverTime, &View::overTimeRequested, &View::showOverTime, &computeOverTime);
    QObject::connect(&session.job(Session::Job::Compare), &widgets::JobRunner::progress, &view, &View::showProgress);
}

} // namespace tracelight::app
