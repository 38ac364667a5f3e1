#include <algorithm>

#include "LaneServing.h"
#include "TabJobs.h"
#include "bottleneck/BurstView.h"

namespace tracelight::app {

using widgets::StoreSource;

std::shared_ptr<const widgets::BurstWindowsOutcome> findBurstWindows(const widgets::BurstWindowsRequest& request, const StoreSource& source,
                                                                     const CancelToken& cancel, const ProgressSink&) {
    auto out = std::make_shared<widgets::BurstWindowsOutcome>();
    if (!request.analysis) {
        out->windows = std::make_shared<const BurstWindows>();
        return out;
    }
    // As tracelight-cli bursts finds them (findBursts): the host activity read in one pass, not kept, cancellable.
    auto store = openReader(source);
    if (!store) {
        const std::vector<TimeNs> starts = requestStartsNs(*request.analysis);
        out->requests = static_cast<std::int64_t>(starts.size());
        out->windows = std::make_shared<const BurstWindows>(burstWindows(starts, request.mask));
        out->activityError = store.message();
        return out;
    }
    auto found = findBursts(*request.analysis, *store.value(), request.mask, &cancel);
    if (!found) {  // cancelled: nothing is shown of it
        out->windows = std::make_shared<const BurstWindows>();
        return out;
    }
    out->requests = found->requests;
    out->windows = std::make_shared<const BurstWindows>(std::move(found->windows));
    out->activityError = std::move(found->activityError);
    if (found->withActivity && out->activityError.empty())
        out->activity = std::make_shared<const std::vector<BurstActivity>>(std::move(found->activity));
    return out;
}

std::shared_ptr<widgets::BurstTimelinesOutcome> drawBurstTimelines(const widgets::BurstTimelinesRequest& request, const StoreSource&,
                                                                   const CancelToken& cancel, const ProgressSink&) {
    auto out = std::make_shared<widgets::BurstTimelinesOutcome>();
    out->request = request;
    if (!request.analysis) return out;
    out->timelines = requestTimelines(*request.analysis, request.rows, &cancel, request.localClocks);
    std::stable_sort(out->timelines.begin(), out->timelines.end(),
                     [](const RequestTimeline& a, const RequestTimeline& b) { return a.startNs < b.startNs; });
    return out;
}

void serve(widgets::BurstView& view, Session& session) {
    using View = widgets::BurstView;
    serveLane(view, session, Session::Job::Bursts, &View::windowsRequested, &View::showWindows, &findBurstWindows);
    serveLane(view, session, Session::Job::BurstTimelines, &View::timelinesRequested, &View::showTimelines, &drawBurstTimelines);
}

} // namespace tracelight::app
