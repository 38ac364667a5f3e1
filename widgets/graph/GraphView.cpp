#include "graph/GraphView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEventLoop>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QContextMenuEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSettings>
#include <QSlider>
#include <QStackedWidget>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTextBrowser>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>
#include <limits>
#include <map>
#include <qcustomplot.h>

#include "common/JobRunner.h"
#include "common/Palette.h"
#include "common/TimeFormat.h"
#include "graph/ServiceMapView.h"

namespace tracelight::widgets {

namespace {
// Three short lines fit a layered layout better than one long one: task, start event, end event.
QStringList nodeLines(const SegmentTypeStats& t, bool collapsed = false) {
    if (collapsed) return {QString::fromStdString(t.task), QString::fromStdString(t.startEvent), QString::fromStdString(t.endEvent)};
    return {QString::fromStdString(t.task), QString::fromStdString(t.startEvent) + QStringLiteral(" →"), QString::fromStdString(t.endEvent)};
}
}

GraphView::GraphView(QWidget* parent) : QWidget(parent), m_layoutJob(new JobRunner(this)) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void GraphView::setGraph(std::shared_ptr<const ModelGraph> graph, bool collapseTasks) {
    m_source = std::move(graph);
    if (m_source) {
        // Claim colours in task order of the model, so neighbouring tasks are told apart.
        for (const auto& t : m_source->types) palette::forTask(QString::fromStdString(t.task));
    }
    std::set<std::string> kept;
    if (m_source)
        for (const auto& t : m_source->types)
            if (collapseTasks || m_collapsed.count(t.task)) kept.insert(t.task);
    m_collapsed = std::move(kept);
    rebuildDisplay();
}

void GraphView::setTaskCollapsed(const QString& task, bool collapsed) {
    const std::string t = task.toStdString();
    if (collapsed ? !m_collapsed.insert(t).second : m_collapsed.erase(t) == 0) return;
    rebuildDisplay();
}

void GraphView::setAllTasksCollapsed(bool collapsed) {
    m_collapsed.clear();
    if (collapsed && m_source)
        for (const auto& t : m_source->types) m_collapsed.insert(t.task);
    rebuildDisplay();
}

int GraphView::collapsedMembers(int node) const {
    return node >= 0 && node < static_cast<int>(m_members.size()) ? m_members[static_cast<std::size_t>(node)] : 0;
}

int GraphView::nodeForType(std::uint32_t sourceType) const {
    return sourceType < m_displayOf.size() ? m_displayOf[sourceType] : -1;
}

void GraphView::rebuildDisplay() {
    m_selected = -1;
    m_members.clear();
    m_displayOf.clear();
    if (!m_source || m_collapsed.empty()) {
        m_graph = m_source;
        if (m_source) {
            m_members.assign(m_source->types.size(), 1);
            m_displayOf.resize(m_source->types.size());
            for (std::size_t i = 0; i < m_displayOf.size(); ++i) m_displayOf[i] = static_cast<int>(i);
        }
    } else {
        // One node per collapsed task (at its first type's place in the order), the other types as they are.
        auto g = std::make_shared<ModelGraph>();
        g->requests = m_source->requests;
        g->supportFloor = m_source->supportFloor;
        g->convergence = m_source->convergence;
        std::map<std::string, int> taskNode, typesOfTask;
        for (const auto& t : m_source->types) ++typesOfTask[t.task];
        for (const auto& t : m_source->types) {
            int node = -1;
            if (m_collapsed.count(t.task) && typesOfTask[t.task] > 1) {  // a task of one type stays as it is
                auto [it, inserted] = taskNode.try_emplace(t.task, static_cast<int>(g->types.size()));
                node = it->second;
                if (inserted) {
                    SegmentTypeStats merged;
                    merged.task = t.task;
                    g->types.push_back(merged);
                    m_members.push_back(0);
                }
                auto& m = g->types[static_cast<std::size_t>(node)];
                // The task's time adds up over its segment types; counts of requests are at least the largest.
                m.occurrences = std::max(m.occurrences, t.occurrences);
                m.criticalCount = std::max(m.criticalCount, t.criticalCount);
                m.meanDurationNs += t.meanDurationNs;
                m.meanCriticalNs += t.meanCriticalNs;
                m.networkShare = std::max(m.networkShare, t.networkShare);
                ++m_members[static_cast<std::size_t>(node)];
            } else {
                node = static_cast<int>(g->types.size());
                g->types.push_back(t);
                m_members.push_back(1);
            }
            m_displayOf.push_back(node);
        }
        for (std::size_t i = 0; i < g->types.size(); ++i)
            if (m_members[i] > 1) {
                g->types[i].startEvent = tr("%L1 segment types").arg(m_members[i]).toStdString();
                g->types[i].endEvent = tr("(collapsed)").toStdString();
            }
        auto merge = [&](const std::vector<ModelGraph::Edge>& in, std::vector<ModelGraph::Edge>& out, bool unordered) {
            std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> index;
            for (const auto& e : in) {
                auto a = static_cast<std::uint32_t>(m_displayOf[e.from]), b = static_cast<std::uint32_t>(m_displayOf[e.to]);
                if (a == b) continue;  // inside a collapsed task
                if (unordered && a > b) std::swap(a, b);
                auto [it, inserted] = index.try_emplace({a, b}, out.size());
                if (inserted) out.push_back({a, b, e.support, e.confirmed});
                else {
                    out[it->second].support = std::max(out[it->second].support, e.support);
                    out[it->second].confirmed = out[it->second].confirmed || e.confirmed;
                }
            }
        };
        merge(m_source->happensBefore, g->happensBefore, false);
        merge(m_source->mutualExclusion, g->mutualExclusion, true);
        merge(m_source->pipelines, g->pipelines, false);
        m_graph = std::move(g);
    }
    m_highlight.assign(m_graph ? m_graph->types.size() : 0, false);
    relayout();
}

void GraphView::setNodeSize(NodeSize size) {
    m_sizeBy = size;
    relayout();
}

void GraphView::setMinimumSupport(std::int64_t support) {
    m_minimumSupport = support;
    update();
}

void GraphView::setShowUnconfirmed(bool show) {
    m_showUnconfirmed = show;
    update();
}

double GraphView::sizeMeasure(int node) const {
    const auto& t = m_graph->types[static_cast<std::size_t>(node)];
    return m_sizeBy == NodeSize::MeanDuration ? t.meanDurationNs : double(t.criticalCount);
}

QSizeF GraphView::nodeSize(int node, double largestMeasure) const {
    const auto& t = m_graph->types[static_cast<std::size_t>(node)];
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fm(font()), fmBold(bold);
    const QStringList lines = nodeLines(t, collapsedMembers(node) != 1);
    const double textWidth = std::max({fmBold.horizontalAdvance(lines[0]), fm.horizontalAdvance(lines[1]), fm.horizontalAdvance(lines[2])});
    // Three lines of text, plus up to 30 px more for the chosen measure relative to the largest.
    const double measure = sizeMeasure(node) / std::max(1e-9, largestMeasure);
    const double textHeight = 3 * fm.height() + 8;
    return {std::min(kMaxNodeWidthPx, textWidth + 12), textHeight + 30 * std::sqrt(std::clamp(measure, 0.0, 1.0))};
}

void GraphView::relayout() {
    m_layout = {};
    m_sizes.clear();
    m_layoutJob->cancel();
    m_layoutPending = false;
    if (m_graph) {
        // Node sizes need the widget's font metrics (cheap, here); the layout itself runs on a worker.
        GraphLayoutInput input;
        double largest = 0;
        for (std::size_t i = 0; i < m_graph->types.size(); ++i) largest = std::max(largest, sizeMeasure(static_cast<int>(i)));
        std::vector<QSizeF> sizes;
        for (std::size_t i = 0; i < m_graph->types.size(); ++i) {
            sizes.push_back(nodeSize(static_cast<int>(i), largest));
            input.nodes.push_back({sizes.back().width(), sizes.back().height()});
        }
        for (const auto& e : m_graph->happensBefore)
            input.edges.push_back({static_cast<int>(e.from), static_cast<int>(e.to), e.confirmed ? 2.0 : 1.0});
        m_layoutPending = true;
        const GraphLayoutBudget budget = m_budget;
        m_layoutJob->start<std::shared_ptr<GraphLayoutResult>>(
            [input = std::move(input), budget](const CancelToken&, const ProgressSink&) {
                return std::make_shared<GraphLayoutResult>(layoutWithBudget(input, budget));
            },
            [this, sizes = std::move(sizes)](std::shared_ptr<GraphLayoutResult> layout) {
                m_layout = std::move(*layout);
                m_sizes = sizes;
                m_layoutPending = false;
                m_fitted = false;
                fit();
                emit layoutReady();
            });
    }
    m_fitted = false;
    fit();
}

bool GraphView::waitForLayout() {
    if (!m_layoutPending) return false;
    QEventLoop loop;
    connect(this, &GraphView::layoutReady, &loop, &QEventLoop::quit);
    while (m_layoutPending) loop.exec();
    return true;
}

void GraphView::fit() {
    fitWhole();
    if (!m_graph || m_layout.bounds.isEmpty() || m_scale >= kLegibleScale) return;
    // Too small to read whole: the legible zoom, from the left end (where requests start), centred vertically.
    const QRectF area = graphArea();
    const QRectF b = m_layout.bounds.adjusted(-20, -20, 20, 20);
    m_scale = kLegibleScale;
    // The leftmost node (where requests start) at the left edge, centred vertically.
    QPointF anchor = b.center();
    double left = std::numeric_limits<double>::max();
    for (const QPointF& c : m_layout.centers)
        if (c.x() < left - 0.5) {
            left = c.x();
            anchor = c;
        }
    m_offset = QPointF(area.left() - b.left() * m_scale, area.center().y() - anchor.y() * m_scale);
    m_zoomedToLegible = true;
    update();
}

void GraphView::fitWhole() {
    m_zoomedToLegible = false;
    if (!m_graph || width() <= 0 || m_layout.bounds.isEmpty()) {
        update();
        return;
    }
    const QRectF b = m_layout.bounds.adjusted(-20, -20, 20, 20);
    // Fitted between the layout note (top) and the legend (bottom), so neither covers a node.
    const QRectF area = graphArea();
    m_scale = std::min(area.width() / b.width(), area.height() / b.height());
    m_scale = std::clamp(m_scale, 0.01, 2.0);  // a large model's layered layout is tens of thousands of pixels wide
    m_offset = area.center() - b.center() * m_scale;
    m_fitted = true;
    update();
}

void GraphView::resizeEvent(QResizeEvent*) {
    if (!m_fitted || true) fit();
}

QRectF GraphView::nodeRect(int node) const {
    if (!m_graph || node < 0 || node >= static_cast<int>(m_sizes.size()) || node >= static_cast<int>(m_layout.centers.size())) return {};
    const QSizeF s = m_sizes[static_cast<std::size_t>(node)] * m_scale;
    const QPointF c = toWidget(m_layout.centers[static_cast<std::size_t>(node)]);
    return QRectF(c.x() - s.width() / 2, c.y() - s.height() / 2, s.width(), s.height());
}

int GraphView::nodeAt(const QPoint& pos) const {
    if (!m_graph || !graphArea().contains(pos)) return -1;
    for (int n = 0; n < static_cast<int>(m_sizes.size()); ++n)
        if (nodeRect(n).contains(pos)) return n;
    return -1;
}

bool GraphView::edgeVisible(const ModelGraph::Edge& e) const {
    return e.support >= m_minimumSupport && (e.confirmed || m_showUnconfirmed);
}

int GraphView::visibleEdgeCount() const {
    if (!m_graph) return 0;
    int n = 0;
    for (const auto& e : m_graph->happensBefore) n += edgeVisible(e);
    return n;
}

int GraphView::findAndFocus(const QString& text) {
    if (!m_graph) return 0;
    int count = 0, first = -1;
    for (std::size_t i = 0; i < m_graph->types.size(); ++i) {
        const bool match = !text.isEmpty() && QString::fromStdString(m_graph->types[i].name()).contains(text, Qt::CaseInsensitive);
        m_highlight[i] = match;
        if (match && first < 0) first = static_cast<int>(i);
        count += match;
    }
    if (first >= 0) m_offset += QPointF(width() / 2.0, height() / 2.0) - nodeRect(first).center();
    update();
    return count;
}

void GraphView::selectNode(int node) {
    m_selected = node;
    update();
}

void GraphView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_graph) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No model yet: the database has not been analysed."));
        return;
    }
    if (m_layoutPending) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   tr("Laying out %L1 segment types and %L2 edges…").arg(m_graph->types.size()).arg(m_graph->happensBefore.size()));
        return;
    }
    if (!m_layout.error.isEmpty()) {
        p.drawText(rect(), Qt::AlignCenter, m_layout.error);
        return;
    }
    p.setRenderHint(QPainter::Antialiasing, m_graph->types.size() < 2000);
    const QRectF visible = graphArea();  // nothing of the graph is drawn under the legend
    p.setClipRect(visible);
    // Happens-before edges (reduced): width by support, dashed when unconfirmed.
    const double maxSupport = std::max<double>(1, double(m_graph->requests));
    for (std::size_t e = 0; e < m_graph->happensBefore.size(); ++e) {
        const auto& edge = m_graph->happensBefore[e];
        if (!edgeVisible(edge)) continue;
        const auto& pts = m_layout.edgePaths[e];
        QPainterPath path;
        if (pts.size() >= 4) {
            path.moveTo(toWidget(pts[0]));
            for (std::size_t k = 1; k + 2 < pts.size(); k += 3) path.cubicTo(toWidget(pts[k]), toWidget(pts[k + 1]), toWidget(pts[k + 2]));
        } else {
            path.moveTo(toWidget(m_layout.centers[edge.from]));
            path.lineTo(toWidget(m_layout.centers[edge.to]));
        }
        if (!path.boundingRect().adjusted(-2, -2, 2, 2).intersects(visible)) continue;  // a flat edge has an empty box
        const bool touchesSelection = m_selected >= 0 && (static_cast<int>(edge.from) == m_selected || static_cast<int>(edge.to) == m_selected);
        const double widthPx = 0.8 + 2.2 * std::log10(1 + 9 * double(edge.support) / maxSupport);
        QPen pen(touchesSelection ? palette::selection() : QColor(90, 98, 110), widthPx, edge.confirmed ? Qt::SolidLine : Qt::DashLine);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        // Arrowhead where the edge meets its target.
        const QPointF tip = path.currentPosition();
        const QPointF before = path.pointAtPercent(std::max(0.0, 1.0 - 8.0 / std::max(8.0, path.length())));
        QPointF dir = tip - before;
        const double len = std::hypot(dir.x(), dir.y());
        if (len > 0.1) {
            dir /= len;
            const QPointF n(-dir.y(), dir.x());
            p.setBrush(pen.color());
            p.setPen(Qt::NoPen);
            p.drawPolygon(QPolygonF({tip, tip - dir * 8 + n * 3.5, tip - dir * 8 - n * 3.5}));
        }
    }
    // Mutual exclusion: dotted, undirected; pipelines: dash-dot producer -> consumer.
    // Thousands of arcs (a large model) hide the graph: then only the selected node's relations are drawn.
    const bool onlySelected = relationsOfSelectionOnly();
    auto drawRelation = [&](const ModelGraph::Edge& e, const QColor& colour, Qt::PenStyle style) {
        if (!edgeVisible(e)) return;
        if (onlySelected && static_cast<int>(e.from) != m_selected && static_cast<int>(e.to) != m_selected) return;
        const QPointF a = toWidget(m_layout.centers[e.from]), b = toWidget(m_layout.centers[e.to]);
        QPainterPath path(a);
        const QPointF mid = (a + b) / 2 + QPointF(0, -std::min(60.0, std::hypot(b.x() - a.x(), b.y() - a.y()) / 5));
        path.quadTo(mid, b);
        p.setPen(QPen(colour, 1.4, style));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
    };
    for (const auto& e : m_graph->mutualExclusion) drawRelation(e, palette::mutualExclusion(), Qt::DotLine);
    for (const auto& e : m_graph->pipelines) drawRelation(e, palette::pipeline(), Qt::DashDotLine);

    // Nodes: colour by task, a bar along the bottom for the share of requests where it was critical.
    QFont bold = font();
    bold.setBold(true);
    for (std::size_t i = 0; i < m_graph->types.size(); ++i) {
        const QRectF r = nodeRect(static_cast<int>(i));
        if (!r.intersects(visible)) continue;
        const auto& t = m_graph->types[i];
        const QColor fill = palette::forTask(QString::fromStdString(t.task));
        const bool network = t.networkShare > 0.5;
        p.setPen(QPen(m_highlight[i] ? QColor(0xf0, 0x8c, 0x00) : (static_cast<int>(i) == m_selected ? palette::selection() : fill.darker(150)),
                      m_highlight[i] || static_cast<int>(i) == m_selected ? 3 : 1, network ? Qt::DashLine : Qt::SolidLine));
        p.setBrush(fill);
        p.drawRoundedRect(r, 4, 4);
        const double share = m_graph->requests ? double(t.criticalCount) / double(m_graph->requests) : 0;
        if (share > 0) p.fillRect(QRectF(r.left() + 2, r.bottom() - 5, (r.width() - 4) * std::min(1.0, share), 3), palette::critical());
        // Labels follow the zoom but never shrink below a readable size; lines that do not fit are dropped
        // (the start event first, then the task), and what is left is elided.
        QFont f = font(), fb = bold;
        const double pointSize = std::clamp(font().pointSizeF() * m_scale, 6.5, font().pointSizeF() * 1.3);
        f.setPointSizeF(pointSize);
        fb.setPointSizeF(pointSize);
        const QFontMetricsF fm(f);
        const double lineHeight = fm.height();
        const int fit = static_cast<int>((r.height() - 4) / lineHeight);
        if (fit < 1 || r.width() < 20) continue;
        const bool collapsedNode = collapsedMembers(static_cast<int>(i)) != 1;
        QStringList lines = nodeLines(t, collapsedNode);
        if (collapsedNode && fit < 3) lines = {lines[0], lines[1]};
        else if (fit == 2) lines = {lines[0], QStringLiteral("→ ") + lines[2]};
        if (fit == 1) lines = {collapsedNode ? lines[0] : QStringLiteral("→ ") + QString::fromStdString(t.endEvent)};
        double y = r.center().y() - lines.size() * lineHeight / 2;
        p.setPen(Qt::black);
        for (int k = 0; k < lines.size(); ++k) {
            const bool isTask = k == 0 && lines.size() > 1;
            p.setFont(isTask ? fb : f);
            const QRectF line(r.left() + 2, y, r.width() - 4, lineHeight);
            // Task names differ at the end (fetch-feed, fetch-ads), event names at the start.
            p.drawText(line, Qt::AlignCenter,
                       QFontMetricsF(isTask ? fb : f).elidedText(lines[k], isTask ? Qt::ElideMiddle : Qt::ElideRight, line.width()));
            y += lineHeight;
        }
    }
    p.setFont(font());
    p.setClipping(false);
    // Which layout this is (Graphviz, or our layered one and why), top left.
    if (!m_layout.description.isEmpty()) {
        QString note = m_layout.description;
        if (m_zoomedToLegible) note += tr(" · zoomed to legible labels: wheel out or double-click empty space for the whole graph");
        const auto collapsedTasks = std::count_if(m_members.begin(), m_members.end(), [](int m) { return m > 1; });
        if (collapsedTasks > 0) note += tr(" · %L1 tasks collapsed (double-click a node to expand or collapse its task)").arg(collapsedTasks);
        const QRect box(6, 6, std::min(width() - 12, fontMetrics().horizontalAdvance(note) + 12), fontMetrics().height() + 6);
        p.fillRect(box, QColor(255, 255, 255, 220));
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(box, Qt::AlignCenter, fontMetrics().elidedText(note, Qt::ElideRight, box.width() - 8));
    }
    // Legend.
    const QString ofSelection = onlySelected ? tr(" (of the selected node only: %L1 in all)").arg(m_graph->mutualExclusion.size() + m_graph->pipelines.size())
                                             : QString();
    const QStringList items = {tr("→ happens-before (width: support; dashed: unconfirmed)"), tr("··· mutual exclusion") + ofSelection,
                               tr("-·- pipeline") + ofSelection, tr("red bar: share of requests where critical"),
                               m_sizeBy == NodeSize::MeanDuration ? tr("height: mean duration") : tr("height: critical-path count")};
    const QColor colours[] = {QColor(90, 98, 110), palette::mutualExclusion(), palette::pipeline(), palette::critical(), palette().color(QPalette::WindowText)};
    // The legend: a band across the bottom, outside the area the graph is drawn in; items flow over its lines.
    const QRect legend = legendRect();
    p.fillRect(legend, palette().window());
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(legend.topLeft(), legend.topRight());
    const QFontMetrics fm = fontMetrics();
    int x = 10, y = legend.top() + 5;
    for (int k = 0; k < items.size(); ++k) {
        const int w = fm.horizontalAdvance(items[k]);
        if (x > 10 && x + w > legend.right() - 10) {
            x = 10;
            y += fm.height() + 2;
        }
        p.setPen(colours[k]);
        p.drawText(QPoint(x, y + fm.ascent()), fm.elidedText(items[k], Qt::ElideRight, legend.width() - 20));
        x += w + 24;
    }
}

