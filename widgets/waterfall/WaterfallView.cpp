#include "waterfall/WaterfallView.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QRubberBand>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "tracelight/analysis/Slack.h"

#include "common/QtText.h"
#include "common/Palette.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

namespace {
constexpr int kTaskRow = 20;
constexpr int kHostRow = 18;
constexpr int kCriticalRow = 24;

} // namespace

WaterfallView::WaterfallView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_scroll = new QScrollBar(Qt::Vertical, this);
    m_scroll->setVisible(false);
    connect(m_scroll, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
    m_rubber = new QRubberBand(QRubberBand::Rectangle, this);
}

void WaterfallView::setDependencies(const RequestDetail* detail, std::shared_ptr<const RequestDependencies> dependencies) {
    if (!m_detail || detail != m_detail.get()) return;  // another request came in meanwhile
    m_dependencies = std::move(dependencies);
    update();
}

std::span<const DagEdge> WaterfallView::dependencies() const {
    if (!m_detail) return {};
    if (!m_detail->dependenciesFollow) return m_detail->dag.edges;
    return m_dependencies ? std::span<const DagEdge>(m_dependencies->edges) : std::span<const DagEdge>();
}

void WaterfallView::setRequest(std::shared_ptr<const RequestDetail> detail) { takeRequest(std::move(detail), std::nullopt); }

void WaterfallView::setLocalClocks(bool local) {
    if (m_local == local) return;
    m_local = local;
    relayout();
    fit();
}

void WaterfallView::setRequest(std::shared_ptr<const RequestDetail> detail, WaterfallLayout layout) {
    const bool fits = detail && layout.localClocks == m_local && layout.segmentCount() == detail->dag.segments.size();
    takeRequest(std::move(detail), fits ? std::optional(std::move(layout)) : std::nullopt);
}

void WaterfallView::takeRequest(std::shared_ptr<const RequestDetail> detail, std::optional<WaterfallLayout> layout) {
    m_detail = std::move(detail);
    m_dependencies.reset();
    m_selected = -1;
    if (m_detail && layout) useLayout(std::move(*layout));
    else relayout();
    fit();
}

void WaterfallView::relayout() { useLayout(m_detail ? WaterfallLayout::build(*m_detail, m_local) : WaterfallLayout{}); }

void WaterfallView::useLayout(WaterfallLayout layout) {
    m_layout = std::move(layout);
    m_rowY.clear();
    int y = 0;
    for (const WaterfallRow& row : m_layout.rows) {
        m_rowY.push_back(y);
        y += row.kind == WaterfallRow::CriticalPath ? kCriticalRow + 6 : row.kind == WaterfallRow::Host ? kHostRow : kTaskRow;
    }
    m_rowY.push_back(y);  // the content's bottom
    updateScrollBar();
    update();
}

// From the tops alone: a paint over a million rows touches one array, not each row's record.
int WaterfallView::rowHeight(int row) const {
    return m_rowY[static_cast<std::size_t>(row) + 1] - m_rowY[static_cast<std::size_t>(row)];
}

int WaterfallView::contentHeight() const {
    return m_rowY.empty() ? 0 : m_rowY.back();
}

int WaterfallView::plotRight() const { return width() - (m_scroll->isVisible() ? m_scroll->width() : 0) - 8; }

void WaterfallView::updateScrollBar() {
    const int visible = height() - kAxisHeight - kLegendHeight;
    const int overflow = contentHeight() - visible;
    m_scroll->setVisible(overflow > 0);
    m_scroll->setRange(0, std::max(0, overflow));
    m_scroll->setPageStep(std::max(1, visible));
    m_scroll->setGeometry(width() - m_scroll->sizeHint().width(), kAxisHeight, m_scroll->sizeHint().width(), std::max(0, visible));
}

void WaterfallView::resizeEvent(QResizeEvent*) { updateScrollBar(); }

int WaterfallView::rowTop(int row) const { return kAxisHeight + m_rowY[static_cast<std::size_t>(row)] - m_scroll->value(); }

