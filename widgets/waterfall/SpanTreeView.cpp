#include "waterfall/SpanTreeView.h"

#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/Palette.h"
#include "common/QtText.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {


namespace {
template <class T> T at(const std::vector<T>& v, int i, T fallback) {
    return i >= 0 && static_cast<std::size_t>(i) < v.size() ? v[static_cast<std::size_t>(i)] : fallback;
}
} // namespace

SpanTreeView::SpanTreeView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_scroll = new QScrollBar(Qt::Vertical, this);
    m_scroll->setVisible(false);
    connect(m_scroll, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
}

void SpanTreeView::setSpans(std::shared_ptr<const SpanTreeData> data) {
    m_data = std::move(data);
    const std::size_t n = m_data ? m_data->spans.size() : 0;
    m_depth.assign(n, 0);
    m_collapsed.assign(n, 0);
    // Parents come first; a parent index that does not (a malformed input) makes the span a root.
    auto parentOf = [this](std::size_t i) -> int {
        const int parent = m_data->spans[i].parent;
        return parent >= 0 && static_cast<std::size_t>(parent) < i ? parent : -1;
    };
    for (std::size_t i = 0; i < n; ++i)
        if (const int parent = parentOf(i); parent >= 0) m_depth[i] = m_depth[static_cast<std::size_t>(parent)] + 1;
    m_children = Grouping::ofIndices(n, n, parentOf);
    m_current = n > 0 ? 0 : -1;
    rebuildRows();
    fit();
    emit currentSpanChanged(m_current);
}

void SpanTreeView::setLocalClocks(bool local) {
    if (m_local == local) return;
    m_local = local;
    fit();
    emit currentSpanChanged(m_current);  // the detail's offsets change with the clock
}

TimeNs SpanTreeView::shownStart(int span) const {
    const auto& s = m_data->spans[static_cast<std::size_t>(span)];
    return m_local ? s.startNs : s.startNs - at<TimeNs>(m_data->clockOffsetNs, span, 0);
}
TimeNs SpanTreeView::shownEnd(int span) const {
    const auto& s = m_data->spans[static_cast<std::size_t>(span)];
    return m_local ? s.endNs : s.endNs - at<TimeNs>(m_data->clockOffsetNs, span, 0);
}

std::pair<double, double> SpanTreeView::spanUs(int span) const {
    if (!m_data || span < 0 || static_cast<std::size_t>(span) >= m_data->spans.size()) return {0, 0};
    return {static_cast<double>(shownStart(span) - m_originNs) / 1000.0, static_cast<double>(shownEnd(span) - m_originNs) / 1000.0};
}

void SpanTreeView::rebuildRows() {
    m_rows.clear();
    const std::size_t n = m_data ? m_data->spans.size() : 0;
    m_rowOfSpan.assign(n, -1);
    std::vector<int> stack;
    for (std::size_t i = n; i-- > 0;)
        if (m_depth[i] == 0) stack.push_back(static_cast<int>(i));
    while (!stack.empty()) {
        const int s = stack.back();
        stack.pop_back();
        m_rowOfSpan[static_cast<std::size_t>(s)] = static_cast<int>(m_rows.size());
        m_rows.push_back(s);
        if (m_collapsed[static_cast<std::size_t>(s)]) continue;
        const auto kids = m_children.of(static_cast<std::size_t>(s));
        for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(static_cast<int>(*it));
    }
    updateScrollBar();
    update();
}

int SpanTreeView::spanAtRow(int row) const { return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)] : -1; }
int SpanTreeView::rowOfSpan(int span) const { return at<int>(m_rowOfSpan, span, -1); }
int SpanTreeView::depth(int span) const { return at<int>(m_depth, span, 0); }
bool SpanTreeView::hasChildren(int span) const { return span >= 0 && !m_children.of(static_cast<std::size_t>(span)).empty(); }
bool SpanTreeView::isCollapsed(int span) const { return at<char>(m_collapsed, span, 0) != 0; }

void SpanTreeView::setCollapsed(int span, bool collapsed) {
    if (!hasChildren(span) || isCollapsed(span) == collapsed) return;
    m_collapsed[static_cast<std::size_t>(span)] = collapsed ? 1 : 0;
    // The current span hidden under the collapsed one: the collapsed one becomes current.
    const int current = m_current;
    rebuildRows();
    if (current >= 0 && rowOfSpan(current) < 0) setCurrentSpan(span);
}

