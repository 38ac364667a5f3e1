#include "FlowGraphView.h"

#include <QHelpEvent>
#include <optional>
#include <QToolTip>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <cmath>

#include "common/PlotExport.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

namespace {
const QColor kAdded(0x2f, 0x9e, 0x44);     // only in the first (problem) graph
const QColor kRemoved(0xe8, 0x59, 0x0c);   // only in the second (baseline) graph
const QColor kRed(0xc0, 0x39, 0x2b);       // a red edge: its latency changed
constexpr double kMargin = 12;
constexpr double kMinScale = 0.75;
QString mean(double ns) { return ns > 0 ? formatDurationNs(static_cast<TimeNs>(ns)) : QStringLiteral("–"); }
// "1.2 ms ± 0.3 ms", or "–" where the side lacks the node.
QString meanAndSpread(double meanNs, double varianceNs2) { return meanNs > 0 ? formatMeanAndSpreadNs(meanNs, varianceNs2) : mean(meanNs); }
} // namespace

FlowGraphView::FlowGraphView(Mode mode, QWidget* parent) : QWidget(parent), m_mode(mode) {
    setMinimumSize(200, 150);
    attachPictureExport(this, mode == Mode::Diff ? QStringLiteral("flow-graph-diff.png") : QStringLiteral("flow-graph.png"));
    setToolTip(mode == Mode::Diff ? tr("Green: only in the problem graph; orange, dashed: only in the baseline graph; "
                                       "red border: a red edge (its latency changed). Right-click to save.")
                                  : tr("Double-click to open this representative request; right-click to save the picture."));
}

void FlowGraphView::setDrawing(std::shared_ptr<const Drawing> drawing) {
    m_drawing = std::move(drawing);
    m_message.clear();
    // Shrunk to fit, but not past legibility: beyond that the view grows and its scroll area scrolls.
    if (m_drawing) {
        const QRectF b = m_drawing->layout.bounds;
        setMinimumSize(int(b.width() * kMinScale + 2 * kMargin), int(b.height() * kMinScale + 2 * kMargin));
        // A graph larger than the view opens at what changed, not at an empty corner.
        m_scrollPending = true;
        if (isVisible()) QTimer::singleShot(0, this, [this] { scrollToWhatMatters(); });
    }
    update();
}

void FlowGraphView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_scrollPending) QTimer::singleShot(0, this, [this] { scrollToWhatMatters(); });
}

void FlowGraphView::scrollToWhatMatters() {
    auto* area = parentWidget() ? qobject_cast<QScrollArea*>(parentWidget()->parentWidget()) : nullptr;
    if (!area || !m_drawing || m_drawing->layout.centers.empty() || !isVisible()) return;
    m_scrollPending = false;
    const auto& nodes = m_drawing->pair.nodes;
    const auto& centers = m_drawing->layout.centers;
    const QTransform t = viewTransform();
    // The first (topmost) node that matters, centred across and a third down: it and what leads to and from
    // it are in view whatever the pane's size.
    std::optional<QPointF> focus;
    for (std::size_t i = 0; i < nodes.size() && i < centers.size(); ++i) {
        const FlowNode& n = nodes[i];
        const bool matters = n.changed || (m_mode == Mode::Diff && n.inFirst != n.inSecond);
        if (!matters || !shows(n.inFirst, n.inSecond)) continue;
        const QPointF c = t.map(centers[i]);
        if (!focus || c.y() < focus->y()) focus = c;
    }
    if (!focus) focus = t.map(centers.front());  // nothing changed: the first segment
    const QSize view = area->viewport()->size();
    const double x = focus->x() - view.width() / 2.0, y = focus->y() - view.height() / 3.0;
    area->horizontalScrollBar()->setValue(int(x));
    area->verticalScrollBar()->setValue(int(y));
}

QPointF FlowGraphView::nodeCenter(std::size_t node) const {
    if (!m_drawing || node >= m_drawing->layout.centers.size()) return {};
    return viewTransform().map(m_drawing->layout.centers[node]);
}

bool FlowGraphView::isChangedNode(std::size_t node) const {
    return m_drawing && node < m_drawing->pair.nodes.size() && m_drawing->pair.nodes[node].changed;
}