// The first and last lanes with a pixel in view (by binary search over the lane tops): rows above it end
// before the scroll position, rows below it start past the view's bottom.
std::pair<int, int> WaterfallView::rowsInView() const {
    if (m_rowY.size() < 2) return {0, -1};
    const int scroll = m_scroll->value(), contentBottom = height() - kLegendHeight - kAxisHeight + scroll;
    const int first = static_cast<int>(std::lower_bound(m_rowY.begin() + 1, m_rowY.end(), scroll) - (m_rowY.begin() + 1));
    const int last = static_cast<int>(std::upper_bound(m_rowY.begin(), m_rowY.end() - 1, contentBottom) - m_rowY.begin()) - 1;
    return {first, last};
}

int WaterfallView::rowAtY(int y) const {
    if (y < kAxisHeight || y > height() - kLegendHeight) return -1;
    const int contentY = y - kAxisHeight + m_scroll->value();
    auto it = std::upper_bound(m_rowY.begin(), m_rowY.end(), contentY);
    if (it == m_rowY.begin() || it == m_rowY.end()) return -1;
    return static_cast<int>(it - m_rowY.begin()) - 1;
}

double WaterfallView::xOf(double us) const {
    return plotLeft() + (us - m_fromUs) / (m_toUs - m_fromUs) * (plotRight() - plotLeft());
}
double WaterfallView::usAt(double x) const {
    return m_fromUs + (x - plotLeft()) / std::max(1, plotRight() - plotLeft()) * (m_toUs - m_fromUs);
}

void WaterfallView::setVisibleRange(double fromUs, double toUs) {
    if (!(toUs > fromUs)) toUs = fromUs + 1;
    const double minimumSpan = 0.05;  // 50 ns: below that, float time stops meaning anything
    if (toUs - fromUs < minimumSpan) toUs = fromUs + minimumSpan;
    m_fromUs = fromUs;
    m_toUs = toUs;
    emit visibleRangeChanged(m_fromUs, m_toUs);
    update();
}

void WaterfallView::fit() {
    const double span = std::max(1.0, m_layout.spanUs);
    double lo = 0, hi = span;
    if (m_detail && m_layout.segmentCount() > 0) {  // compared in nanoseconds, converted once
        TimeNs first = m_layout.startNs(*m_detail, 0), last = m_layout.endNs(*m_detail, 0);
        for (std::size_t s = 1; s < m_layout.segmentCount(); ++s) {
            first = std::min(first, m_layout.startNs(*m_detail, s));
            last = std::max(last, m_layout.endNs(*m_detail, s));
        }
        lo = std::min(lo, nsToUs(first - m_layout.originNs));
        hi = std::max(hi, nsToUs(last - m_layout.originNs));
    }
    const double margin = (hi - lo) * 0.02;
    setVisibleRange(lo - margin, hi + margin);
}

void WaterfallView::zoom(double factor, double anchorX) {
    const double anchor = usAt(anchorX);
    setVisibleRange(anchor - (anchor - m_fromUs) * factor, anchor + (m_toUs - anchor) * factor);
}

void WaterfallView::selectSegment(int segment) {
    m_selected = segment;
    update();
}

QRectF WaterfallView::segmentRect(int s) const {
    if (!m_detail || s < 0 || s >= static_cast<int>(m_layout.segmentCount())) return {};
    const int row = m_layout.fromRow[static_cast<std::size_t>(s)];
    const double x0 = xOf(startUs(static_cast<std::size_t>(s)));
    const double x1 = xOf(endUs(static_cast<std::size_t>(s)));
    const int top = rowTop(row);
    return QRectF(x0, top + 3, std::max(1.0, x1 - x0), rowHeight(row) - 6);
}

