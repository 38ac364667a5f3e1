#include <algorithm>

#include "LaneServing.h"
#include "TabJobs.h"
#include "aggregates/AggregatesView.h"

namespace tracelight::app {

using widgets::StoreSource;

std::shared_ptr<widgets::BreakdownOutcome> computeBreakdown(const widgets::BreakdownRequest& request, const StoreSource&,
                                                            const CancelToken&, const ProgressSink&) {
    auto result = std::make_shared<widgets::BreakdownOutcome>();
    result->stratifyBy = request.stratifyBy;
    if (!request.aggregates) return result;
    const RequestAggregates& data = *request.aggregates;
    const auto values = request.stratifyBy.isEmpty() || !request.attributes ? nullptr : request.attributes->get(request.stratifyBy);
    result->study = breakdownStudy(data, values.get(), request.quantiles);
    // Each category's CDF, sorted here on the worker (coloured as its bars once they are drawn).
    for (auto& [name, cdf] : result->study.shareCdfs)
        result->shares.push_back(widgets::makeCdfSeries(QString::fromStdString(name), std::move(cdf), 100.0));
    // The A/A beside the strata (NSDI'18): two random groups as small as the smallest stratum.
    std::int64_t smallest = static_cast<std::int64_t>(data.requests());
    for (const auto& [value, b] : result->study.groups)
        if (b.requests >= 2) smallest = std::min(smallest, b.requests);
    result->aaGroupSize = result->study.groups.size() > 1 ? smallest : smallest / 2;
    result->aa = aaPercentilesAtSize(data.latencyNs, static_cast<std::size_t>(smallest), {1, 400});
    return result;
}

std::shared_ptr<const Outliers> computeOutliers(const widgets::OutlierRequest& request, const StoreSource&, const CancelToken&,
                                                const ProgressSink&) {
    if (!request.aggregates) return std::make_shared<const Outliers>();
    return std::make_shared<const Outliers>(outliers(*request.aggregates, request.fraction));
}

std::shared_ptr<widgets::SlackOutcome> computeSlackStudies(const widgets::SlackRequest& request, const StoreSource&, const CancelToken&,
                                                           const ProgressSink&) {
    auto result = std::make_shared<widgets::SlackOutcome>();
    result->request = request;
    if (!request.aggregates) return result;
    const RequestAggregates& data = *request.aggregates;
    const auto rows = request.withinKey.isEmpty() || !request.attributes
                          ? std::vector<std::uint32_t>{}
                          : rowsWithValue(*request.attributes->get(request.withinKey), request.withinValue);
    const auto users = request.userKey.isEmpty() || !request.attributes ? nullptr : request.attributes->get(request.userKey);
    result->study = slackStudy(data, request.category, request.cutoffNs, rows, users.get(), request.buckets);
    if (!request.fromCutOff)
        result->cdf = widgets::makeDurationCdfSeries(QObject::tr("%1 slack").arg(request.categoryName), result->study.slackNs);
    if (result->study.slackNs.empty() || result->study.slackNs.back() == 0)
        for (const std::size_t other : categoriesWithSlack(data))
            if (data.categories[other] != "unused") result->withSlack.push_back(QString::fromStdString(data.categories[other]));
    return result;
}

std::shared_ptr<const std::vector<std::string>> attributeValuesByFrequency(const widgets::AttributeValuesRequest& request,
                                                                           const StoreSource&, const CancelToken&, const ProgressSink&) {
    if (!request.attributes) return std::make_shared<const std::vector<std::string>>();
    return std::make_shared<const std::vector<std::string>>(valuesByFrequency(*request.attributes->get(request.key), 200));
}

int chooseSlackCategory(const widgets::SlackCategoryRequest& request, const StoreSource&, const CancelToken&, const ProgressSink&) {
    return request.aggregates ? static_cast<int>(slackStudyCategory(*request.aggregates)) : 0;
}

void serve(widgets::AggregatesView& view, Session& session) {
    using View = widgets::AggregatesView;
    serveLane(view, session, Session::Job::Breakdown, &View::breakdownRequested, &View::showBreakdown, &computeBreakdown);
    serveLane(view, session, Session::Job::Outliers, &View::outliersRequested, &View::showOutliers, &computeOutliers);
    serveLane(view, session, Session::Job::SlackStudies, &View::slackRequested, &View::showSlack, &computeSlackStudies);
    serveLane(view, session, Session::Job::AttributeValues, &View::attributeValuesRequested, &View::showAttributeValues,
              &attributeValuesByFrequency);
    serveLane(view, session, Session::Job::SlackCategory, &View::slackCategoryRequested, &View::startOnCategory, &chooseSlackCategory);
}

} // namespace tracelight::app
