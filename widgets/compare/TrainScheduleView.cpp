#include "TrainScheduleView.h"

#include <algorithm>
#include <cmath>

#include <QPainter>
#include <QPainterPath>

#include "common/Palette.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

TrainScheduleView::TrainScheduleView(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(160);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

void TrainScheduleView::setSchedule(TrainSchedule schedule, const QString& title) {
    m_schedule = std::move(schedule);
    m_title = title;
    m_message.clear();
    m_spanUs = std::max(1.0, double(m_schedule.latencyNs) / 1000.0);
    update();
}

void TrainScheduleView::clear(const QString& message) {
    m_schedule = {};
    m_title.clear();
    m_message = message;
    update();
}

void TrainScheduleView::setSpanUs(double spanUs) {
    m_spanUs = std::max(1.0, spanUs);
    update();
}

int TrainScheduleView::plotLeft() const {
    // Room for the longest station name, within reason.
    const QFontMetrics fm(font());
    int widest = 60;
    for (const auto& c : m_schedule.components) widest = std::max(widest, fm.horizontalAdvance(QString::fromStdString(c)));
    return std::min(widest + 16, std::max(120, width() / 4));
}

double TrainScheduleView::xOf(double us) const { return plotLeft() + us / m_spanUs * (plotRight() - plotLeft()); }

int TrainScheduleView::stationY(std::size_t station) const {
    const std::size_t n = m_schedule.components.size();
    if (station >= n) return -1;
    const int top = kTitleHeight + 10, bottom = height() - kAxisHeight - kLegendHeight - 10;
    if (n == 1) return (top + bottom) / 2;
    return top + static_cast<int>(std::lround(double(bottom - top) * double(station) / double(n - 1)));
}

void TrainScheduleView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QColor text = palette().color(QPalette::WindowText);
    p.setPen(text);
    p.drawText(QRect(6, 2, width() - 12, kTitleHeight), Qt::AlignVCenter | Qt::AlignLeft, m_title);
    if (m_schedule.components.empty()) {
        p.drawText(rect(), Qt::AlignCenter, m_message.isEmpty() ? tr("No request on this side") : m_message);
        return;
    }
    const int left = plotLeft(), right = plotRight();
    const int axisY = height() - kAxisHeight - kLegendHeight;
    // Stations: a faint line each, the component's name in the gutter (shortened in the middle if need be).
    const QFontMetrics fm(font());
    for (std::size_t s = 0; s < m_schedule.components.size(); ++s) {
        const int y = stationY(s);
        p.setPen(QColor(0, 0, 0, 40));
        p.drawLine(left, y, right, y);
        p.setPen(text);
        const QString name = fm.elidedText(QString::fromStdString(m_schedule.components[s]), Qt::ElideMiddle, left - 12);
        p.drawText(QRect(4, y - fm.height() / 2 - 1, left - 10, fm.height() + 2), Qt::AlignVCenter | Qt::AlignRight, name);
    }
    // Time axis: ticks at steps the width fits, in the unit of the span.
    const double step = axisTickStep(m_spanUs, right - left);
    p.setPen(text);
    p.drawLine(left, axisY, right, axisY);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    p.setFont(small);
    for (double t = 0; t <= m_spanUs + step / 2; t += step) {
        const double x = xOf(t);
        if (x > right + 1) break;
        p.drawLine(QPointF(x, axisY), QPointF(x, axisY + 5));
        p.drawText(QRectF(x - 60, axisY + 5, 120, 14), Qt::AlignCenter, formatAxisTick(t, step));
    }
    p.drawText(QRect(left, axisY + 17, right - left, 13), Qt::AlignCenter, tr("time since request start"));
    // Legs: crossings first (thin), then stays (thick) over them; off-path in grey, the critical path in its colour.
    for (int pass = 0; pass < 2; ++pass)
        for (const TrainLeg& leg : m_schedule.legs) {
            const bool stay = leg.from == leg.to;
            if (stay != (pass == 1)) continue;
            QColor c = leg.critical ? palette::critical() : palette::other();
            p.setPen(QPen(c, stay ? 4 : 1.5, Qt::SolidLine, Qt::FlatCap));
            const double x0 = xOf(double(leg.startNs) / 1000.0), x1 = std::max(x0 + (stay ? 1.5 : 0.0), xOf(double(leg.endNs) / 1000.0));
            p.drawLine(QPointF(x0, stationY(leg.from)), QPointF(x1, stationY(leg.to)));
        }
    // Legend.
    p.setFont(font());
    const int ly = height() - kLegendHeight + 4;
    int lx = left;
    auto swatch = [&](const QColor& c, qreal w, const QString& label) {
        p.setPen(QPen(c, w, Qt::SolidLine, Qt::FlatCap));
        p.drawLine(lx, ly + 7, lx + 22, ly + 7);
        p.setPen(text);
        p.drawText(QRect(lx + 28, ly, 260, 14), Qt::AlignVCenter | Qt::AlignLeft, label);
        lx += 34 + fm.horizontalAdvance(label) + 18;
    };
    swatch(palette::critical(), 4, tr("critical path"));
    swatch(palette::other(), 4, tr("off the critical path"));
    swatch(palette::other(), 1.5, tr("call or reply between components"));
}

} // namespace tracelight::widgets
