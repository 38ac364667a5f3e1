#include "bottleneck/BottleneckPie.h"

#include <QPainter>
#include <QtMath>

#include "common/PlotExport.h"

namespace tracelight::widgets {

BottleneckPie::BottleneckPie(QWidget* parent) : QWidget(parent) {
    setMinimumSize(220, 180);
    attachPictureExport(this, QStringLiteral("bottleneck-shares-pie.png"));
}

void BottleneckPie::setSlices(std::vector<Slice> slices, const QString& title) {
    m_slices = std::move(slices);
    m_title = title;
    update();
}

void BottleneckPie::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics fm(font());
    p.setPen(palette().color(QPalette::WindowText));
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRect(0, 4, width(), fm.height()), Qt::AlignHCenter, m_title);
    p.setFont(font());
    if (m_slices.empty()) return;
    // The pie on the left, a legend of every type with its share on the right: labels around the pie
    // overlapped where many small slices sit side by side (real services: a tenth of a percent each).
    const int top = fm.height() + 12, rowHeight = fm.height() + 3;
    int legendWidth = 0;
    for (const auto& s : m_slices)
        legendWidth = std::max(legendWidth, fm.horizontalAdvance(QStringLiteral("%1  %2 %").arg(s.name).arg(100.0 * s.share, 0, 'f', 1)));
    legendWidth = std::min(legendWidth + fm.height() + 8, width() / 2);
    const int diameter = std::max(40, std::min(height() - top - 8, width() - legendWidth - 24));
    const QRectF pie(8, top + (height() - top - diameter) / 2.0, diameter, diameter);
    double start = 90.0;  // degrees; Qt measures counter-clockwise, slices go clockwise from twelve o'clock
    for (const auto& s : m_slices) {
        const double span = -360.0 * s.share;
        p.setPen(QPen(Qt::white, 1));
        p.setBrush(s.colour);
        p.drawPie(pie, static_cast<int>(std::lround(start * 16)), static_cast<int>(std::lround(span * 16)));
        // The share inside slices wide enough to hold it.
        if (s.share >= 0.07) {
            const double middle = qDegreesToRadians(start + span / 2), r = diameter * 0.32;
            const QPointF at(pie.center().x() + r * std::cos(middle), pie.center().y() - r * std::sin(middle));
            const QString text = QStringLiteral("%1 %").arg(100.0 * s.share, 0, 'f', 0);
            p.setPen(s.colour.lightness() < 140 ? Qt::white : Qt::black);
            p.drawText(QRectF(at.x() - 30, at.y() - fm.height() / 2.0, 60, fm.height()), Qt::AlignCenter, text);
        }
        start += span;
    }
    // The legend: as many rows as fit, then how many more there are.
    const int legendLeft = static_cast<int>(pie.right()) + 16;
    const int rows = std::max(1, (height() - top) / rowHeight);
    const int shown = static_cast<int>(m_slices.size()) <= rows ? static_cast<int>(m_slices.size()) : rows - 1;
    int y = top + std::max(0, (height() - top - rowHeight * std::min(rows, static_cast<int>(m_slices.size()))) / 2);
    p.setPen(palette().color(QPalette::WindowText));
    for (int i = 0; i < shown; ++i, y += rowHeight) {
        const auto& s = m_slices[static_cast<std::size_t>(i)];
        p.fillRect(QRect(legendLeft, y + 2, fm.height() - 4, fm.height() - 4), s.colour);
        const QString text = QStringLiteral("%1  %2 %").arg(s.name).arg(100.0 * s.share, 0, 'f', 1);
        p.drawText(QRect(legendLeft + fm.height(), y, width() - legendLeft - fm.height() - 4, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(text, Qt::ElideMiddle, width() - legendLeft - fm.height() - 4));
    }
    if (shown < static_cast<int>(m_slices.size()))
        p.drawText(QRect(legendLeft, y, width() - legendLeft, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(tr("… %1 more in the table").arg(m_slices.size() - static_cast<std::size_t>(shown)), Qt::ElideRight,
                                 width() - legendLeft - 4));
}

} // namespace tracelight::widgets
