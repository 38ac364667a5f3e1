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
    // Room for labels on both sides: the pie takes the middle of what is left under the title.
    const int top = fm.height() + 12;
    const int diameter = std::max(40, std::min(height() - top - 2 * fm.height(), width() - 2 * fm.horizontalAdvance(QStringLiteral("productcatalog 99.9 %"))));
    const QRectF pie((width() - diameter) / 2.0, top + (height() - top - diameter) / 2.0, diameter, diameter);
    double start = 90.0;  // degrees; Qt measures counter-clockwise, slices go clockwise from twelve o'clock
    for (const auto& s : m_slices) {
        const double span = -360.0 * s.share;
        p.setPen(QPen(Qt::white, 1));
        p.setBrush(s.colour);
        p.drawPie(pie, static_cast<int>(std::lround(start * 16)), static_cast<int>(std::lround(span * 16)));
        // A label only on slices of at least 3 %: smaller ones would overlap their neighbours' labels.
        if (s.share >= 0.03) {
            const double middle = qDegreesToRadians(start + span / 2);
            const QPointF centre = pie.center();
            const double r = diameter / 2.0 + 6;
            const QPointF anchor(centre.x() + r * std::cos(middle), centre.y() - r * std::sin(middle));
            const QString text = QStringLiteral("%1 %2 %").arg(s.name).arg(100.0 * s.share, 0, 'f', 1);
            const int w = fm.horizontalAdvance(text);
            const bool right = std::cos(middle) >= 0;
            const QRectF box(right ? anchor.x() : anchor.x() - w, anchor.y() - fm.height() / 2.0, w, fm.height());
            p.setPen(palette().color(QPalette::WindowText));
            p.drawText(box, Qt::AlignVCenter | (right ? Qt::AlignLeft : Qt::AlignRight), text);
        }
        start += span;
    }
}

} // namespace tracelight::widgets