QTransform FlowGraphView::viewTransform() const {
    // The whole merged layout fitted into the view (never enlarged), the same transform on every side.
    const QRectF b = m_drawing->layout.bounds;
    const double scale = std::min({1.0, (width() - 2 * kMargin) / b.width(), (height() - 2 * kMargin) / b.height()});
    QTransform t;
    t.translate(kMargin + (width() - 2 * kMargin - b.width() * scale) / 2, kMargin);
    t.scale(scale, scale);
    t.translate(-b.left(), -b.top());
    return t;
}

void FlowGraphView::setMessage(const QString& message) {
    m_drawing.reset();
    m_message = message;
    setMinimumSize(200, 150);
    update();
}

bool FlowGraphView::shows(bool inFirst, bool inSecond) const {
    switch (m_mode) {
    case Mode::First: return inFirst;
    case Mode::Second: return inSecond;
    default: return true;
    }
}

int FlowGraphView::drawnNodes() const {
    if (!m_drawing) return 0;
    int n = 0;
    for (const auto& node : m_drawing->pair.nodes) n += shows(node.inFirst, node.inSecond) ? 1 : 0;
    return n;
}

QString FlowGraphView::nodeText(const FlowNode& node) const {
    const QString label = QString::fromStdString(node.label);
    switch (m_mode) {
    case Mode::First: return label + QLatin1Char('\n') + mean(node.firstMeanNs);
    case Mode::Second: return label + QLatin1Char('\n') + mean(node.secondMeanNs);
    default: return label + QLatin1Char('\n') + mean(node.secondMeanNs) + QStringLiteral(" → ") + mean(node.firstMeanNs);
    }
}

std::shared_ptr<const FlowGraphView::Drawing> FlowGraphView::layOut(FlowGraphPair pair, double charWidth, double lineHeight) {
    auto d = std::make_shared<Drawing>();
    constexpr int kMeansChars = 19;  // "00.0 ms → 00.0 ms"
    constexpr int kMaxChars = 44;    // longer labels (span data's "service:operation:EVENT->EVENT") are elided; the tooltip has them
    for (const auto& node : pair.nodes) {
        const double chars = std::clamp<double>(static_cast<double>(QString::fromStdString(node.label).size()), kMeansChars, kMaxChars);
        d->input.nodes.push_back({chars * charWidth + 16, 2 * lineHeight + 10});
    }
    for (const auto& e : pair.edges) d->input.edges.push_back({static_cast<int>(e.from), static_cast<int>(e.to), 1.0});
    // Flows read top to bottom (as Spectroscope draws them, and a long chain fits a view's height better
    // than its width): the left-to-right layout of the transposed boxes, transposed back.
    GraphLayoutInput transposed = d->input;
    for (auto& n : transposed.nodes) std::swap(n.widthPx, n.heightPx);
    transposed.rankSepPx = 28;
    d->layout = layoutWithBudget(transposed);
    auto flip = [](QPointF& p) { p = QPointF(p.y(), p.x()); };
    for (auto& c : d->layout.centers) flip(c);
    for (auto& path : d->layout.edgePaths)
        for (auto& c : path) flip(c);
    d->layout.bounds = QRectF(d->layout.bounds.y(), d->layout.bounds.x(), d->layout.bounds.height(), d->layout.bounds.width());
    d->pair = std::move(pair);
    return d;
}

