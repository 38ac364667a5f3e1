#pragma once
// What the Aggregates tab asks of the session, and the whole results it draws: the breakdown (by an attribute,
// with its A/A), the outliers, the slack studies of a category and the values an attribute takes, each computed
// from the aggregates on a worker (app/AggregateJobs). Request attributes are read from the database once per
// key and kept for the aggregates they belong to (RequestAttributes).
#include <QString>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "plots/CdfPlot.h"
#include "tracelight/compare/AaPercentiles.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::widgets {

// A request attribute per aggregate row, read the first time a key is asked for (on a worker: `read` opens its
// own connection) and kept.
class RequestAttributes {
public:
    using Reader = std::function<std::vector<std::string>(const QString&)>;
    explicit RequestAttributes(Reader read = {}) : m_read(std::move(read)) {}
    bool canRead() const { return static_cast<bool>(m_read); }
    std::shared_ptr<const std::vector<std::string>> get(const QString& key) {
        std::lock_guard lock(m_mutex);
        auto it = m_values.find(key);
        if (it == m_values.end())
            it = m_values.emplace(key, std::make_shared<const std::vector<std::string>>(m_read ? m_read(key) : std::vector<std::string>{})).first;
        return it->second;
    }

private:
    Reader m_read;
    std::mutex m_mutex;
    std::map<QString, std::shared_ptr<const std::vector<std::string>>> m_values;
};

struct BreakdownRequest {
    std::shared_ptr<const RequestAggregates> aggregates;
    std::shared_ptr<RequestAttributes> attributes;
    QString stratifyBy;  // an attribute, or "" for every request together
    int quantiles = 4;   // a numeric one in this many equal-population strata
};
struct BreakdownOutcome {
    QString stratifyBy;
    BreakdownStudy study;
    std::vector<CdfSeries> shares;   // each category's share of the critical path, sorted for its CDF
    std::int64_t aaGroupSize = 0;    // requests per side of the A/A (the smallest group's)
    std::vector<AaPercentile> aa;    // two random groups of that size: what chance alone makes of them
};

struct OutlierRequest {
    std::shared_ptr<const RequestAggregates> aggregates;
    double fraction = 0.05;  // the slowest share of the requests
};

struct SlackRequest {
    std::shared_ptr<const RequestAggregates> aggregates;
    std::shared_ptr<RequestAttributes> attributes;
    std::size_t category = 0;
    QString categoryName;
    TimeNs cutoffNs = -1;      // a dragged cut-off; -1: the median
    bool fromCutOff = false;   // only the cut-off moved: the CDF stays
    QString withinKey;         // only the requests with withinValue of this attribute ("" = all)
    std::string withinValue;
    QString userKey;           // the attribute naming a request's user, for the prediction ("" = none)
    int buckets = 5;           // equal-population buckets of the slack
};
struct SlackOutcome {
    SlackRequest request;
    SlackStudy study;
    CdfSeries cdf;                   // unless only the cut-off moved
    std::vector<QString> withSlack;  // the categories that have slack, when this one has none
};

struct AttributeValuesRequest {
    std::shared_ptr<RequestAttributes> attributes;
    QString key;
};

struct SlackCategoryRequest {
    std::shared_ptr<const RequestAggregates> aggregates;
};

} // namespace tracelight::widgets
