#include "common/Palette.h"

#include <QByteArray>
#include <cstdint>
#include <iterator>

namespace tracelight::widgets::palette {

QColor forTask(const QString& task) {
    // A qualitative palette (ColorBrewer Set3 without its reds and oranges, which mean "critical" here).
    static const QColor colours[] = {QColor(0x8d, 0xd3, 0xc7), QColor(0xbe, 0xba, 0xda), QColor(0x80, 0xb1, 0xd3),
                                     QColor(0xb3, 0xde, 0x69), QColor(0xfc, 0xcd, 0xe5), QColor(0xbc, 0x80, 0xbd),
                                     QColor(0xcc, 0xeb, 0xc5), QColor(0xff, 0xed, 0x6f), QColor(0xd9, 0xd9, 0xd9),
                                     QColor(0xa6, 0xce, 0xe3), QColor(0xe5, 0xd8, 0xbd), QColor(0x9e, 0xd4, 0x9e)};
    // FNV-1a over the name's UTF-8: a task keeps its colour across views and sessions (it used to be the order
    // in which tasks were first drawn, which changed from one session to the next). Three shades per hue make
    // 36 colours, so a handful of tasks rarely share one.
    std::uint32_t h = 2166136261u;
    for (const char c : task.toUtf8()) {
        h ^= static_cast<std::uint8_t>(c);
        h *= 16777619u;
    }
    const QColor base = colours[h % std::size(colours)];
    switch ((h / std::size(colours)) % 3) {
    case 1: return base.darker(115);
    case 2: return base.lighter(106);
    default: return base;
    }
}

QColor forCategory(const QString& category) {
    if (category == QLatin1String("blind")) return blind();
    if (category == QLatin1String("network")) return network();
    return forTask(QStringLiteral("category:") + category).darker(115);
}

QColor ranked(std::size_t rank) {
    // Tableau 10 with olive for its grey (grey is "other" and blind time here).
    static const QColor colours[kRankedColours] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0xe1, 0x57, 0x59),
                                                   QColor(0x76, 0xb7, 0xb2), QColor(0x59, 0xa1, 0x4f), QColor(0xed, 0xc9, 0x48),
                                                   QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7), QColor(0x9c, 0x75, 0x5f),
                                                   QColor(0xbc, 0xbd, 0x22)};
    return colours[rank % kRankedColours];
}

} // namespace tracelight::widgets::palette