int WaterfallView::segmentAt(const QPoint& pos) const {
    if (!m_detail || pos.x() < plotLeft() || pos.x() > plotRight()) return -1;
    const int row = rowAtY(pos.y());
    const double t = usAt(pos.x());
    const double tolerance = (m_toUs - m_fromUs) / std::max(1, plotRight() - plotLeft()) * 2;  // 2 px
    if (row >= 0) {
        const auto segs = m_layout.segments(static_cast<std::size_t>(row));
        auto it = std::lower_bound(segs.begin(), segs.end(), t - tolerance,
                                   [&](int s, double v) { return endUs(static_cast<std::size_t>(s)) < v; });
        int best = -1;
        double bestDistance = tolerance;
        for (; it != segs.end() && startUs(static_cast<std::size_t>(*it)) <= t + tolerance; ++it) {
            const auto s = static_cast<std::size_t>(*it);
            const double d = t < startUs(s) ? startUs(s) - t : (t > endUs(s) ? t - endUs(s) : 0);
            if (d <= bestDistance) bestDistance = d, best = *it;
        }
        if (best >= 0) return best;
    }
    // Network connectors: closest line within 4 px.
    int best = -1;
    double bestDistance = 4.0;
    for (int s : m_layout.networkByStart) {
        const auto i = static_cast<std::size_t>(s);
        if (startUs(i) > t + tolerance) break;
        if (endUs(i) < t - tolerance) continue;
        const QPointF a(xOf(startUs(i)), rowTop(m_layout.fromRow[i]) + rowHeight(m_layout.fromRow[i]) / 2.0);
        const QPointF b(xOf(endUs(i)), rowTop(m_layout.toRow[i]) + rowHeight(m_layout.toRow[i]) / 2.0);
        if (pos.y() < std::min(a.y(), b.y()) - bestDistance || pos.y() > std::max(a.y(), b.y()) + bestDistance) continue;
        const QPointF ab = b - a, ap = QPointF(pos) - a;
        const double len2 = QPointF::dotProduct(ab, ab);
        const double u = len2 > 0 ? std::clamp(QPointF::dotProduct(ap, ab) / len2, 0.0, 1.0) : 0.0;
        const QPointF closest = a + u * ab;
        const double d = std::hypot(pos.x() - closest.x(), pos.y() - closest.y());
        if (d <= bestDistance) bestDistance = d, best = s;
    }
    return best;
}

QString WaterfallView::tooltipFor(int s) const {
    const auto i = static_cast<std::size_t>(s);
    const RequestDetail& d = *m_detail;
    QString text = QStringLiteral("<b>%1</b><br>").arg(QString::fromStdString(d.segmentName(i)).toHtmlEscaped());
    text += tr("duration %1").arg(formatDuration(endUs(i) - startUs(i)));
    if (const auto part = m_layout.criticalPart.find(s); d.critical[i] && part != m_layout.criticalPart.end())
        text += tr(" · <b>%1 of it on the critical path</b> (the rest was not waited for)")
                    .arg(formatDurationNs(part->second.second - part->second.first));
    else
        text += d.critical[i] ? tr(" · <b>on the critical path</b>")
                : d.slackNs[i] == kUnboundedSlack ? tr(" · not waited for (asynchronous: no slack limit)")
                                                  : tr(" · slack %1").arg(formatDurationNs(d.slackNs[i]));
    text += QStringLiteral("<br>");
    const QString from = QString::fromStdString(d.hosts[d.segmentStartHost[i]]);
    const QString to = QString::fromStdString(d.hosts[d.segmentEndHost[i]]);
    text += from == to ? tr("host %1").arg(from) : tr("network %1 → %2").arg(from, to);
    text += tr("<br>starts at %1").arg(formatDuration(startUs(i)));
    if (!d.attributes.empty()) {
        QStringList attrs;
        for (const auto& [k, v] : d.attributes) attrs << QString::fromStdString(k + "=" + v).toHtmlEscaped();
        text += QStringLiteral("<br><i>%1</i>").arg(attrs.join(QStringLiteral(", ")));
    }
    return text;
}

