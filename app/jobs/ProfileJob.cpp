#include <algorithm>
#include <iterator>

#include "LaneServing.h"
#include "TabJobs.h"
#include "profile/ProfileView.h"
#include "tracelight/base/RandomSplit.h"
#include "tracelight/profile/ProfileSelection.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/Periods.h"

namespace tracelight::app {

std::shared_ptr<const widgets::ProfileOutcome> computeProfile(const widgets::ProfileRequest& request, const widgets::StoreSource& source,
                                                              const CancelToken& cancel, const ProgressSink& progress) {
    using Source = widgets::ProfileRequest::Source;
    auto out = std::make_shared<widgets::ProfileOutcome>();
    auto store = openReader(source);
    if (!store || !request.analysis) {
        out->status = store ? Status::error("nothing is analysed") : store.status();
        return out;
    }
    const InMemoryAnalysis& analysis = *request.analysis;
    const auto& ids = analysis.data.requestIds;
    std::vector<std::uint32_t> matching;  // the where filter's rows (sorted), applied to every group
    if (!request.where.empty()) {
        auto found = requestsWhere(*store.value(), request.where);
        if (!found) {
            out->status = Status::error("Where: " + found.message());
            return out;
        }
        matching = rowsOfRequests(ids, found.value());
    }
    auto filtered = [&](std::vector<std::uint32_t> rows) {
        if (request.where.empty()) return rows;
        std::vector<std::uint32_t> both;
        std::set_intersection(rows.begin(), rows.end(), matching.begin(), matching.end(), std::back_inserter(both));
        return both;
    };
    // As the paper profiles: without the requests an operator asked to trace, a random sample of the rest.
    const std::vector<std::uint8_t> optIn = optInRows(*store.value(), ids, defaultOptInMarkers());
    auto withoutOptIn = [&](std::vector<std::uint32_t> rows) {
        std::erase_if(rows, [&](std::uint32_t r) { return r < optIn.size() && optIn[r] != 0; });
        return rows;
    };
    auto rowsOf = [&](const std::string& p) { return withoutOptIn(filtered(periodRows(*store.value(), ids, p))); };
    std::vector<std::uint32_t> target;
    if (request.source == Source::Outliers) target = request.aggregates ? withoutOptIn(filtered(outlierRows(*request.aggregates))) : target;
    else if (request.source == Source::Selection) target = filtered(rowsOfRequests(ids, request.selection));  // chosen by hand: kept
    else if (request.scope) target = withoutOptIn(filtered(rowsOfRequests(ids, *request.scope)));
    else target = rowsOf(request.period);
    std::vector<std::vector<std::uint32_t>> groups;
    std::vector<std::int64_t> selected;  // per group, the requests it was drawn from
    if (!request.base.empty()) {
        // One pass: base, target and two random halves of the base (the noise floor).
        auto baseRows = rowsOf(request.base);
        selected = {static_cast<std::int64_t>(baseRows.size()), static_cast<std::int64_t>(target.size())};
        baseRows = sampleRows(std::move(baseRows), kDefaultProfileSample, 1);
        target = sampleRows(std::move(target), kDefaultProfileSample, 2);
        auto [x, y] = splitAtRandom(baseRows, 1);
        groups = {std::move(baseRows), std::move(target)};
        if (!x.empty() && !y.empty()) {
            groups.push_back(std::move(x));
            groups.push_back(std::move(y));
        }
    } else {
        selected = {static_cast<std::int64_t>(target.size())};
        groups = {sampleRows(std::move(target), kDefaultProfileSample, 1)};
    }
    ProfileOptions options;
    options.rules = loadCategoryRules(*store.value());
    auto paths = loadCachedCriticalPaths(*store.value(), analysis.data);  // what analyze cached
    if (paths) options.paths = &paths.value();
    auto set = buildProfiles(analysis, store.value().get(), groups, options, &progress, &cancel);
    if (!set) {
        out->status = set.status();
        return out;
    }
    for (std::size_t g = 0; g < selected.size() && g < set->groups.size(); ++g) set->groups[g].selected = selected[g];
    auto shared = std::make_shared<const ProfileSet>(std::move(set.value()));
    if (!request.base.empty() && groups.size() >= 2) {
        auto suspects = findSuspects(analysis, *store.value(), groups[0], groups[1], SuspectOptions{}, nullptr, &cancel);
        if (suspects) out->suspects = std::move(suspects.value());
    }
    if (!request.base.empty()) {
        out->diff = std::make_shared<const ProfileDiff>(diffProfiles(*shared, 0, 1));
        if (shared->groups.size() == 4) out->aaFrames = diffProfiles(*shared, 2, 3).significantFrames;
    }
    out->profile = std::move(shared);
    return out;
}

void serve(widgets::ProfileView& view, Session& session) {
    serveLane(view, session, Session::Job::Profile, &widgets::ProfileView::computeRequested, &widgets::ProfileView::showOutcome, &computeProfile);
    QObject::connect(&session.job(Session::Job::Profile), &widgets::JobRunner::progress, &view, &widgets::ProfileView::showProgress);
}

} // namespace tracelight::app