QRect GraphView::legendRect() const {
    const int lines = width() >= 1000 ? 2 : width() >= 600 ? 3 : 5, h = lines * (fontMetrics().height() + 2) + 8;
    return QRect(0, height() - h, width(), h);
}

QRectF GraphView::graphArea() const {
    const double top = fontMetrics().height() + 12;  // the layout note
    return QRectF(0, top, width(), std::max(10.0, legendRect().top() - top));
}

bool GraphView::relationsOfSelectionOnly() const {
    // Counted in the model itself: collapsing tasks merges arcs but leaves as many relations to read.
    return m_source && m_source->mutualExclusion.size() + m_source->pipelines.size() > kMaxRelationsDrawn;
}

bool GraphView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip && m_graph) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int n = nodeAt(help->pos());
        if (n >= 0) {
            const auto& t = m_graph->types[static_cast<std::size_t>(n)];
            QToolTip::showText(help->globalPos(),
                               tr("<b>%1</b><br>mean %2 · in %3 requests<br>critical in %4 requests")
                                   .arg(QString::fromStdString(t.name()).toHtmlEscaped(), formatDuration(t.meanDurationNs / 1000.0))
                                   .arg(t.occurrences)
                                   .arg(t.criticalCount),
                               this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(e);
}

void GraphView::wheelEvent(QWheelEvent* e) {
    const double factor = std::pow(1.25, e->angleDelta().y() / 120.0);
    const QPointF anchor = toGraph(e->position());
    m_scale = std::clamp(m_scale * factor, 0.01, 8.0);
    m_offset = e->position() - anchor * m_scale;
    update();
}

void GraphView::mousePressEvent(QMouseEvent* e) {
    m_pressPos = e->pos();
    m_pressOffset = m_offset;
    m_dragging = false;
}

void GraphView::mouseMoveEvent(QMouseEvent* e) {
    if (!(e->buttons() & (Qt::LeftButton | Qt::MiddleButton))) return;
    if ((e->pos() - m_pressPos).manhattanLength() > 3) m_dragging = true;
    if (m_dragging) {
        m_offset = m_pressOffset + QPointF(e->pos() - m_pressPos);
        update();
    }
}

void GraphView::mouseReleaseEvent(QMouseEvent* e) {
    if (m_dragging) return;
    const int n = nodeAt(e->pos());
    selectNode(n);
    if (n >= 0) emit nodeClicked(n);
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* e) {
    const int n = nodeAt(e->pos());
    if (n < 0 || !m_graph) {
        // Empty space: the whole graph, and back to the legible zoom.
        if (m_zoomedToLegible) fitWhole();
        else fit();
        return;
    }
    const QString task = QString::fromStdString(m_graph->types[static_cast<std::size_t>(n)].task);
    setTaskCollapsed(task, !isTaskCollapsed(task));
}

void GraphView::contextMenuEvent(QContextMenuEvent* e) {
    if (!m_graph) return;
    QMenu menu(this);
    const int n = nodeAt(e->pos());
    if (n >= 0) {
        const QString task = QString::fromStdString(m_graph->types[static_cast<std::size_t>(n)].task);
        if (isTaskCollapsed(task)) menu.addAction(tr("Expand task %1").arg(task), this, [this, task] { setTaskCollapsed(task, false); });
        else menu.addAction(tr("Collapse task %1 into one node").arg(task), this, [this, task] { setTaskCollapsed(task, true); });
        menu.addSeparator();
    }
    menu.addAction(tr("Collapse all tasks"), this, [this] { setAllTasksCollapsed(true); });
    menu.addAction(tr("Expand all tasks"), this, [this] { setAllTasksCollapsed(false); });
    menu.addAction(tr("Fit (legible zoom)"), this, &GraphView::fit);
    menu.addAction(tr("Show the whole graph"), this, &GraphView::fitWhole);
    menu.exec(e->globalPos());
}

ConvergencePlot::ConvergencePlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMinimumHeight(180);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, new QCPTextElement(m_plot, tr("Convergence of the model"), QFont(font().family(), font().pointSize(), QFont::Bold)));
    m_plot->xAxis->setLabel(tr("requests processed"));
    m_plot->yAxis->setLabel(tr("relations alive"));
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setNumberFormat(QStringLiteral("gb"));
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(QFont(font().family(), font().pointSize() - 1));
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignLeft);
}

