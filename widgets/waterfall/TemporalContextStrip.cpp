#include "waterfall/TemporalContextStrip.h"

#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "common/Counts.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

namespace {
constexpr int kLabelWidth = 200;
constexpr int kRowHeight = 16;
// With host activity each row is taller: the requests' cell above, the host activity's band below it.
constexpr int kActivityRowHeight = 22, kActivityBand = 6;
// Host activity (non-traced work) in orange, the request's own marked low-level work in purple.
const QColor kActivityColor(230, 120, 20), kOwnColor(120, 60, 170);
constexpr int kHeader = 18;
constexpr int kFooter = 18;
// At least this many host rows stay in view with the footer (the splitter gives no more unless dragged).
constexpr int kMinRows = 3, kMaxMinRows = 6;
} // namespace

TemporalContextStrip::TemporalContextStrip(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
    setMinimumHeight(kHeader + kMinRows * kRowHeight + kFooter);
    clear(tr("Select a request: what else ran on its hosts while it did shows here."));
}

void TemporalContextStrip::setStrip(std::shared_ptr<const ContextStrip> strip, std::function<QString(RequestId)> requestName) {
    m_strip = std::move(strip);
    m_requestName = std::move(requestName);
    m_message.clear();
    m_max = 0;
    if (m_strip)
        for (const auto& h : m_strip->hosts) m_max = std::max(m_max, h.requests.empty() ? 0 : *std::max_element(h.requests.begin(), h.requests.end()));
    // A request on a few more hosts than the splitter first gave room for keeps its rows and footer in view.
    const int rows = m_strip ? rowCount() : 0;
    setMinimumHeight(kHeader + std::clamp(rows, kMinRows, kMaxMinRows) * rowHeight() + kFooter);
    updateGeometry();
    update();
}

void TemporalContextStrip::clear(const QString& message) {
    m_strip.reset();
    m_message = message;
    setMinimumHeight(kHeader + kMinRows * kRowHeight + kFooter);
    updateGeometry();
    update();
}

QSize TemporalContextStrip::sizeHint() const {
    const int rows = m_strip ? std::max<int>(1, rowCount()) : 1;
    return {800, kHeader + std::min(rows, 8) * rowHeight() + kFooter};
}

bool TemporalContextStrip::showsActivity() const { return m_strip && m_strip->withActivity; }

int TemporalContextStrip::rowHeight() const { return showsActivity() ? kActivityRowHeight : kRowHeight; }

int TemporalContextStrip::rowCount() const {
    // With host activity, a last row for the request's own low-level work.
    return static_cast<int>(m_strip->hosts.size()) + (showsActivity() ? 1 : 0);
}

QRect TemporalContextStrip::cellRect(int host, int slice) const {
    if (!m_strip || m_strip->buckets <= 0) return {};
    const int width = std::max(10, this->width() - kLabelWidth - 8);
    const int x0 = kLabelWidth + width * slice / m_strip->buckets, x1 = kLabelWidth + width * (slice + 1) / m_strip->buckets;
    return QRect(x0, kHeader + host * rowHeight(), std::max(1, x1 - x0), rowHeight() - 1 - (showsActivity() ? kActivityBand : 0));
}

QRect TemporalContextStrip::activityRect(int host, int slice) const {
    if (!showsActivity()) return {};
    const QRect cell = cellRect(host, slice);
    return QRect(cell.left(), cell.bottom() + 1, cell.width(), kActivityBand);
}

QRect TemporalContextStrip::ownRect(std::size_t i) const {
    if (!showsActivity() || i >= m_strip->own.size()) return {};
    const ContextStrip& s = *m_strip;
    const int width = std::max(10, this->width() - kLabelWidth - 8);
    const double span = double(std::max<TimeNs>(1, s.endNs - s.startNs));
    // Work marked with the request but outside its lifetime is drawn at the edge it lies beyond.
    const auto xOf = [&](TimeNs t) { return kLabelWidth + int(std::clamp(double(t - s.startNs) / span, 0.0, 1.0) * width); };
    const OwnActivity& a = s.own[i];
    const int x0 = xOf(a.startNs), x1 = std::max(x0 + 2, xOf(a.endNs));
    const int y = kHeader + static_cast<int>(s.hosts.size()) * rowHeight();
    return QRect(x0, y + 3, x1 - x0, rowHeight() - 6);
}

