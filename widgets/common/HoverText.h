#pragma once
// Tooltips computed at the pointer: a widget whose tooltip depends on what is under the mouse (a bar, a
// point, a bucket of a plot) gets it from one function, asked at each hover.
#include <QPoint>
#include <QString>
#include <functional>

class QComboBox;
class QWidget;

namespace tracelight::widgets {

// textAt(pos) (pos in target's coordinates) is shown at the pointer; "" hides the tooltip. Lives as long as target.
void attachHoverText(QWidget* target, std::function<QString(const QPoint&)> textAt);

// A combo box of names from the data (periods, attributes, services): as wide as `characters` characters whatever
// its items, so that a long name cannot widen the window; on hover its tooltip (what the box is for) is
// followed by the chosen item's whole name. Set the box's own tooltip first.
void keepComboNarrow(QComboBox* box, int characters = 20);

} // namespace tracelight::widgets