void ConvergencePlot::setGraph(const ModelGraph* graph) {
    m_plot->clearGraphs();
    if (!graph || graph->convergence.empty()) {
        m_plot->replot();
        return;
    }
    QVector<double> x, hb, me;
    for (const auto& p : graph->convergence) {
        x << double(p.requests);
        hb << double(p.happensBeforeAlive);
        me << double(p.mutualExclusionAlive);
    }
    auto* g1 = m_plot->addGraph();
    g1->setName(tr("happens-before"));
    g1->setData(x, hb, true);
    g1->setPen(QPen(QColor(90, 98, 110), 2));
    g1->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    auto* g2 = m_plot->addGraph();
    g2->setName(tr("mutual exclusion"));
    g2->setData(x, me, true);
    g2->setPen(QPen(palette::mutualExclusion(), 2));
    g2->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, 5));
    m_plot->rescaleAxes();
    m_plot->xAxis->setRange(std::max(1.0, x.front() / 1.5), x.back() * 1.5);
    double top = 1;
    for (double v : hb) top = std::max(top, v);
    for (double v : me) top = std::max(top, v);
    m_plot->yAxis->setRange(0, top * 1.1);
    m_plot->replot();
}

ModelOverview::ModelOverview(QWidget* parent) : QWidget(parent) {
    m_view = new GraphView(this);
    m_convergence = new ConvergencePlot(this);
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Find segment type (Ctrl+F)…"));
    m_search->setClearButtonEnabled(true);
    m_sizeBy = new QComboBox(this);
    m_sizeBy->addItems({tr("Size: critical-path count"), tr("Size: mean duration")});
    m_support = new QSlider(Qt::Horizontal, this);
    m_support->setRange(0, 100);
    m_support->setMaximumWidth(160);
    m_supportLabel = new QLabel(this);
    m_unconfirmed = new QCheckBox(tr("Unconfirmed"), this);
    m_unconfirmed->setChecked(true);
    m_details = new QTextBrowser(this);
    m_details->setOpenLinks(false);
    m_details->setPlaceholderText(tr("Click a node to see its statistics and the requests where it was critical."));

    m_services = new ServiceMapView(this);
    m_mode = new QComboBox(this);
    m_mode->addItems({tr("Causal model"), tr("Service map"), tr("Operations")});
    m_mode->setToolTip(tr("Causal model: segment types and their inferred relations.\n"
                          "Service map (span data): services and the calls between them.\n"
                          "Operations (span data): every service expanded into its operations."));
    m_wanted = static_cast<Mode>(std::clamp(QSettings().value(QStringLiteral("graph/mode"), 1).toInt(), 0, 2));
    m_period = new QComboBox(this);
    m_period->setObjectName(QStringLiteral("modelPeriod"));
    m_period->addItem(tr("All requests"));
    m_period->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_period->setToolTip(tr("Infer the causal model from one period's requests alone (a period by time is a window)"));
    m_modelControls = new QWidget(this);
    auto* controls = new QHBoxLayout(m_modelControls);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addWidget(m_period);
    controls->addWidget(m_search, 1);
    controls->addWidget(m_sizeBy);
    controls->addWidget(new QLabel(tr("Min. support"), this));
    controls->addWidget(m_support);
    controls->addWidget(m_supportLabel);
    controls->addWidget(m_unconfirmed);
    auto* side = new QSplitter(Qt::Vertical, this);
    side->addWidget(m_details);
    side->addWidget(m_convergence);
    side->setStretchFactor(0, 1);
    side->setStretchFactor(1, 1);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_view);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    side->setMinimumWidth(300);
    split->setSizes({900, 340});
    m_pages = new QStackedWidget(this);
    m_pages->addWidget(split);
    m_pages->addWidget(m_services);
    auto* top = new QHBoxLayout;
    top->addWidget(m_mode);
    top->addWidget(m_modelControls, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_pages, 1);
    setServiceMap(nullptr);
    connect(m_mode, &QComboBox::activated, this, [this](int i) {
        QSettings().setValue(QStringLiteral("graph/mode"), i);
        setMode(static_cast<Mode>(i));
    });

    connect(m_period, &QComboBox::activated, this, [this] { emit periodChosen(period()); });
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) { m_view->findAndFocus(text); });
    connect(m_sizeBy, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_view->setNodeSize(i == 0 ? GraphView::NodeSize::CriticalShare : GraphView::NodeSize::MeanDuration);
    });
    auto supportChanged = [this](int percent) {
        // The slider is logarithmic in support, up to the number of requests.
        const double requests = m_graph ? std::max<double>(1, double(m_graph->requests)) : 1;
        const auto support = percent == 0 ? 0 : static_cast<std::int64_t>(std::round(std::pow(requests, percent / 100.0)));
        m_supportLabel->setText(QString::number(support));
        m_view->setMinimumSupport(support);
    };
    connect(m_support, &QSlider::valueChanged, this, supportChanged);
    supportChanged(0);
    connect(m_unconfirmed, &QCheckBox::toggled, m_view, &GraphView::setShowUnconfirmed);
    connect(m_view, &GraphView::nodeClicked, this, &ModelOverview::showNode);
    connect(m_details, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("request")) emit requestActivated(url.path());
    });
}