std::pair<int, int> TemporalContextStrip::cellAt(QPoint p) const {
    if (!m_strip || p.x() < kLabelWidth || p.y() < kHeader) return {-1, -1};
    const int host = (p.y() - kHeader) / rowHeight();
    if (host >= static_cast<int>(m_strip->hosts.size())) return {-1, -1};
    const int width = std::max(10, this->width() - kLabelWidth - 8);
    const int slice = (p.x() - kLabelWidth) * m_strip->buckets / width;
    if (slice < 0 || slice >= m_strip->buckets) return {-1, -1};
    return {host, slice};
}

std::vector<RequestId> TemporalContextStrip::requestsIn(int host, int slice) const {
    if (!m_strip || host < 0 || host >= static_cast<int>(m_strip->hosts.size()) || slice < 0 || slice >= m_strip->buckets) return {};
    return m_strip->hosts[static_cast<std::size_t>(host)].listed[static_cast<std::size_t>(slice)];
}

void TemporalContextStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QFontMetrics fm(font());
    if (!m_strip || m_strip->hosts.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft, m_message.isEmpty() ? tr("No hosts.") : m_message);
        return;
    }
    const ContextStrip& s = *m_strip;
    const int rowH = rowHeight();
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(6, 0, kLabelWidth - 10, kHeader), Qt::AlignVCenter | Qt::AlignLeft,
               showsActivity() ? tr("Requests and host activity") : tr("Concurrent requests per host"));
    p.drawText(QRect(kLabelWidth, 0, width() - kLabelWidth - 8, kHeader), Qt::AlignVCenter | Qt::AlignLeft, tr("0"));
    p.drawText(QRect(kLabelWidth, 0, width() - kLabelWidth - 8, kHeader), Qt::AlignVCenter | Qt::AlignRight,
               formatDurationNs(s.endNs - s.startNs));
    for (int h = 0; h < static_cast<int>(s.hosts.size()); ++h) {
        const auto& host = s.hosts[static_cast<std::size_t>(h)];
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(6, kHeader + h * rowH, kLabelWidth - 10, rowH), Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(QString::fromStdString(host.host), Qt::ElideMiddle, kLabelWidth - 12));
        for (int b = 0; b < s.buckets; ++b) {
            const int n = host.requests[static_cast<std::size_t>(b)];
            const QRect cell = cellRect(h, b);
            // White for none, deepening blue with the count (the strip's own maximum is the darkest).
            const double f = m_max > 0 ? double(n) / m_max : 0;
            const QColor shade = QColor::fromRgbF(1.0 - 0.75 * f, 1.0 - 0.55 * f, 1.0 - 0.2 * f);
            p.fillRect(cell, n ? shade : palette().color(QPalette::Base));
            p.setPen(QColor(0, 0, 0, 25));
            p.drawRect(cell.adjusted(0, 0, -1, -1));
            const QString text = QString::number(n);
            if (n && fm.horizontalAdvance(text) + 4 < cell.width()) {
                p.setPen(f > 0.6 ? Qt::white : palette().color(QPalette::Text));
                p.drawText(cell, Qt::AlignCenter, text);
            }
            if (showsActivity() && static_cast<std::size_t>(b) < host.activityNs.size()) {
                // The band under the cell: how busy the host's non-traced work kept it in that slice (its time
                // inside the slice over the slice's length, full colour from one whole slice up).
                const QRect band = activityRect(h, b);
                const TimeNs slice = std::max<TimeNs>(1, (s.endNs - s.startNs) / std::max(1, s.buckets));
                const double busy = std::min(1.0, double(host.activityNs[static_cast<std::size_t>(b)]) / double(slice));
                if (host.activityRecords[static_cast<std::size_t>(b)] > 0) {
                    QColor c = kActivityColor;
                    c.setAlphaF(0.25 + 0.75 * busy);
                    p.fillRect(band.adjusted(0, 0, 0, -1), c);
                }
            }
        }
    }
    int footerY = kHeader + static_cast<int>(s.hosts.size()) * rowH;
    if (showsActivity()) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(6, footerY, kLabelWidth - 10, rowH), Qt::AlignVCenter | Qt::AlignLeft,
                   s.own.empty() ? tr("own low-level work: none") : tr("own low-level work (%L1)").arg(s.own.size()));
        p.setPen(QColor(0, 0, 0, 25));
        p.drawRect(QRect(kLabelWidth, footerY + 1, std::max(10, width() - kLabelWidth - 8), rowH - 2));
        for (std::size_t i = 0; i < s.own.size(); ++i) {
            const QRect r = ownRect(i);
            p.fillRect(r, kOwnColor);
            const QString label = QString::fromStdString(s.own[i].what);
            if (fm.horizontalAdvance(label) + 4 < r.width()) {
                p.setPen(Qt::white);
                p.drawText(r, Qt::AlignCenter, label);
            }
        }
        footerY += rowH;
    }
    p.setPen(palette().color(QPalette::PlaceholderText));
    const QString clocks = s.localClocks ? tr("its lifetime on each host's own clock (View › Local Clocks) in %1 slices, left to right")
                                         : tr("its lifetime in %1 slices, left to right");
    const QString activity = showsActivity() ? tr(" · orange: host activity no trace shows (deeper: busier) · purple: its own marked work")
                                             : QString();
    p.drawText(QRect(6, footerY, width() - 12, kFooter), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText((clocks + tr(" · darker: more other requests on that host then (at most %2)") + activity + tr(" · click a cell to list them"))
                                 .arg(s.buckets)
                                 .arg(m_max),
                             Qt::ElideRight, width() - 12));
}

