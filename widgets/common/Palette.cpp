#include "common/Palette.h"

#include <QHash>

namespace tracelight::widgets::palette {

QColor forTask(const QString& task) {
    // A qualitative palette (ColorBrewer Set3 without its reds and oranges, which mean "critical" here).
    static const QColor colours[] = {QColor(0x8d, 0xd3, 0xc7), QColor(0xbe, 0xba, 0xda), QColor(0x80, 0xb1, 0xd3),
                                     QColor(0xb3, 0xde, 0x69), QColor(0xfc, 0xcd, 0xe5), QColor(0xbc, 0x80, 0xbd),
                                     QColor(0xcc, 0xeb, 0xc5), QColor(0xff, 0xed, 0x6f), QColor(0xd9, 0xd9, 0xd9),
                                     QColor(0xa6, 0xce, 0xe3), QColor(0xe5, 0xd8, 0xbd), QColor(0x9e, 0xd4, 0x9e)};
    // Tasks get colours in the order they are first drawn, so a handful of tasks never share one;
    // the registry lives for the process, so a task keeps its colour across views.
    static QHash<QString, int> assigned;
    auto it = assigned.find(task);
    if (it == assigned.end()) it = assigned.insert(task, static_cast<int>(assigned.size() % std::size(colours)));
    return colours[*it];
}

} // namespace tracelight::widgets::palette
