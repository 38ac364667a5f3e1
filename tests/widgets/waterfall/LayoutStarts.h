#pragma once
// Every segment's start in a layout, as one list a test can compare whole.
#include <vector>

#include "waterfall/WaterfallLayout.h"

namespace tracelight::test {

inline std::vector<double> startsUs(const widgets::WaterfallLayout& layout, const RequestDetail& detail) {
    std::vector<double> out;
    for (std::size_t s = 0; s < layout.segmentCount(); ++s) out.push_back(layout.startUs(detail, s));
    return out;
}

} // namespace tracelight::test