void ModelOverview::setGraph(std::shared_ptr<const ModelGraph> graph) {
    m_graph = std::move(graph);
    m_view->setGraph(m_graph, m_graph && m_graph->types.size() > kCollapseTasksAbove);
    m_convergence->setGraph(m_graph.get());
    m_details->clear();
    if (m_graph) {
        int critical = -1;
        for (std::size_t i = 0; i < m_graph->types.size(); ++i)
            if (critical < 0 || m_graph->types[i].criticalCount > m_graph->types[static_cast<std::size_t>(critical)].criticalCount)
                critical = static_cast<int>(i);
        const QString of = period().isEmpty() ? QString() : tr(" of period <i>%1</i>").arg(period().toHtmlEscaped());
        m_details->setHtml(tr("<b>%1 segment types</b> from %2 requests%7: %3 happens-before edges after reduction, "
                              "%4 mutual-exclusion pairs, %5 pipeline links (support floor %6).<br><br>"
                              "Click a node for its statistics. Double-click a node to collapse its task into one node "
                              "(or expand it); the context menu collapses or expands every task.")
                               .arg(m_graph->types.size())
                               .arg(m_graph->requests)
                               .arg(m_graph->happensBefore.size())
                               .arg(m_graph->mutualExclusion.size())
                               .arg(m_graph->pipelines.size())
                               .arg(m_graph->supportFloor)
                               .arg(of));
    }
}