void SpanTreeView::setCurrentSpan(int span) {
    if (!m_data || span < 0 || static_cast<std::size_t>(span) >= m_data->spans.size()) return;
    // Open the parents of a span that is hidden, so the current span is always on a row.
    for (int p = m_data->spans[static_cast<std::size_t>(span)].parent; p >= 0 && p < span;
         p = m_data->spans[static_cast<std::size_t>(p)].parent)
        if (isCollapsed(p)) {
            m_collapsed[static_cast<std::size_t>(p)] = 0;
            rebuildRows();
        }
    if (m_current == span) return;
    m_current = span;
    ensureVisible(rowOfSpan(span));
    update();
    emit currentSpanChanged(span);
}

void SpanTreeView::setLabelWidth(int width) {
    const int clamped = std::clamp(width, 80, std::max(80, this->width() - 120));
    if (clamped == m_labelWidth) return;
    m_labelWidth = clamped;
    update();
}

int SpanTreeView::plotRight() const { return width() - 8 - (m_scroll->isVisible() ? m_scroll->width() : 0); }

void SpanTreeView::setVisibleRange(double fromUs, double toUs) {
    if (!(toUs > fromUs)) toUs = fromUs + 1;
    m_fromUs = fromUs;
    m_toUs = toUs;
    update();
}

void SpanTreeView::fit() {
    double last = 1;
    m_originNs = 0;
    if (m_data && !m_data->spans.empty()) {
        TimeNs first = std::numeric_limits<TimeNs>::max(), end = std::numeric_limits<TimeNs>::min();
        for (int i = 0; i < static_cast<int>(m_data->spans.size()); ++i) {
            first = std::min(first, shownStart(i));
            end = std::max(end, std::max(shownStart(i), shownEnd(i)));
        }
        m_originNs = first;
        last = std::max(1.0, static_cast<double>(end - first) / 1000.0);
    }
    setVisibleRange(0, last * 1.02);
}

void SpanTreeView::zoom(double factor, double anchorX) {
    const double span = m_toUs - m_fromUs;
    const double width = std::max(1, plotRight() - plotLeft());
    const double anchorUs = m_fromUs + (anchorX - plotLeft()) / width * span;
    const double newSpan = std::max(0.001, span * factor);
    const double from = anchorUs - (anchorUs - m_fromUs) * newSpan / span;
    setVisibleRange(from, from + newSpan);
}

double SpanTreeView::xOf(double us) const {
    return plotLeft() + (us - m_fromUs) / (m_toUs - m_fromUs) * (plotRight() - plotLeft());
}

QRect SpanTreeView::rowRect(int row) const {
    return QRect(0, kAxisHeight + row * kRowHeight - m_scroll->value(), plotRight(), kRowHeight);
}

QRect SpanTreeView::triangleRect(int row) const {
    const int span = spanAtRow(row);
    const QRect r = rowRect(row);
    return QRect(4 + depth(span) * kIndent, r.top() + (kRowHeight - 12) / 2, 12, 12);
}

QRectF SpanTreeView::barRect(int span) const {
    const int row = rowOfSpan(span);
    if (row < 0) return {};
    const auto [from, to] = spanUs(span);
    const QRect r = rowRect(row);
    const double x0 = xOf(from), x1 = std::max(xOf(to), x0 + 1.0);
    return QRectF(x0, r.top() + 4, x1 - x0, kRowHeight - 8);
}

int SpanTreeView::rowAt(int y) const {
    if (y < kAxisHeight) return -1;
    const int row = (y - kAxisHeight + m_scroll->value()) / kRowHeight;
    return row < rowCount() ? row : -1;
}

QString SpanTreeView::labelFor(int span) const {
    if (!m_data || span < 0 || static_cast<std::size_t>(span) >= m_data->spans.size()) return {};
    const auto& s = m_data->spans[static_cast<std::size_t>(span)];
    return qtext(s.service) + QStringLiteral("  ") + qtext(s.operation);
}

std::span<const SpanPart> SpanTreeView::asyncParts(int span) const {
    if (!m_data || span < 0) return {};
    const auto& parts = m_data->async;
    const auto first = std::lower_bound(parts.begin(), parts.end(), span, [](const SpanPart& p, int s) { return p.span < s; });
    auto last = first;
    while (last != parts.end() && last->span == span) ++last;
    return {first, last};
}