bool WaterfallView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int s = segmentAt(help->pos());
        // Over a lane's name, the whole name (the gutter shortens long ones in the middle).
        const int row = s < 0 && help->pos().x() < kGutter && m_detail ? rowAtY(help->pos().y()) : -1;
        if (s >= 0) QToolTip::showText(help->globalPos(), tooltipFor(s), this);
        else if (row >= 0 && row < static_cast<int>(m_layout.rows.size()))
            QToolTip::showText(help->globalPos(), WaterfallLayout::label(*m_detail, m_layout.rows[static_cast<std::size_t>(row)]), this);
        else QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void WaterfallView::wheelEvent(QWheelEvent* e) {
    if (e->modifiers() & Qt::ShiftModifier) {
        m_scroll->setValue(m_scroll->value() - e->angleDelta().y());
        return;
    }
    const double steps = e->angleDelta().y() / 120.0;
    zoom(std::pow(0.8, steps), e->position().x());
}

void WaterfallView::mousePressEvent(QMouseEvent* e) {
    m_pressPos = e->pos();
    if (e->button() == Qt::LeftButton) {
        m_banding = true;
        m_rubber->setGeometry(QRect(m_pressPos, QSize()));
    } else if (e->button() == Qt::RightButton || e->button() == Qt::MiddleButton) {
        m_panning = true;
        m_panFromUs = m_fromUs;
        setCursor(Qt::ClosedHandCursor);
    }
}

void WaterfallView::mouseMoveEvent(QMouseEvent* e) {
    if (m_panning) {
        const double dx = e->pos().x() - m_pressPos.x();
        const double perPixel = (m_toUs - m_fromUs) / std::max(1, plotRight() - plotLeft());
        const double span = m_toUs - m_fromUs;
        const double from = m_panFromUs - dx * perPixel;
        setVisibleRange(from, from + span);
    } else if (m_banding && (e->pos() - m_pressPos).manhattanLength() > 4) {
        m_rubber->setGeometry(QRect(QPoint(m_pressPos.x(), kAxisHeight), QPoint(e->pos().x(), height() - kLegendHeight)).normalized());
        m_rubber->show();
    }
}

void WaterfallView::mouseReleaseEvent(QMouseEvent* e) {
    if (m_panning) {
        m_panning = false;
        unsetCursor();
        return;
    }
    if (!m_banding) return;
    m_banding = false;
    if (m_rubber->isVisible()) {
        m_rubber->hide();
        const int x0 = std::min(m_pressPos.x(), e->pos().x()), x1 = std::max(m_pressPos.x(), e->pos().x());
        if (x1 - x0 > 4) setVisibleRange(usAt(x0), usAt(x1));
        return;
    }
    const int s = segmentAt(e->pos());
    selectSegment(s);
    if (s >= 0) emit segmentClicked(s);
}

void WaterfallView::mouseDoubleClickEvent(QMouseEvent*) { fit(); }

void WaterfallView::keyPressEvent(QKeyEvent* e) {
    const double span = m_toUs - m_fromUs;
    const double centre = (plotLeft() + plotRight()) / 2.0;
    switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoom(0.5, centre); break;
    case Qt::Key_Minus: zoom(2.0, centre); break;
    case Qt::Key_0:
    case Qt::Key_F: fit(); break;
    case Qt::Key_Left: setVisibleRange(m_fromUs - span * 0.2, m_toUs - span * 0.2); break;
    case Qt::Key_Right: setVisibleRange(m_fromUs + span * 0.2, m_toUs + span * 0.2); break;
    case Qt::Key_Escape: selectSegment(-1); break;
    default: QWidget::keyPressEvent(e);
    }
}

void WaterfallView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    m_stats = {};
    if (!m_detail) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Select a request to see its waterfall."));
        return;
    }
    p.save();
    p.setClipRect(QRect(0, kAxisHeight, width(), height() - kAxisHeight - kLegendHeight));
    paintRows(p);
    paintNetwork(p);
    paintSelection(p);
    p.restore();
    paintAxis(p);
    paintLegend(p);
}

