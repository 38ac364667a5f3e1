// The naming filter: the Mystery Machine removes test and debug log points, which follow a naming convention,
// with one regular expression. Kept in the database beside the rules, applied by the store's event scans so that
// every reader (the analysis, the views, the command line) sees the same requests.
#include <regex>
#include <unordered_set>

#include "tracelight/store/ResultCache.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

namespace {
constexpr const char* kStoredFilter = "naming_filter";  // a result row, as the bottleneck rules are
} // namespace

struct TraceStore::NamingFilterState {
    std::vector<bool> hiddenLabel;            // by label id
    std::unordered_set<std::int64_t> spans;   // requests imported from spans: never filtered
};

std::string TraceStore::namingFilter() const { return latestResult(*this, kStoredFilter, 0).value_or(std::string()); }

Status TraceStore::checkNamingFilter(std::string_view regex) {
    try {
        std::regex compiled{std::string(regex), std::regex::ECMAScript};
    } catch (const std::regex_error& e) {
        return Status::error("naming filter '" + std::string(regex) + "' is not a regular expression: " + e.what());
    }
    return Status::ok();
}

Status TraceStore::setNamingFilter(std::string_view regex) {
    if (Status s = checkNamingFilter(regex); !s) return s;
    m_namingFilter.reset();
    return putResult(*this, kStoredFilter, 0, "", regex);
}

const TraceStore::NamingFilterState* TraceStore::namingFilterState() const {
    if (m_namingFilter) return m_namingFilter->hiddenLabel.empty() ? nullptr : m_namingFilter.get();
    auto state = std::make_shared<NamingFilterState>();
    const std::string filter = namingFilter();
    if (!filter.empty() && checkNamingFilter(filter)) {
        const std::regex pattern(filter, std::regex::ECMAScript | std::regex::optimize);
        // The names (a few thousand at most) matched once each; an occurrence "E#2" is hidden when E is.
        for (const auto& [id, text] : labelNames())
            if (std::regex_search(text, pattern)) {
                if (id >= state->hiddenLabel.size()) state->hiddenLabel.resize(std::size_t(id) + 1, false);
                state->hiddenLabel[id] = true;
            }
        if (!state->hiddenLabel.empty()) {
            for (const LabelOccurrence& o : labelOccurrences())
                if (o.name < state->hiddenLabel.size() && state->hiddenLabel[o.name]) {
                    if (o.id >= state->hiddenLabel.size()) state->hiddenLabel.resize(std::size_t(o.id) + 1, false);
                    state->hiddenLabel[o.id] = true;
                }
            for (auto id : spanRequestIds(*this)) state->spans.insert(id);
        }
    }
    m_namingFilter = std::move(state);
    return m_namingFilter->hiddenLabel.empty() ? nullptr : m_namingFilter.get();
}

bool TraceStore::hidden(const NamingFilterState* state, const EventRow& row) {
    if (!state) return false;
    const auto& h = state->hiddenLabel;
    const bool named = (row.task < h.size() && h[row.task]) || (row.event < h.size() && h[row.event]);
    return named && !state->spans.count(row.request);
}

} // namespace tracelight