QString SpanTreeView::tooltipFor(int span) const {
    if (!m_data || span < 0 || static_cast<std::size_t>(span) >= m_data->spans.size()) return {};
    const auto& s = m_data->spans[static_cast<std::size_t>(span)];
    const auto [from, to] = spanUs(span);
    QString text = QStringLiteral("<b>%1</b> %2<br>").arg(qtext(s.service).toHtmlEscaped(),
                                                          qtext(s.operation).toHtmlEscaped());
    text += tr("start +%1, duration %2").arg(formatDuration(from), formatDurationNs(s.endNs - s.startNs));
    const SpanCriticalTime* time = static_cast<std::size_t>(span) < m_data->times.spans.size() ? &m_data->times.spans[static_cast<std::size_t>(span)] : nullptr;
    text += QStringLiteral("<br>") + tr("self time %1").arg(formatDurationNs(time ? time->selfNs : kNoTime));
    if (time) text += QStringLiteral("<br>") + tr("critical %1").arg(formatDurationNs(time->criticalNs));
    TimeNs asyncNs = 0;
    for (const SpanPart& part : asyncParts(span)) asyncNs += part.endNs - part.startNs;
    if (asyncNs > 0) text += QStringLiteral("<br>") + tr("not waited for %1 (asynchronous: off the critical path)").arg(formatDurationNs(asyncNs));
    if (!s.host.empty()) text += QStringLiteral("<br>") + tr("host %1").arg(qtext(s.host).toHtmlEscaped());
    return text;
}

void SpanTreeView::updateScrollBar() {
    const int content = rowCount() * kRowHeight;
    const int view = std::max(0, height() - kAxisHeight);
    m_scroll->setVisible(content > view);
    m_scroll->setGeometry(width() - m_scroll->sizeHint().width(), kAxisHeight, m_scroll->sizeHint().width(), view);
    m_scroll->setRange(0, std::max(0, content - view));
    m_scroll->setPageStep(view);
    m_scroll->setSingleStep(kRowHeight);
}

void SpanTreeView::ensureVisible(int row) {
    if (row < 0) return;
    const int top = row * kRowHeight, view = std::max(kRowHeight, height() - kAxisHeight);
    if (top < m_scroll->value()) m_scroll->setValue(top);
    else if (top + kRowHeight > m_scroll->value() + view) m_scroll->setValue(top + kRowHeight - view);
}

void SpanTreeView::resizeEvent(QResizeEvent*) {
    m_labelWidth = std::clamp(m_labelWidth, 80, std::max(80, width() - 120));
    updateScrollBar();
}

