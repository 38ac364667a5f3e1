#pragma once
// Core's texts are UTF-8 views; the views draw QStrings.
#include <QString>
#include <string_view>

namespace tracelight::widgets {

inline QString qtext(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

// A p- or q-value: "0.032", "3.6e-63"; one below what a double holds reads "< 1e-300", never "0".
inline QString formatProbability(double p) {
    if (p < 1e-300) return QStringLiteral("< 1e-300");
    return p < 1e-4 ? QString::number(p, 'e', 1) : QString::number(p, 'g', 3);
}

} // namespace tracelight::widgets
