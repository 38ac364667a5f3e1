#include <algorithm>
#include <iterator>

#include "LaneServing.h"
#include "TabJobs.h"
#include "profile/ProfileView.h"
#include "tracelight/base/RandomSplit.h"
#include "tracelight/profile/ProfileAaTable.h"
#include "tracelight/profile/ProfileSelection.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/Periods.h"

namespace tracelight::app {

namespace {

// The rows a profile request names, as the paper profiles them: its source (less the requests an operator asked
// to trace) and, for a diff, its base period's; the where filter on both. Empty status: the filter is wrong.
struct ProfileRows {
    Status status = Status::ok();
    std::vector<std::uint32_t> target, base;
};

ProfileRows selectProfileRows(const widgets::ProfileRequest& request, const TraceStore& store, const InMemoryAnalysis& analysis) {
    using Source = widgets::ProfileRequest::Source;
    ProfileRows out;
    const auto& ids = analysis.data.requestIds;
    std::vector<std::uint32_t> matching;  // the where filter's rows (sorted), applied to every group
    if (!request.where.empty()) {
        auto found = requestsWhere(store, request.where);
        if (!found) {
            out.status = Status::error("Where: " + found.message());
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
    const std::vector<std::uint8_t> optIn = optInRows(store, ids, defaultOptInMarkers());
    auto withoutOptIn = [&](std::vector<std::uint32_t> rows) {
        std::erase_if(rows, [&](std::uint32_t r) { return r < optIn.size() && optIn[r] != 0; });
        return rows;
    };
    auto rowsOf = [&](const std::string& p) { return withoutOptIn(filtered(periodRows(store, ids, p))); };
    if (request.source == Source::Outliers) out.target = request.aggregates ? withoutOptIn(filtered(outlierRows(*request.aggregates))) : out.target;
    else if (request.source == Source::Selection) out.target = filtered(rowsOfRequests(ids, request.selection));  // chosen by hand: kept
    else if (request.scope) out.target = withoutOptIn(filtered(rowsOfRequests(ids, *request.scope)));
    else out.target = rowsOf(request.period);
    if (!request.base.empty()) out.base = rowsOf(request.base);
    return out;
}

} // namespace

std::shared_ptr<const widgets::ProfileOutcome> computeProfile(const widgets::ProfileRequest& request, const widgets::StoreSource& source,
                                                              const CancelToken& cancel, const ProgressSink& progress) {
    auto out = std::make_shared<widgets::ProfileOutcome>();
    auto store = openReader(source);
    if (!store || !request.analysis) {
        out->status = store ? Status::error("nothing is analysed") : store.status();
        return out;
    }
    const InMemoryAnalysis& analysis = *request.analysis;
    ProfileRows rows = selectProfileRows(request, *store.value(), analysis);
    if (!rows.status) {
        out->status = rows.status;
        return out;
    }
    std::vector<std::uint32_t> target = std::move(rows.target);
    std::vector<std::vector<std::uint32_t>> groups;
    std::vector<std::int64_t> selected;  // per group, the requests it was drawn from
    if (!request.base.empty()) {
        // One pass: base, target and two random halves of the base (the noise floor).
        auto baseRows = std::move(rows.base);
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

// The diff's A/A table: pairs of random profiles of the base period at the paper's sample sizes that fit.
std::shared_ptr<const widgets::ProfileAaOutcome> computeProfileAaTable(const widgets::ProfileRequest& request,
                                                                       const widgets::StoreSource& source, const CancelToken& cancel,
                                                                       const ProgressSink& progress) {
    auto out = std::make_shared<widgets::ProfileAaOutcome>();
    auto store = openReader(source);
    if (!store || !request.analysis) {
        out->status = store ? Status::error("nothing is analysed") : store.status();
        return out;
    }
    ProfileRows rows = selectProfileRows(request, *store.value(), *request.analysis);
    if (!rows.status) {
        out->status = rows.status;
        return out;
    }
    AaTableOptions table;
    table.sizes = defaultAaSizes(rows.base.size());
    table.thresholdsNs = defaultAaThresholdsNs();  // as profile --aa-table
    out->repeats = table.repeats;
    out->baseRequests = static_cast<std::int64_t>(rows.base.size());
    if (table.sizes.empty()) {
        out->status = Status::error("the base period has too few requests to draw two profiles from");
        return out;
    }
    ProfileOptions options;
    options.rules = loadCategoryRules(*store.value());
    auto paths = loadCachedCriticalPaths(*store.value(), request.analysis->data);
    if (paths) options.paths = &paths.value();
    auto cells = aaFalsePositiveTable(*request.analysis, store.value().get(), rows.base, table, options, &progress, &cancel);
    if (!cells) out->status = cells.status();
    else out->cells = std::move(cells.value());
    return out;
}

void serve(widgets::ProfileView& view, Session& session) {
    serveLane(view, session, Session::Job::Profile, &widgets::ProfileView::computeRequested, &widgets::ProfileView::showOutcome, &computeProfile);
    serveLane(view, session, Session::Job::ProfileAaTable, &widgets::ProfileView::aaTableRequested, &widgets::ProfileView::showAaTable,
              &computeProfileAaTable);
    QObject::connect(&session.job(Session::Job::Profile), &widgets::JobRunner::progress, &view, &widgets::ProfileView::showProgress);
}

} // namespace tracelight::app