bool TemporalContextStrip::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* help = static_cast<QHelpEvent*>(e);
    const QString own = ownToolTip(help->pos());
    if (!own.isEmpty()) {
        QToolTip::showText(help->globalPos(), own, this);
        return true;
    }
    const auto [h, b] = cellAt(help->pos());
    if (h < 0) {
        QToolTip::hideText();
        return true;
    }
    const ContextStrip& s = *m_strip;
    const auto& host = s.hosts[static_cast<std::size_t>(h)];
    const TimeNs from = (s.endNs - s.startNs) * b / s.buckets, to = (s.endNs - s.startNs) * (b + 1) / s.buckets;
    QString text = tr("<b>%1</b>, +%2 – +%3<br>%L4 other requests, %L5 of their segments")
                       .arg(QString::fromStdString(host.host).toHtmlEscaped(), formatDurationNs(from), formatDurationNs(to))
                       .arg(host.requests[static_cast<std::size_t>(b)])
                       .arg(host.segments[static_cast<std::size_t>(b)]);
    if (showsActivity() && static_cast<std::size_t>(b) < host.activity.size()) {
        const auto slice = static_cast<std::size_t>(b);
        text += tr("<br>host activity: %1, %2 of it in this slice")
                    .arg(recordCount(host.activityRecords[slice]), formatDurationNs(host.activityNs[slice]));
        int shown = 0;
        for (const ActivityKind& k : host.activity[slice]) {
            if (++shown > 5) break;
            text += tr("<br>&nbsp;&nbsp;%1: %L2, %3").arg(QString::fromStdString(k.what).toHtmlEscaped()).arg(k.records).arg(formatDurationNs(k.overlapNs));
        }
    }
    QToolTip::showText(help->globalPos(), text, this);
    return true;
}

QString TemporalContextStrip::ownToolTip(QPoint p) const {
    if (!showsActivity()) return {};
    const ContextStrip& s = *m_strip;
    QString text;
    for (std::size_t i = 0; i < s.own.size(); ++i) {
        if (!ownRect(i).adjusted(-2, 0, 2, 0).contains(p)) continue;
        const OwnActivity& a = s.own[i];
        text += (text.isEmpty() ? QString() : QStringLiteral("<br>")) +
                tr("<b>%1</b> on %2%3, +%4 for %5")
                    .arg(QString::fromStdString(a.what).toHtmlEscaped(), QString::fromStdString(a.host).toHtmlEscaped(),
                         a.span.empty() ? QString() : tr(" (span %1)").arg(QString::fromStdString(a.span).toHtmlEscaped()),
                         a.startNs >= s.startNs ? formatDurationNs(a.startNs - s.startNs) : QStringLiteral("-") + formatDurationNs(s.startNs - a.startNs),
                         formatDurationNs(a.endNs - a.startNs));
    }
    return text;
}

void TemporalContextStrip::mousePressEvent(QMouseEvent* e) {
    const auto [h, b] = cellAt(e->position().toPoint());
    const std::vector<RequestId> ids = requestsIn(h, b);
    if (ids.empty() || e->button() != Qt::LeftButton) return;
    QMenu menu(this);
    const int total = m_strip->hosts[static_cast<std::size_t>(h)].requests[static_cast<std::size_t>(b)];
    menu.addSection(tr("%L1 other requests on %2").arg(total).arg(QString::fromStdString(m_strip->hosts[static_cast<std::size_t>(h)].host)));
    for (RequestId id : ids)
        menu.addAction(tr("Open %1").arg(m_requestName ? m_requestName(id) : QString::number(id.value)), this,
                       [this, id] { emit requestActivated(id); });
    if (total > static_cast<int>(ids.size())) menu.addAction(tr("… and %L1 more").arg(total - static_cast<int>(ids.size())))->setEnabled(false);
    menu.exec(e->globalPosition().toPoint());
}

} // namespace tracelight::widgets