void WaterfallView::paintAxis(QPainter& p) {
    p.fillRect(QRect(0, 0, width(), kAxisHeight), palette().window());
    const double step = axisTickStep(m_toUs - m_fromUs, plotRight() - plotLeft());
    p.setPen(palette().color(QPalette::WindowText));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    p.setFont(small);
    for (double t = std::ceil(m_fromUs / step) * step; t <= m_toUs; t += step) {
        const double x = xOf(t);
        p.drawLine(QPointF(x, kAxisHeight - 6), QPointF(x, kAxisHeight));
        p.drawText(QRectF(x - 60, 2, 120, kAxisHeight - 8), Qt::AlignCenter, formatAxisTick(t, step));
    }
    p.drawLine(0, kAxisHeight - 1, width(), kAxisHeight - 1);
    p.drawText(QRect(6, 2, kGutter - 10, kAxisHeight - 6), Qt::AlignVCenter | Qt::AlignLeft,
               m_local ? tr("time (local clocks)") : tr("time since request start"));
}

void WaterfallView::paintRows(QPainter& p) {
    // xOf's transform with its operands read once: the fitted view of a million-span trace visits
    // hundreds of thousands of segments per frame.
    const double left = plotLeft(), plotWidth = plotRight() - plotLeft(), from = m_fromUs, span = m_toUs - m_fromUs;
    auto xAt = [&](double us) { return left + (us - from) / span * plotWidth; };
    const RequestDetail& d = *m_detail;
    const int top = kAxisHeight, bottom = height() - kLegendHeight;
    const QColor gridText = palette().color(QPalette::WindowText);
    QFont boldFont = font();
    boldFont.setBold(true);
    const QFontMetrics fm(font());

    // Gridlines under everything.
    const double step = axisTickStep(m_toUs - m_fromUs, plotRight() - plotLeft());
    p.setPen(QColor(0, 0, 0, 18));
    for (double t = std::ceil(m_fromUs / step) * step; t <= m_toUs; t += step) p.drawLine(QPointF(xAt(t), top), QPointF(xAt(t), bottom));

    const auto [firstInView, lastInView] = rowsInView();
    for (int r = firstInView; r <= lastInView; ++r) {
        const int y = rowTop(r);
        const int h = rowHeight(r);
        const WaterfallRow& row = m_layout.rows[static_cast<std::size_t>(r)];
        if (row.kind == WaterfallRow::Host) {
            p.fillRect(QRect(0, y, width(), h), palette().alternateBase());
            p.setFont(boldFont);
            p.setPen(gridText);
            // Measured in the bold font it is drawn in (the normal one let the name run past the gutter).
            p.drawText(QRect(6, y, kGutter - 10, h), Qt::AlignVCenter | Qt::AlignLeft,
                       QFontMetrics(boldFont).elidedText(WaterfallLayout::label(d, row), Qt::ElideMiddle, kGutter - 12));
            p.setFont(font());
            continue;
        }
        if (row.kind == WaterfallRow::CriticalPath) {
            p.fillRect(QRect(0, y, width(), h), QColor(0xff, 0xf4, 0xe6));
            p.setPen(QColor(0, 0, 0, 40));
            p.drawLine(0, y + h - 1, width(), y + h - 1);
        }
        p.setPen(gridText);
        p.setFont(row.kind == WaterfallRow::CriticalPath ? boldFont : font());
        const int indent = row.kind == WaterfallRow::Task ? 18 : 6;
        p.drawText(QRect(indent, y, kGutter - indent - 4, h), Qt::AlignVCenter | Qt::AlignLeft,
                   p.fontMetrics().elidedText(WaterfallLayout::label(d, row), Qt::ElideMiddle, kGutter - indent - 6));
        p.setFont(font());
        p.save();
        p.setClipRect(QRect(plotLeft(), std::max(top, y), plotRight() - plotLeft() + 1, h), Qt::IntersectClip);

        const int barTop = y + 3, barHeight = h - 6;
        if (row.kind == WaterfallRow::CriticalPath) {
            // Blind time: hatched, where no segment covers the path.
            for (const auto& b : d.criticalPath.blind) {
                const TimeNs origin = m_local ? 0 : d.dag.startNs;
                const double x0 = xAt(nsToUs(b.startNs - origin)), x1 = xAt(nsToUs(b.startNs - origin + b.durationNs));
                if (x1 < plotLeft() || x0 > plotRight()) continue;
                p.fillRect(QRectF(x0, barTop, std::max(1.0, x1 - x0), barHeight), QBrush(palette::blind(), Qt::BDiagPattern));
            }
        }
        // Visible segments: the row is sorted by start and its segments do not overlap, so ends are sorted too.
        const auto segs = m_layout.segments(static_cast<std::size_t>(r));
        auto first = std::lower_bound(segs.begin(), segs.end(), m_fromUs,
                                      [&](int s, double v) { return endUs(static_cast<std::size_t>(s)) < v; });
        double foldStart = -1, foldEnd = -1;
        int foldCount = 0;
        auto flushFold = [&] {
            if (foldCount == 0) return;
            const QRectF r(foldStart, barTop + 2, std::max(2.0, foldEnd - foldStart), barHeight - 4);
            p.fillRect(r, QBrush(palette::folded(), Qt::Dense4Pattern));
            if (foldCount > 1) {
                const QString label = QString::number(foldCount);
                if (fm.horizontalAdvance(label) + 4 < r.width()) {
                    p.setPen(gridText);
                    p.drawText(r, Qt::AlignCenter, label);
                }
                ++m_stats.foldedMarks;
                m_stats.foldedSegments += foldCount;
            } else {
                ++m_stats.bars;
            }
            foldCount = 0;
        };
        // A block whose segments are all narrower, and closer to the one before, than a fold's limit (with a
        // margin for rounding) joins the fold whole once its first segment has: the same marks and counts
        // as one segment at a time.
        const double pxPerUs = plotWidth / span, limitUs = (kFoldPx - 1e-3) / pxPerUs;
        const std::size_t rowBlocks = m_layout.blockBegin.empty() ? 0 : m_layout.blockBegin[static_cast<std::size_t>(r)];
        for (auto it = first; it != segs.end(); ++it) {
            const auto s = static_cast<std::size_t>(*it);
            if (startUs(s) > m_toUs) break;
            const double x0 = xAt(startUs(s)), x1 = xAt(endUs(s));
            if (x1 - x0 < kFoldPx) {
                // Fold: a run of narrow bars closer together than a few pixels becomes one mark.
                if (foldCount > 0 && x0 - foldEnd > kFoldPx) flushFold();
                if (foldCount == 0) foldStart = x0;
                foldEnd = std::max(foldEnd, x1);
                if (foldCount == 0) foldEnd = x1;
                ++foldCount;
                const auto i = static_cast<std::size_t>(it - segs.begin());
                if (i % WaterfallLayout::kBlock == 0 && rowBlocks + i / WaterfallLayout::kBlock < m_layout.blockLongestUs.size()) {
                    const std::size_t block = rowBlocks + i / WaterfallLayout::kBlock;
                    const std::size_t last = std::min(i + WaterfallLayout::kBlock, segs.size()) - 1;
                    if (last > i && m_layout.blockLongestUs[block] < limitUs && m_layout.blockWidestGapUs[block] < limitUs &&
                        startUs(static_cast<std::size_t>(segs[last])) <= m_toUs) {
                        foldCount += static_cast<int>(last - i);
                        foldEnd = std::max(foldEnd, xAt(m_layout.blockLastEndUs[block]));
                        it += static_cast<std::ptrdiff_t>(last - i);
                    }
                }
                continue;
            }
            flushFold();
            // A segment only partly on the path (a child past its parent's end) is drawn as the work it was,
            // with its critical part over it.
            const auto part = d.critical[s] ? m_layout.criticalPart.find(static_cast<int>(s)) : m_layout.criticalPart.end();
            const bool clipped = part != m_layout.criticalPart.end();
            const bool critical = d.critical[s] && !clipped;
            const QColor fill = critical ? palette::critical() : palette::forTask(qtext(d.task(d.segmentTask[s])));
            if (!critical && d.slackNs[s] > 0 && d.slackNs[s] != kUnboundedSlack) {  // asynchronous work: no band
                const double xs = xAt(endUs(s) + nsToUs(d.slackNs[s]));
                p.fillRect(QRectF(x1, barTop + barHeight * 0.3, xs - x1, barHeight * 0.4), palette::slack());
            }
            const QRectF bar(x0, barTop, x1 - x0, barHeight);
            p.fillRect(bar, fill);
            if (clipped) {
                const double a = xAt(nsToUs(part->second.first - m_layout.originNs)), b = xAt(nsToUs(part->second.second - m_layout.originNs));
                p.fillRect(QRectF(a, barTop, b - a, barHeight), palette::critical());
            }
            p.setPen(critical ? palette::criticalOutline() : fill.darker(140));
            p.drawRect(bar.adjusted(0, 0, -0.5, -0.5));
            const QString name = row.kind == WaterfallRow::CriticalPath ? QString::fromStdString(d.segmentName(s))
                                                                        : QString::fromStdString(d.segmentEvents(s));  // the lane names the task
            if (bar.width() > 30) {
                p.setPen(critical ? Qt::white : Qt::black);
                const QRectF textRect = bar.intersected(QRectF(plotLeft(), bar.top(), plotRight() - plotLeft(), bar.height())).adjusted(3, 0, -2, 0);
                p.drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(name, Qt::ElideMiddle, static_cast<int>(textRect.width())));
            }
            ++m_stats.bars;
        }
        flushFold();
        p.restore();
    }
    // Gutter separator.
    p.setPen(QColor(0, 0, 0, 50));
    p.drawLine(kGutter - 2, top, kGutter - 2, bottom);
}

