#include "bottleneck/MultiRequestWaterfall.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "common/Palette.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

namespace {
constexpr int kLaneHeight = 14;  // one lane per task of a request
constexpr int kRowPadding = 6;
constexpr int kAxisHeight = 26;
constexpr int kLabelWidth = 230;
constexpr int kLegendHeight = 20;

// A "nice" tick step (1, 2 or 5 x 10^k) giving about `wanted` ticks over `span`.
double tickStep(double span, int wanted) {
    const double raw = span / std::max(1, wanted);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * magnitude) return m * magnitude;
    return 10 * magnitude;
}
} // namespace

MultiRequestWaterfall::MultiRequestWaterfall(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(sizeHint().height());
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void MultiRequestWaterfall::setTimelines(std::vector<RequestTimeline> timelines, QStringList rowLabels, TimeNs axisStartNs,
                                         TimeNs axisEndNs, std::function<QString(std::uint32_t)> taskName) {
    m_timelines = std::move(timelines);
    m_rowLabels = std::move(rowLabels);
    m_axisStartNs = axisStartNs;
    m_axisEndNs = std::max(axisEndNs, axisStartNs + 1);
    m_taskName = std::move(taskName);
    m_message.clear();
    // Each request's tasks in the order they start, one lane each; rows stacked by their lane counts.
    m_lanes.assign(m_timelines.size(), {});
    m_laneTasks.assign(m_timelines.size(), {});
    m_rowTop.assign(m_timelines.size() + 1, 0);
    for (std::size_t r = 0; r < m_timelines.size(); ++r) {
        auto& tasks = m_laneTasks[r];
        for (const TimelineSegment& seg : m_timelines[r].segments) {
            auto it = std::find(tasks.begin(), tasks.end(), seg.task);
            m_lanes[r].push_back(static_cast<int>(it - tasks.begin()));
            if (it == tasks.end()) tasks.push_back(seg.task);
        }
        m_rowTop[r + 1] = m_rowTop[r] + std::max<int>(1, static_cast<int>(tasks.size())) * kLaneHeight + kRowPadding;
    }
    // As tall as its rows: in the scroll area that resizes it, the rows past the view scroll instead of being cut.
    setMinimumHeight(sizeHint().height());
    updateGeometry();
    update();
}

void MultiRequestWaterfall::setAxisCaption(const QString& caption) {
    m_axisCaption = caption;
    update();
}

void MultiRequestWaterfall::clear(const QString& message) {
    m_timelines.clear();
    m_rowLabels.clear();
    m_lanes.clear();
    m_laneTasks.clear();
    m_rowTop.assign(1, 0);
    m_message = message;
    // As tall as its rows: in the scroll area that resizes it, the rows past the view scroll instead of being cut.
    setMinimumHeight(sizeHint().height());
    updateGeometry();
    update();
}

QSize MultiRequestWaterfall::sizeHint() const {
    return {900, kAxisHeight + 2 * kLegendHeight + std::max(3 * (kLaneHeight + kRowPadding), m_rowTop.back()) + 8};
}

QRect MultiRequestWaterfall::plotArea() const {
    return QRect(kLabelWidth, kAxisHeight, std::max(10, width() - kLabelWidth - 16), m_rowTop.back());
}

double MultiRequestWaterfall::xOf(TimeNs t) const {
    const QRect area = plotArea();
    return area.left() + double(t - m_axisStartNs) / double(m_axisEndNs - m_axisStartNs) * area.width();
}

int MultiRequestWaterfall::rowAt(QPoint p) const {
    const QRect area = plotArea();
    const int y = p.y() - area.top();
    if (y < 0 || y >= m_rowTop.back()) return -1;
    return static_cast<int>(std::upper_bound(m_rowTop.begin(), m_rowTop.end(), y) - m_rowTop.begin()) - 1;
}

void MultiRequestWaterfall::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    if (!m_message.isEmpty() || m_timelines.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                         m_message.isEmpty() ? tr("No requests in this window.") : m_message);
        return;
    }
    const QRect area = plotArea();
    const QFontMetrics fm(font());
    // Axis: ms from the window's start, a grid line per tick.
    const double spanMs = double(m_axisEndNs - m_axisStartNs) / 1e6;
    const double step = tickStep(spanMs, std::max(2, area.width() / 90));
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(0, 0, kLabelWidth - 8, kAxisHeight), Qt::AlignRight | Qt::AlignVCenter, m_axisCaption);
    for (double ms = 0; ms <= spanMs + 1e-9; ms += step) {
        const int x = static_cast<int>(std::lround(xOf(m_axisStartNs + static_cast<TimeNs>(ms * 1e6))));
        painter.setPen(QColor(0, 0, 0, 30));
        painter.drawLine(x, area.top(), x, area.bottom());
        painter.setPen(palette().color(QPalette::Text));
        const QString label = QString::number(ms, 'g', 6);
        painter.drawText(QRect(x - 40, 2, 80, kAxisHeight - 4), Qt::AlignHCenter | Qt::AlignBottom, label);
    }
    QStringList tasksShown;
    for (int r = 0; r < rowCount(); ++r) {
        const RequestTimeline& t = m_timelines[static_cast<std::size_t>(r)];
        const int top = area.top() + m_rowTop[static_cast<std::size_t>(r)] + kRowPadding / 2;
        const int rowHeight = m_rowTop[static_cast<std::size_t>(r) + 1] - m_rowTop[static_cast<std::size_t>(r)];
        if (r % 2) painter.fillRect(QRect(0, top - kRowPadding / 2, width(), rowHeight), QColor(0, 0, 0, 10));
        painter.setPen(palette().color(QPalette::Text));
        const QString label = fm.elidedText(m_rowLabels.value(r), Qt::ElideMiddle, kLabelWidth / 2 + 20);
        painter.drawText(QRect(6, top, kLabelWidth / 2 + 24, kLaneHeight), Qt::AlignLeft | Qt::AlignVCenter, label);
        const auto& tasks = m_laneTasks[static_cast<std::size_t>(r)];
        painter.setPen(palette().color(QPalette::PlaceholderText));
        for (std::size_t l = 0; l < tasks.size(); ++l) {
            const QString task = fm.elidedText(m_taskName ? m_taskName(tasks[l]) : QString::number(tasks[l]), Qt::ElideMiddle, kLabelWidth / 2 - 40);
            painter.drawText(QRect(kLabelWidth / 2 + 30, top + int(l) * kLaneHeight, kLabelWidth / 2 - 36, kLaneHeight),
                             Qt::AlignRight | Qt::AlignVCenter, task);
        }
        // Off the critical path first, so the critical path is drawn over what overlaps it.
        for (const bool criticalPass : {false, true})
            for (std::size_t i = 0; i < t.segments.size(); ++i) {
                const TimelineSegment& s = t.segments[i];
                if (s.critical != criticalPass) continue;
                const double x0 = xOf(s.startNs), x1 = std::max(xOf(s.endNs), x0 + 1.0);
                if (x1 < area.left() || x0 > area.right()) continue;
                const double laneTop = top + m_lanes[static_cast<std::size_t>(r)][i] * kLaneHeight;
                if (s.network) {
                    painter.fillRect(QRectF(x0, laneTop + kLaneHeight / 2.0 - 1, x1 - x0, 2), s.critical ? QColor(200, 40, 30) : QColor(150, 150, 150));
                    continue;
                }
                const QString task = m_taskName ? m_taskName(s.task) : QString::number(s.task);
                QColor colour = palette::forTask(task);
                if (!tasksShown.contains(task)) tasksShown << task;
                if (s.critical) {
                    painter.fillRect(QRectF(x0, laneTop + 1, x1 - x0, kLaneHeight - 2), colour);
                    painter.fillRect(QRectF(x0, laneTop + kLaneHeight - 3, x1 - x0, 2), QColor(200, 40, 30));
                } else {
                    colour.setAlpha(110);
                    painter.fillRect(QRectF(x0, laneTop + kLaneHeight / 4.0, x1 - x0, kLaneHeight / 2.0), colour);
                }
            }
    }
    // A swatch per task drawn, then what the marks mean.
    int x = 6;
    const int legendTop = area.bottom() + 4;
    tasksShown.sort();
    for (const QString& task : tasksShown) {
        const int w = fm.horizontalAdvance(task);
        if (x + 14 + w > width() - 12) break;
        painter.fillRect(QRect(x, legendTop + 5, 10, 10), palette::forTask(task));
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRect(x + 14, legendTop, w + 4, kLegendHeight), Qt::AlignLeft | Qt::AlignVCenter, task);
        x += 14 + w + 14;
    }
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(6, legendTop + kLegendHeight, width() - 12, kLegendHeight), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("full bars with a red edge: on the request's critical path · pale half bars: off it · thin bars: network "
                        "(red when critical) · colour: task · click a row to open its waterfall"));
}

