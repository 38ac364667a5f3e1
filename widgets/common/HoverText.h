#pragma once
// Tooltips computed at the pointer: a widget whose tooltip depends on what is under the mouse (a bar, a
// point, a bucket of a plot) gets it from one function, asked at each hover.
#include <QPoint>
#include <QString>
#include <functional>

class QWidget;

namespace tracelight::widgets {

// textAt(pos) (pos in target's coordinates) is shown at the pointer; "" hides the tooltip. Lives as long as target.
void attachHoverText(QWidget* target, std::function<QString(const QPoint&)> textAt);

} // namespace tracelight::widgets