void ModelOverview::setPeriods(const QStringList& periods) {
    const QString chosen = period();
    while (m_period->count() > 1) m_period->removeItem(1);
    m_period->addItems(periods);
    const int at = chosen.isEmpty() ? 0 : m_period->findText(chosen);
    m_period->setCurrentIndex(std::max(at, 0));
    if (at < 0) emit periodChosen({});  // the period is gone: the whole model again
}

QString ModelOverview::period() const { return m_period->currentIndex() > 0 ? m_period->currentText() : QString(); }

void ModelOverview::setPeriod(const QString& period) {
    const int at = period.isEmpty() ? 0 : m_period->findText(period);
    if (at < 0 || at == m_period->currentIndex()) return;
    m_period->setCurrentIndex(at);
    emit periodChosen(this->period());
}

void ModelOverview::setServiceMap(std::shared_ptr<const ServiceMap> map) {
    const bool spans = map && map->spans() > 0;
    m_services->setServiceMap(spans ? std::move(map) : nullptr);
    // Without spans the service modes are offered disabled, and the causal model shows.
    for (int i : {1, 2}) {
        if (auto* model = qobject_cast<QStandardItemModel*>(m_mode->model())) model->item(i)->setEnabled(spans);
    }
    showMode(spans ? m_wanted : Mode::CausalModel);
}