void WaterfallView::paintNetwork(QPainter& p) {
    // xOf's transform with its operands read once: the fitted view of a million-span trace visits
    // hundreds of thousands of segments per frame.
    const double left = plotLeft(), plotWidth = plotRight() - plotLeft(), from = m_fromUs, span = m_toUs - m_fromUs;
    auto xAt = [&](double us) { return left + (us - from) / span * plotWidth; };
    const RequestDetail& d = *m_detail;
    p.save();
    p.setClipRect(QRect(plotLeft(), kAxisHeight, plotRight() - plotLeft() + 1, height() - kAxisHeight - kLegendHeight));
    p.setRenderHint(QPainter::Antialiasing, m_layout.networkByStart.size() < 5000);
    // A line between two rows both above the view, or both below it, never enters it: with a million
    // spans nearly every network segment is such a line.
    // Against the lanes in view the test is two integer comparisons per line, made before its times are
    // looked up; the lines starting after the view are cut off once, by a binary search.
    const auto [firstRow, lastRow] = rowsInView();
    const auto& network = m_layout.networkByStart;
    const auto pastView = std::partition_point(network.begin(), network.end(), [&](int s) { return startUs(static_cast<std::size_t>(s)) <= m_toUs; });
    for (auto it = network.begin(); it != pastView; ++it) {
        const auto i = static_cast<std::size_t>(*it);
        const int fromRow = m_layout.fromRow[i], toRow = m_layout.toRow[i];
        if ((fromRow < firstRow && toRow < firstRow) || (fromRow > lastRow && toRow > lastRow)) continue;
        if (endUs(i) < m_fromUs) continue;
        const QPointF a(xAt(startUs(i)), rowTop(m_layout.fromRow[i]) + rowHeight(m_layout.fromRow[i]) / 2.0);
        const QPointF b(xAt(endUs(i)), rowTop(m_layout.toRow[i]) + rowHeight(m_layout.toRow[i]) / 2.0);
        const bool critical = d.critical[i];
        p.setPen(QPen(critical ? palette::critical() : palette::network(), critical ? 2.2 : 1.0, critical ? Qt::SolidLine : Qt::DashLine));
        p.drawLine(a, b);
        // Arrowhead at the receiving end.
        const QPointF dir = b - a;
        const double len = std::hypot(dir.x(), dir.y());
        if (len > 8) {
            const QPointF u = dir / len, n(-u.y(), u.x());
            QPolygonF head({b, b - u * 7 + n * 3.5, b - u * 7 - n * 3.5});
            p.setBrush(critical ? palette::critical() : palette::network());
            p.drawPolygon(head);
        }
        ++m_stats.bars;
    }
    p.restore();
}

