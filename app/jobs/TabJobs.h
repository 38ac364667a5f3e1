#pragma once
// The analysis tabs' work as the session's jobs (hotspot's job tracker, heaptrack's parser that emits models):
// a tab says what it wants (a request signal), the session computes it on a worker in the tab's lane, and the
// tab receives the whole result to draw. The compute functions are plain calls into core, so tests and the
// command line reach the same results.
#include "Session.h"
#include "aggregates/AggregateRequests.h"
#include "bottleneck/BottleneckRequest.h"
#include "bottleneck/BurstRequests.h"
#include "compare/CompareRequests.h"
#include "profile/ProfileRequest.h"

namespace tracelight::widgets {
class AggregatesView;
class BottlenecksView;
class BurstView;
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

// The Aggregates tab: the breakdown with its A/A, the outliers, a category's slack studies, the values of an
// attribute (most frequent first) and the category the slack views start on.
std::shared_ptr<widgets::BreakdownOutcome> computeBreakdown(const widgets::BreakdownRequest& request, const widgets::StoreSource& source,
                                                            const CancelToken& cancel, const ProgressSink& progress);
std::shared_ptr<const Outliers> computeOutliers(const widgets::OutlierRequest& request, const widgets::StoreSource& source,
                                                const CancelToken& cancel, const ProgressSink& progress);
std::shared_ptr<widgets::SlackOutcome> computeSlackStudies(const widgets::SlackRequest& request, const widgets::StoreSource& source,
                                                           const CancelToken& cancel, const ProgressSink& progress);
std::shared_ptr<const std::vector<std::string>> attributeValuesByFrequency(const widgets::AttributeValuesRequest& request,
                                                                           const widgets::StoreSource& source, const CancelToken& cancel,
                                                                           const ProgressSink& progress);
int chooseSlackCategory(const widgets::SlackCategoryRequest& request, const widgets::StoreSource& source, const CancelToken& cancel,
                        const ProgressSink& progress);

// The Bursts tab: the burst windows, and one window's requests as timelines.
std::shared_ptr<const widgets::BurstWindowsOutcome> findBurstWindows(const widgets::BurstWindowsRequest& request,
                                                                     const widgets::StoreSource& source, const CancelToken& cancel,
                                                                     const ProgressSink& progress);
std::shared_ptr<widgets::BurstTimelinesOutcome> drawBurstTimelines(const widgets::BurstTimelinesRequest& request,
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
void serve(widgets::AggregatesView& view, Session& session);
void serve(widgets::BottlenecksView& view, Session& session);
void serve(widgets::BurstView& view, Session& session);
void serve(widgets::CompareWorkspace& view, Session& session);

} // namespace tracelight::app
