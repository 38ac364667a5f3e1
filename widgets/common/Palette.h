#pragma once
// Colours with meaning, shared by every view: one hue per task, fixed colours for the critical path,
// slack and blind time, so a segment looks the same in the waterfall and the graph.
#include <QColor>
#include <QString>
#include <cstddef>

namespace tracelight::widgets::palette {

QColor forTask(const QString& task);  // stable: a hash of the name, so the same in every view and every session
QColor forCategory(const QString& category);  // a category by its name alone (the flame graph's frames)
// The breakdown's categories by rank of critical time: ten hues told apart at a glance (23 hashed colours
// were not), then one grey for the categories summed as "other".
inline constexpr std::size_t kRankedColours = 10;
QColor ranked(std::size_t rank);  // rank < kRankedColours
inline QColor other() { return QColor(0xb4, 0xb4, 0xb4); }
inline QColor critical() { return QColor(0xd9, 0x48, 0x0f); }
inline QColor criticalOutline() { return QColor(0x8a, 0x2a, 0x05); }
inline QColor slack() { return QColor(0x2f, 0x9e, 0x44, 70); }
inline QColor blind() { return QColor(0x86, 0x8e, 0x96); }
inline QColor asyncWork() { return QColor(0xb8, 0xa9, 0xe0); }  // work nobody waited for (span data)
inline QColor network() { return QColor(0x49, 0x50, 0x57); }
inline QColor selection() { return QColor(0x19, 0x71, 0xc2); }
inline QColor folded() { return QColor(0x86, 0x8e, 0x96, 180); }
inline QColor mutualExclusion() { return QColor(0xae, 0x3e, 0xc9); }
inline QColor pipeline() { return QColor(0x0c, 0x85, 0x99); }

} // namespace tracelight::widgets::palette