void SpanTreeView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QFontMetrics fm(font());
    if (!m_data || m_data->spans.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No spans for this request"));
        return;
    }
    const int left = plotLeft(), right = plotRight();
    // Rows.
    const int firstRow = std::max(0, rowAt(kAxisHeight)), lastRow = rowAt(height() - 1) < 0 ? rowCount() - 1 : rowAt(height() - 1);
    const double step = axisTickStep(m_toUs - m_fromUs, right - left);
    for (int row = firstRow; row <= lastRow && row < rowCount(); ++row) {
        const int span = spanAtRow(row);
        const auto& s = m_data->spans[static_cast<std::size_t>(span)];
        const QRect r = rowRect(row);
        if (span == m_current) {
            QColor tint = palette::selection();
            tint.setAlpha(50);
            p.fillRect(QRect(0, r.top(), right, r.height()), tint);
        }
        else if (row % 2) p.fillRect(QRect(0, r.top(), right, r.height()), palette().alternateBase());
        const QColor colour = palette::forTask(qtext(s.service));
        // Label column: triangle, service swatch, service and operation, elided to the column.
        p.save();
        p.setClipRect(QRect(0, r.top(), m_labelWidth, r.height()));
        const QRect tri = triangleRect(row);
        if (hasChildren(span)) {
            QPainterPath path;
            if (isCollapsed(span)) {
                path.moveTo(tri.left() + 2, tri.top() + 1);
                path.lineTo(tri.right() - 1, tri.center().y());
                path.lineTo(tri.left() + 2, tri.bottom() - 1);
            } else {
                path.moveTo(tri.left() + 1, tri.top() + 3);
                path.lineTo(tri.right() - 1, tri.top() + 3);
                path.lineTo(tri.center().x(), tri.bottom() - 2);
            }
            path.closeSubpath();
            p.fillPath(path, palette().color(QPalette::Text));
        }
        p.fillRect(QRect(tri.right() + 4, r.top() + 5, 4, r.height() - 10), colour.darker(130));
        const int textX = tri.right() + 12;
        const QString service = qtext(s.service);
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        const int serviceWidth = QFontMetrics(bold).horizontalAdvance(service);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(textX, r.top(), m_labelWidth - textX - 4, r.height()), Qt::AlignVCenter | Qt::AlignLeft,
                   QFontMetrics(bold).elidedText(service, Qt::ElideRight, m_labelWidth - textX - 4));
        p.setFont(font());
        const int opX = textX + serviceWidth + 6;
        if (opX < m_labelWidth - 10) {
            p.setPen(palette().color(QPalette::PlaceholderText));
            p.drawText(QRect(opX, r.top(), m_labelWidth - opX - 4, r.height()), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(qtext(s.operation), Qt::ElideMiddle, m_labelWidth - opX - 4));
        }
        p.restore();
        // Bar, with its critical parts on top.
        p.save();
        p.setClipRect(QRect(left, r.top(), right - left, r.height()));
        const QRectF bar = barRect(span);
        p.fillRect(bar, colour);
        p.setPen(colour.darker(150));
        p.drawRect(bar.adjusted(0, 0, -1, -1));
        const TimeNs shift = m_local ? 0 : at<TimeNs>(m_data->clockOffsetNs, span, 0);
        for (const auto& [from, to] : m_data->times.criticalIntervals(static_cast<std::size_t>(span))) {
            const double x0 = xOf(static_cast<double>(from - shift - m_originNs) / 1000.0);
            const double x1 = std::max(xOf(static_cast<double>(to - shift - m_originNs) / 1000.0), x0 + 1.0);
            p.fillRect(QRectF(x0, bar.top() + bar.height() * 0.55, x1 - x0, bar.height() * 0.45), palette::critical());
        }
        // Work no caller waited for: hatched over the bar.
        for (const SpanPart& part : asyncParts(span)) {
            const double x0 = xOf(static_cast<double>(part.startNs - shift - m_originNs) / 1000.0);
            const double x1 = std::max(xOf(static_cast<double>(part.endNs - shift - m_originNs) / 1000.0), x0 + 1.0);
            p.fillRect(QRectF(x0, bar.top(), x1 - x0, bar.height()), QBrush(palette::asyncWork().darker(160), Qt::BDiagPattern));
        }
        // Duration beside the bar, where there is room.
        const QString duration = formatDurationNs(s.endNs - s.startNs);
        const int dw = fm.horizontalAdvance(duration);
        p.setPen(palette().color(QPalette::Text));
        if (bar.right() + 4 + dw < right) p.drawText(QPointF(bar.right() + 4, r.top() + (r.height() + fm.ascent() - fm.descent()) / 2.0), duration);
        else if (bar.left() - 4 - dw > left) p.drawText(QPointF(bar.left() - 4 - dw, r.top() + (r.height() + fm.ascent() - fm.descent()) / 2.0), duration);
        p.restore();
    }
    // Axis with gridlines.
    p.fillRect(QRect(0, 0, width(), kAxisHeight), palette().window());
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(8, 0, m_labelWidth - 8, kAxisHeight), Qt::AlignVCenter | Qt::AlignLeft,
               m_local ? tr("Span (recorded clocks)") : tr("Span (adjusted clocks)"));
    for (double t = std::ceil(m_fromUs / step) * step; t <= m_toUs; t += step) {
        const double x = xOf(t);
        if (x < left || x > right) continue;
        p.setPen(QColor(0, 0, 0, 30));
        p.drawLine(QPointF(x, kAxisHeight), QPointF(x, height()));
        p.setPen(palette().color(QPalette::Text));
        p.drawLine(QPointF(x, kAxisHeight - 5), QPointF(x, kAxisHeight));
        p.drawText(QPointF(x + 3, kAxisHeight - 8), formatAxisTick(t, step));
    }
    p.drawLine(0, kAxisHeight - 1, width(), kAxisHeight - 1);
    // The draggable divider between labels and bars.
    p.fillRect(QRect(m_labelWidth, 0, kDivider, height()), palette().mid());
}

void SpanTreeView::wheelEvent(QWheelEvent* e) {
    if (e->modifiers() & Qt::ControlModifier) {
        zoom(std::pow(0.8, e->angleDelta().y() / 120.0), e->position().x());
        return;
    }
    m_scroll->setValue(m_scroll->value() - e->angleDelta().y());
}