bool ModelOverview::hasServiceMap() const { return m_services->serviceMap() != nullptr; }

void ModelOverview::setMode(Mode mode) {
    m_wanted = mode;
    showMode(hasServiceMap() ? mode : Mode::CausalModel);
}

ModelOverview::Mode ModelOverview::mode() const { return static_cast<Mode>(m_mode->currentIndex()); }

void ModelOverview::showMode(Mode mode) {
    m_mode->setCurrentIndex(static_cast<int>(mode));
    m_pages->setCurrentIndex(mode == Mode::CausalModel ? 0 : 1);
    m_modelControls->setVisible(mode == Mode::CausalModel);
    if (mode != Mode::CausalModel) m_services->setAllExpanded(mode == Mode::Operations);
}

bool ModelOverview::isLayoutPending() const { return m_view->isLayoutPending() || m_services->isLayoutPending(); }

void ModelOverview::focusSearch() {
    m_search->setFocus();
    m_search->selectAll();
}

void ModelOverview::selectType(const QString& segmentName) {
    if (!m_graph) return;
    for (std::size_t i = 0; i < m_graph->types.size(); ++i)
        if (QString::fromStdString(m_graph->types[i].name()) == segmentName) {
            const int node = m_view->nodeForType(static_cast<std::uint32_t>(i));  // its task may be collapsed
            m_view->selectNode(node);
            showNode(node);
            return;
        }
}

