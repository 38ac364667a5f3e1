#include "Palette.h"

#include <QHash>

namespace tracelight::widgets::palette {

QColor forTask(const QString& task) {
    // Muted hues spaced by the golden angle; saturation and value low enough that the critical path stands out.
    const uint h = qHash(task, 0x5eed);
    int hue = static_cast<int>((h % 360u) * 137u % 360u);
    if (hue < 45 || hue > 340) hue = (hue + 170) % 360;  // keep clear of the critical path's orange-red
    return QColor::fromHsv(hue, 90, 215);
}

} // namespace tracelight::widgets::palette