void SpanTreeView::mousePressEvent(QMouseEvent* e) {
    const QPoint pos = e->position().toPoint();
    if (e->button() != Qt::LeftButton) return;
    if (std::abs(pos.x() - (m_labelWidth + kDivider / 2)) <= kDivider) {
        m_draggingDivider = true;
        return;
    }
    const int row = rowAt(pos.y());
    const int span = spanAtRow(row);
    if (span >= 0 && hasChildren(span) && triangleRect(row).adjusted(-3, -3, 3, 3).contains(pos)) {
        setCollapsed(span, !isCollapsed(span));
        return;
    }
    // A click selects the span (on release); a drag pans the time axis and scrolls the rows.
    m_press = {true, false, pos, m_fromUs, m_toUs, m_scroll->value(), span};
}

void SpanTreeView::mouseMoveEvent(QMouseEvent* e) {
    const QPoint pos = e->position().toPoint();
    if (m_draggingDivider) {
        setLabelWidth(pos.x() - kDivider / 2);
        return;
    }
    if (m_press.active && (e->buttons() & Qt::LeftButton)) {
        const QPoint moved = pos - m_press.at;
        if (!m_press.dragged && moved.manhattanLength() < QApplication::startDragDistance()) return;
        m_press.dragged = true;
        setCursor(Qt::ClosedHandCursor);
        const double usPerPixel = (m_press.toUs - m_press.fromUs) / std::max(1, plotRight() - plotLeft());
        const double shift = -moved.x() * usPerPixel;
        setVisibleRange(m_press.fromUs + shift, m_press.toUs + shift);
        m_scroll->setValue(m_press.scroll - moved.y());
        return;
    }
    setCursor(std::abs(pos.x() - (m_labelWidth + kDivider / 2)) <= kDivider ? Qt::SplitHCursor : Qt::ArrowCursor);
}

void SpanTreeView::mouseReleaseEvent(QMouseEvent*) {
    m_draggingDivider = false;
    if (m_press.active && !m_press.dragged && m_press.span >= 0) setCurrentSpan(m_press.span);
    if (m_press.dragged) unsetCursor();
    m_press = {};
}

void SpanTreeView::keyPressEvent(QKeyEvent* e) {
    const int row = rowOfSpan(m_current);
    switch (e->key()) {
    case Qt::Key_Up:
        if (row > 0) setCurrentSpan(spanAtRow(row - 1));
        return;
    case Qt::Key_Down:
        if (row + 1 < rowCount()) setCurrentSpan(spanAtRow(row + 1));
        return;
    case Qt::Key_Home:
        setCurrentSpan(spanAtRow(0));
        return;
    case Qt::Key_PageUp:
    case Qt::Key_PageDown: {  // a page of rows
        const int page = std::max(1, (height() - kAxisHeight) / kRowHeight - 1);
        const int to = std::clamp(row + (e->key() == Qt::Key_PageDown ? page : -page), 0, rowCount() - 1);
        if (rowCount() > 0) setCurrentSpan(spanAtRow(to));
        return;
    }
    case Qt::Key_End:
        setCurrentSpan(spanAtRow(rowCount() - 1));
        return;
    case Qt::Key_Left:  // collapse; on a leaf or a collapsed span, go to the parent
        if (hasChildren(m_current) && !isCollapsed(m_current)) setCollapsed(m_current, true);
        else if (m_current >= 0 && m_data->spans[static_cast<std::size_t>(m_current)].parent >= 0 &&
                 m_data->spans[static_cast<std::size_t>(m_current)].parent < m_current)
            setCurrentSpan(m_data->spans[static_cast<std::size_t>(m_current)].parent);
        return;
    case Qt::Key_Right:  // expand; on an open span, go to its first child
        if (hasChildren(m_current) && isCollapsed(m_current)) setCollapsed(m_current, false);
        else if (hasChildren(m_current)) setCurrentSpan(static_cast<int>(m_children.of(static_cast<std::size_t>(m_current)).front()));
        return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoom(0.5, (plotLeft() + plotRight()) / 2.0);
        return;
    case Qt::Key_Minus:
        zoom(2.0, (plotLeft() + plotRight()) / 2.0);
        return;
    case Qt::Key_0:
        fit();
        return;
    default:
        QWidget::keyPressEvent(e);
    }
}

bool SpanTreeView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int span = spanAtRow(rowAt(help->pos().y()));
        if (span >= 0) QToolTip::showText(help->globalPos(), tooltipFor(span), this);
        else QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

} // namespace tracelight::widgets
