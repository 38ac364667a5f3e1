#pragma once
// The requests the analysis views cover: those the request table lists (its period, filter and "show only
// selected"). The session in app/ makes it; the views draw their studies of it and say which it is.
#include <QString>
#include <memory>
#include <vector>

#include "tracelight/base/Ids.h"

class QComboBox;

namespace tracelight::widgets {

struct RequestScope {
    std::shared_ptr<const std::vector<RequestId>> ids;  // sorted; null: every request
    QString text;                                        // "period fault · 788 of 1,290 requests"
    bool isAll() const { return !ids; }
};

// A view's choice of requests starts with the scope: its first item is named after it ("All requests", or
// "Listed requests (788)" with the scope's description as its tooltip).
void nameScopeItem(QComboBox* box, const RequestScope& scope);

} // namespace tracelight::widgets