bool MultiRequestWaterfall::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* help = static_cast<QHelpEvent*>(e);
    const int r = rowAt(help->pos());
    if (r < 0) {
        QToolTip::hideText();
        return true;
    }
    const RequestTimeline& t = m_timelines[static_cast<std::size_t>(r)];
    QString text = tr("<b>%1</b><br>latency %2").arg(m_rowLabels.value(r).toHtmlEscaped(), formatDurationNs(t.endNs - t.startNs));
    for (const TimelineSegment& s : t.segments) {
        if (help->pos().x() < xOf(s.startNs) - 1 || help->pos().x() > std::max(xOf(s.endNs), xOf(s.startNs) + 1.0) + 1) continue;
        text += tr("<br>%1%2: %3 (+%4)%5")
                    .arg(s.network ? tr("network in ") : QString(), (m_taskName ? m_taskName(s.task) : QString::number(s.task)).toHtmlEscaped(),
                         formatDurationNs(s.endNs - s.startNs), formatDurationNs(s.startNs - t.startNs),
                         s.critical ? tr(" · critical") : QString());
        break;
    }
    QToolTip::showText(help->globalPos(), text, this);
    return true;
}

void MultiRequestWaterfall::mousePressEvent(QMouseEvent* event) {
    const int r = rowAt(event->position().toPoint());
    if (r >= 0 && event->button() == Qt::LeftButton) emit requestActivated(m_timelines[static_cast<std::size_t>(r)].id);
    QWidget::mousePressEvent(event);
}

} // namespace tracelight::widgets
