#pragma once
// Core's texts are UTF-8 views; the views draw QStrings.
#include <QString>
#include <string_view>

namespace tracelight::widgets {

inline QString qtext(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

} // namespace tracelight::widgets