void FlowGraphView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setRenderHint(QPainter::Antialiasing);
    if (!m_drawing || m_drawing->layout.centers.size() != m_drawing->pair.nodes.size() || m_drawing->layout.bounds.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                   m_message.isEmpty() ? tr("Choose an entry to see its flow graphs.") : m_message);
        return;
    }
    const FlowGraphPair& pair = m_drawing->pair;
    const GraphLayoutResult& layout = m_drawing->layout;
    const GraphLayoutInput& in = m_drawing->input;
    p.setTransform(viewTransform());

    const QFontMetrics fm(font());
    for (std::size_t i = 0; i < pair.edges.size(); ++i) {
        const FlowEdge& e = pair.edges[i];
        if (!shows(e.inFirst, e.inSecond)) continue;
        QColor colour = palette().color(QPalette::Text);
        Qt::PenStyle style = Qt::SolidLine;
        if (m_mode == Mode::Diff && e.inFirst != e.inSecond) {
            colour = e.inFirst ? kAdded : kRemoved;
            style = e.inFirst ? Qt::SolidLine : Qt::DashLine;
        }
        p.setPen(QPen(colour, 1.4, style));
        QPainterPath path;
        const auto& ctrl = i < layout.edgePaths.size() ? layout.edgePaths[i] : std::vector<QPointF>{};
        QPointF end;
        if (ctrl.size() >= 4) {
            path.moveTo(ctrl[0]);
            for (std::size_t k = 1; k + 2 < ctrl.size(); k += 3) path.cubicTo(ctrl[k], ctrl[k + 1], ctrl[k + 2]);
            end = ctrl.back();
        } else {
            path.moveTo(layout.centers[e.from]);
            path.lineTo(layout.centers[e.to]);
            end = layout.centers[e.to];
        }
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        // The arrowhead along the path's last direction.
        const QPointF from = path.pointAtPercent(0.97);
        const double angle = std::atan2(end.y() - from.y(), end.x() - from.x());
        const QPointF a = end - QPointF(std::cos(angle - 0.4), std::sin(angle - 0.4)) * 8;
        const QPointF c = end - QPointF(std::cos(angle + 0.4), std::sin(angle + 0.4)) * 8;
        p.setBrush(colour);
        p.drawPolygon(QPolygonF{end, a, c});
    }
    for (std::size_t i = 0; i < pair.nodes.size(); ++i) {
        const FlowNode& n = pair.nodes[i];
        if (!shows(n.inFirst, n.inSecond)) continue;
        const QRectF box(layout.centers[i].x() - in.nodes[i].widthPx / 2, layout.centers[i].y() - in.nodes[i].heightPx / 2,
                         in.nodes[i].widthPx, in.nodes[i].heightPx);
        QColor fill(0xf1, 0xf3, 0xf5);
        QPen border(QColor(0x86, 0x8e, 0x96), 1);
        if (m_mode == Mode::Diff && n.inFirst != n.inSecond) {
            fill = (n.inFirst ? kAdded : kRemoved).lighter(175);
            border = QPen(n.inFirst ? kAdded : kRemoved, 1.5, n.inFirst ? Qt::SolidLine : Qt::DashLine);
        }
        if (n.changed) border = QPen(kRed, 2.5);
        p.setPen(border);
        p.setBrush(fill);
        p.drawRoundedRect(box, 4, 4);
        p.setPen(n.changed ? kRed : QColor(0x21, 0x25, 0x29));
        const QStringList lines = nodeText(n).split(QLatin1Char('\n'));
        QString text;
        for (const QString& line : lines) text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + fm.elidedText(line, Qt::ElideMiddle, int(box.width()) - 8);
        p.drawText(box.adjusted(4, 2, -4, -2), Qt::AlignCenter, text);
    }
}

int FlowGraphView::nodeAt(QPointF pos) const {
    if (!m_drawing) return -1;
    const QPointF at = viewTransform().inverted().map(pos);
    for (std::size_t i = 0; i < m_drawing->pair.nodes.size(); ++i) {
        const FlowNode& n = m_drawing->pair.nodes[i];
        if (!shows(n.inFirst, n.inSecond) || i >= m_drawing->layout.centers.size()) continue;
        const QPointF c = m_drawing->layout.centers[i];
        const auto& box = m_drawing->input.nodes[i];
        if (std::abs(at.x() - c.x()) <= box.widthPx / 2 && std::abs(at.y() - c.y()) <= box.heightPx / 2) return static_cast<int>(i);
    }
    return -1;
}

bool FlowGraphView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_drawing) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int i = nodeAt(help->pos());
        if (i < 0) {
            QToolTip::showText(help->globalPos(), toolTip(), this);
            return true;
        }
        const FlowNode& n = m_drawing->pair.nodes[static_cast<std::size_t>(i)];
        QString text = tr("<b>%1</b><br>baseline side: %2 · problem side: %3 (mean ± standard deviation)")
                           .arg(QString::fromStdString(n.label).toHtmlEscaped(), meanAndSpread(n.secondMeanNs, n.secondVarianceNs2),
                                meanAndSpread(n.firstMeanNs, n.firstVarianceNs2));
        if (n.inFirst != n.inSecond) text += n.inFirst ? tr("<br>only in the problem graph") : tr("<br>only in the baseline graph");
        if (n.changed) text += tr("<br><span style='color:#c0392b'>a red edge: its latency changed</span>");
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void FlowGraphView::mouseDoubleClickEvent(QMouseEvent*) {
    if (!m_drawing) return;
    const FlowGraphPair& pair = m_drawing->pair;
    if (m_mode == Mode::First && pair.firstRequest.isValid()) emit requestActivated(pair.firstRequest);
    if (m_mode == Mode::Second && pair.secondRequest.isValid()) emit requestActivated(pair.secondRequest);
}


} // namespace tracelight::widgets