void WaterfallView::paintSelection(QPainter& p) {
    if (m_selected < 0 || !m_detail) return;
    const RequestDetail& d = *m_detail;
    const auto sel = static_cast<std::uint32_t>(m_selected);
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    auto anchor = [&](std::uint32_t s, bool atEnd) {
        const int row = atEnd ? m_layout.toRow[s] : m_layout.fromRow[s];
        return QPointF(xOf(atEnd ? endUs(s) : startUs(s)), rowTop(row) + rowHeight(row) / 2.0);
    };
    // Its dependencies: incoming edges end at its start, outgoing ones leave from its end.
    for (const DagEdge& e : dependencies()) {
        if (e.to != sel && e.from != sel) continue;
        const QPointF a = anchor(e.from, true), b = anchor(e.to, false);
        QColor c = e.kind == EdgeKind::MutualExclusion ? palette::mutualExclusion()
                   : e.kind == EdgeKind::Pipeline       ? palette::pipeline()
                                                        : palette::selection();
        p.setPen(QPen(c, 1.6));
        QPainterPath path(a);
        const double bend = std::max(20.0, std::fabs(b.x() - a.x()) / 3);
        path.cubicTo(a + QPointF(bend, 0), b - QPointF(bend, 0), b);
        p.drawPath(path);
        p.setBrush(c);
        p.drawEllipse(b, 3, 3);
    }
    const QRectF r = segmentRect(m_selected);
    p.setPen(QPen(palette::selection(), 2));
    p.setBrush(Qt::NoBrush);
    if (d.segmentStartHost[sel] == d.segmentEndHost[sel]) p.drawRect(r.adjusted(-2, -2, 2, 2));
    p.restore();
}

