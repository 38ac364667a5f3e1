#pragma once
// How a tab's request becomes a job in the session's lane: the tab's request signal starts the compute function
// on a worker (superseding the lane's last job), and its result goes to the tab's show slot if the tab is
// still there. One way for every tab, so a lane's cancel and supersede rules hold everywhere.
#include <QPointer>

#include "Session.h"
#include "common/JobRunner.h"

namespace tracelight::app {

// A job's connection of its own from the session's source; "no database is open" without one.
inline Result<std::unique_ptr<TraceStore>> openReader(const widgets::StoreSource& source) {
    if (!source) return Status::error("no database is open");
    return source();
}

template <typename View, typename Request, typename Outcome, typename Compute>
void serveLane(View& view, Session& session, Session::Job job, void (View::*asked)(const Request&), void (View::*show)(Outcome),
               Compute compute) {
    widgets::JobRunner& lane = session.job(job);
    QObject::connect(&view, asked, &view, [&lane, &session, compute, show, target = QPointer<View>(&view)](const Request& request) {
        lane.start<Outcome>([compute, request, source = session.reader()](const CancelToken& cancel,
                                                                          const ProgressSink& progress) { return compute(request, source, cancel, progress); },
                            [target, show](Outcome outcome) {
                                if (target) (target.data()->*show)(std::move(outcome));
                            });
    });
}

} // namespace tracelight::app