void ModelOverview::showNode(int node) {
    const ModelGraph* shown = m_view->graph();  // collapsed tasks are one node there
    if (!shown || node < 0 || node >= static_cast<int>(shown->types.size())) return;
    const auto& t = shown->types[static_cast<std::size_t>(node)];
    QString html = QStringLiteral("<h3>%1</h3>").arg(QString::fromStdString(t.name()).toHtmlEscaped());
    html += QStringLiteral("<table cellspacing=4>");
    auto row = [&](const QString& k, const QString& v) { html += QStringLiteral("<tr><td>%1</td><td><b>%2</b></td></tr>").arg(k, v); };
    row(tr("requests with it"), QString::number(t.occurrences));
    row(tr("mean duration"), formatDuration(t.meanDurationNs / 1000.0));
    row(tr("crosses hosts"), QStringLiteral("%1 %").arg(100 * t.networkShare, 0, 'f', 0));
    row(tr("on the critical path"), tr("%1 requests (%2 %)").arg(t.criticalCount).arg(shown->requests ? 100.0 * t.criticalCount / shown->requests : 0, 0, 'f', 1));
    row(tr("mean critical time per request"), formatDuration(t.meanCriticalNs / 1000.0));
    int before = 0, after = 0;
    for (const auto& e : shown->happensBefore) {
        before += static_cast<int>(e.to) == node;
        after += static_cast<int>(e.from) == node;
    }
    row(tr("direct predecessors / successors"), QStringLiteral("%1 / %2").arg(before).arg(after));
    html += QStringLiteral("</table>");
    if (!t.slowestCriticalRequests.empty()) {
        html += tr("<p>Slowest requests where it was critical:</p><p>");
        for (const auto& r : t.slowestCriticalRequests)
            html += QStringLiteral("<a href=\"request:%1\">%2</a> ").arg(QString::fromStdString(r).toHtmlEscaped(), QString::fromStdString(r).toHtmlEscaped());
        html += QStringLiteral("</p>");
    }
    m_details->setHtml(html);
}

} // namespace tracelight::widgets