void WaterfallView::paintLegend(QPainter& p) {
    const int y = height() - kLegendHeight;
    p.fillRect(QRect(0, y, width(), kLegendHeight), palette().window());
    p.setPen(QColor(0, 0, 0, 40));
    p.drawLine(0, y, width(), y);
    int x = 8;
    auto swatch = [&](const QBrush& brush, const QString& label) {
        p.fillRect(QRect(x, y + 6, 16, 10), brush);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(x + 20, y, 400, kLegendHeight), Qt::AlignVCenter | Qt::AlignLeft, label);
        x += 26 + fontMetrics().horizontalAdvance(label);
    };
    swatch(palette::critical(), tr("critical path"));
    swatch(palette::forTask(QStringLiteral("task")), tr("other segment (colour = task)"));
    swatch(QColor(palette::slack().red(), palette::slack().green(), palette::slack().blue(), 140), tr("slack"));
    swatch(QBrush(palette::blind(), Qt::BDiagPattern), tr("blind time"));
    swatch(QBrush(palette::folded(), Qt::Dense4Pattern), tr("folded (count)"));
    p.setPen(QPen(palette::network(), 1, Qt::DashLine));
    p.drawLine(x, y + 11, x + 16, y + 11);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(x + 20, y, 300, kLegendHeight), Qt::AlignVCenter | Qt::AlignLeft, tr("network"));
    if (m_detail && !m_detail->analysed)
        p.drawText(QRect(0, y, width() - 8, kLegendHeight), Qt::AlignVCenter | Qt::AlignRight, tr("not analysed: task order only, local clocks"));
}

} // namespace tracelight::widgets
