#include "waterfall/TemporalContextStrip.h"

#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "common/TimeFormat.h"

namespace tracelight::widgets {

namespace {
constexpr int kLabelWidth = 200;
constexpr int kRowHeight = 16;
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
    const int rows = m_strip ? static_cast<int>(m_strip->hosts.size()) : 0;
    setMinimumHeight(kHeader + std::clamp(rows, kMinRows, kMaxMinRows) * kRowHeight + kFooter);
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
    const int rows = m_strip ? std::max<int>(1, static_cast<int>(m_strip->hosts.size())) : 1;
    return {800, kHeader + std::min(rows, 8) * kRowHeight + kFooter};
}

QRect TemporalContextStrip::cellRect(int host, int slice) const {
    if (!m_strip || m_strip->buckets <= 0) return {};
    const int width = std::max(10, this->width() - kLabelWidth - 8);
    const int x0 = kLabelWidth + width * slice / m_strip->buckets, x1 = kLabelWidth + width * (slice + 1) / m_strip->buckets;
    return QRect(x0, kHeader + host * kRowHeight, std::max(1, x1 - x0), kRowHeight - 1);
}

std::pair<int, int> TemporalContextStrip::cellAt(QPoint p) const {
    if (!m_strip || p.x() < kLabelWidth || p.y() < kHeader) return {-1, -1};
    const int host = (p.y() - kHeader) / kRowHeight;
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
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(6, 0, kLabelWidth - 10, kHeader), Qt::AlignVCenter | Qt::AlignLeft, tr("Concurrent requests per host"));
    p.drawText(QRect(kLabelWidth, 0, width() - kLabelWidth - 8, kHeader), Qt::AlignVCenter | Qt::AlignLeft, tr("0"));
    p.drawText(QRect(kLabelWidth, 0, width() - kLabelWidth - 8, kHeader), Qt::AlignVCenter | Qt::AlignRight,
               formatDurationNs(s.endNs - s.startNs));
    for (int h = 0; h < static_cast<int>(s.hosts.size()); ++h) {
        const auto& host = s.hosts[static_cast<std::size_t>(h)];
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(6, kHeader + h * kRowHeight, kLabelWidth - 10, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
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
        }
    }
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(QRect(6, kHeader + static_cast<int>(s.hosts.size()) * kRowHeight, width() - 12, kFooter), Qt::AlignVCenter | Qt::AlignLeft,
               (s.localClocks ? tr("its lifetime on each host's own clock (View › Local Clocks) in %1 slices, left to right · darker: "
                                   "more other requests on that host then (at most %2) · click a cell to list them")
                              : tr("its lifetime in %1 slices, left to right · darker: more other requests on that host then (at most %2) · "
                                   "click a cell to list them"))
                   .arg(s.buckets)
                   .arg(m_max));
}

bool TemporalContextStrip::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* help = static_cast<QHelpEvent*>(e);
    const auto [h, b] = cellAt(help->pos());
    if (h < 0) {
        QToolTip::hideText();
        return true;
    }
    const ContextStrip& s = *m_strip;
    const auto& host = s.hosts[static_cast<std::size_t>(h)];
    const TimeNs from = (s.endNs - s.startNs) * b / s.buckets, to = (s.endNs - s.startNs) * (b + 1) / s.buckets;
    QToolTip::showText(help->globalPos(),
                       tr("<b>%1</b>, +%2 – +%3<br>%L4 other requests, %L5 of their segments")
                           .arg(QString::fromStdString(host.host).toHtmlEscaped(), formatDurationNs(from), formatDurationNs(to))
                           .arg(host.requests[static_cast<std::size_t>(b)])
                           .arg(host.segments[static_cast<std::size_t>(b)]),
                       this);
    return true;
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
