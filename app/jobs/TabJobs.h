#pragma once
// The analysis tabs' work as the session's jobs (hotspot's job tracker, heaptrack's parser that emits models):
// a tab says what it wants (a request signal), the session computes it on a worker in the tab's lane, and the
// tab receives the whole result to draw. The compute functions are plain calls into core, so tests and the
// command line reach the same results.
#include "Session.h"
#include "bottleneck/BottleneckRequest.h"
#include "compare/CompareRequests.h"
#include "profile/ProfileRequest.h"

namespace tracelight::widgets {
class BottlenecksView;
class CompareWorkspace;
class ProfileView;
} // namespace tracelight::widgets

namespace tracelight::app {

// The Profile tab: the profile (and diff, and suspects) of the requests it names.
std::shared_ptr<const widgets::ProfileOutcome> computeProfile(const widgets::ProfileRequest& request, const widgets::StoreSource& source,
                                                              const CancelToken& cancel, const ProgressSink& progress);

// The Bottlenecks tab: the bottleneck trend (and a slice's strata) of the requests it names.
std::shared_ptr<const widgets::BottleneckOutcome> computeBottlenecks(const widgets::BottleneckRequest& request,
                                                                     const widgets::StoreSource& source, const CancelToken& cancel,
                                                                     const ProgressSink& progress);

// The Compare tab: the comparison of two periods (or the last one re-ranked), and the entry shown's flow graphs
// laid out, its representative requests' swim lanes and its regression tree.
widgets::CompareOutcome computeComparison(const widgets::CompareRequest& request, const widgets::StoreSource& source,
                                          const CancelToken& cancel, const ProgressSink& progress);
widgets::EntryGraphsOutcome layOutEntryGraphs(const widgets::EntryGraphsRequest& request, const widgets::StoreSource& source,
                                              const CancelToken& cancel, const ProgressSink& progress);
widgets::SwimLanesOutcome loadSwimLanes(const widgets::SwimLanesRequest& request, const widgets::StoreSource& source,
                                        const CancelToken& cancel, const ProgressSink& progress);
widgets::EntryTreeOutcome growEntryTree(const widgets::EntryTreeRequest& request, const widgets::StoreSource& source,
                                        const CancelToken& cancel, const ProgressSink& progress);

// Connects a tab to the session: its requests run in its lane, their progress and results go back to it.
void serve(widgets::ProfileView& view, Session& session);
void serve(widgets::BottlenecksView& view, Session& session);
void serve(widgets::CompareWorkspace& view, Session& session);

} // namespace tracelight::app
