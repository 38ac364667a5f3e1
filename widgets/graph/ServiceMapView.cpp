#include "graph/ServiceMapView.h"

#include <QContextMenuEvent>
#include <QEventLoop>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "common/Counts.h"
#include "common/JobRunner.h"
#include "common/Palette.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

namespace {
constexpr double kMinLabelPt = 7.5;  // labels never shrink below this (they are elided instead)
QString ms(TimeNs ns) { return formatDuration(nsToUs(ns)); }
QString edgeLabel(const ServiceGraphEdge& e) {
    if (e.nesting) return QObject::tr("%L1 nested").arg(e.calls);
    return QObject::tr("%L1 %2\np50 %3 · p99 %4")
        .arg(e.calls)
        .arg(e.nesting ? QObject::tr("nested") : e.calls == 1 ? QObject::tr("call") : QObject::tr("calls"))
        .arg(ms(e.p50Ns), ms(e.p99Ns));
}
} // namespace

ServiceMapView::ServiceMapView(QWidget* parent) : QWidget(parent), m_layoutJob(new JobRunner(this)) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void ServiceMapView::setServiceMap(std::shared_ptr<const ServiceMap> map) {
    m_map = std::move(map);
    // Expansion survives a reload of the same data; names that no longer exist are dropped.
    std::set<std::string> kept;
    if (m_map)
        for (const auto& s : m_map->services())
            if (m_expanded.count(s)) kept.insert(s);
    m_expanded = std::move(kept);
    rebuild();
}

void ServiceMapView::expandService(const QString& service) {
    if (!m_map || !m_expanded.insert(service.toStdString()).second) return;
    rebuild();
    emit expansionChanged();
}

void ServiceMapView::collapseService(const QString& service) {
    if (m_expanded.erase(service.toStdString()) == 0) return;
    rebuild();
    emit expansionChanged();
}

void ServiceMapView::toggleService(const QString& service) {
    if (isExpanded(service)) collapseService(service);
    else expandService(service);
}

void ServiceMapView::setAllExpanded(bool expanded) {
    std::set<std::string> next;
    if (expanded && m_map) next.insert(m_map->services().begin(), m_map->services().end());
    if (next == m_expanded && (m_layoutPending || !m_layout.centers.empty() || !m_map)) return;
    m_expanded = std::move(next);
    rebuild();
    emit expansionChanged();
}

QStringList ServiceMapView::nodeLines(const ServiceGraphNode& n) const {
    const QString spans = n.spans == 1 ? tr("1 span") : tr("%L1 spans").arg(n.spans);
    if (n.operation.empty())
        return {QString::fromStdString(n.service), n.operations > 1 ? tr("%1 · %L2 operations").arg(spans).arg(n.operations) : spans};
    return {QString::fromStdString(n.operation), spans};
}

void ServiceMapView::rebuild() {
    m_layoutJob->cancel();
    m_layout = {};
    m_sizes.clear();
    m_layoutEdge.clear();
    m_selected = -1;
    m_layoutPending = false;
    m_graph = m_map ? m_map->graph(m_expanded) : ServiceGraph{};
    if (m_graph.nodes.empty()) {
        update();
        return;
    }
    QFont bold = font();
    bold.setBold(true);
    const QFontMetricsF fm(font()), fmBold(bold);
    GraphLayoutInput input;
    std::map<std::string, int> clusterOf;
    for (const auto& n : m_graph.nodes) {
        const QStringList lines = nodeLines(n);
        const double text = std::max(fmBold.horizontalAdvance(lines[0]), fm.horizontalAdvance(lines[1]));
        m_sizes.emplace_back(std::min(kMaxNodeWidthPx, text + 18), 2 * fm.height() + 12);
        input.nodes.push_back({m_sizes.back().width(), m_sizes.back().height()});
        int cluster = -1;
        if (!n.operation.empty()) cluster = clusterOf.try_emplace(n.service, static_cast<int>(clusterOf.size())).first->second;
        input.cluster.push_back(cluster);
    }
    // Layers far enough apart for the edge labels (calls · p50 · p99) to sit between them.
    QFont small = font();
    small.setPointSizeF(std::max(kMinLabelPt, font().pointSizeF() * 0.9));
    double widestLabel = 0;
    for (const auto& e : m_graph.edges)
        for (const QString& line : edgeLabel(e).split(QLatin1Char('\n')))
            widestLabel = std::max(widestLabel, QFontMetricsF(small).horizontalAdvance(line));
    input.rankSepPx = std::clamp(widestLabel + 90, 60.0, 330.0);  // labels of fanned-out edges sit off the gap's centre
    input.nodeSepPx = 2 * fm.height() + 8;
    for (const auto& e : m_graph.edges) {
        if (e.from == e.to) {
            m_layoutEdge.push_back(-1);
            continue;
        }
        m_layoutEdge.push_back(static_cast<int>(input.edges.size()));
        input.edges.push_back({static_cast<int>(e.from), static_cast<int>(e.to), 1 + std::log10(1.0 + double(e.calls))});
    }
    m_layoutPending = true;
    m_layoutJob->start<std::shared_ptr<GraphLayoutResult>>(
        [input = std::move(input)](const CancelToken&, const ProgressSink&) {
            return std::make_shared<GraphLayoutResult>(layoutWithBudget(input, GraphLayoutBudget{}));
        },
        [this](std::shared_ptr<GraphLayoutResult> layout) {
            m_layout = std::move(*layout);
            m_layoutPending = false;
            fit();
            emit layoutReady();
        });
    update();
}

bool ServiceMapView::waitForLayout() {
    if (!m_layoutPending) return false;
    QEventLoop loop;
    connect(this, &ServiceMapView::layoutReady, &loop, &QEventLoop::quit);
    while (m_layoutPending) loop.exec();
    return true;
}

QString ServiceMapView::noteText() const {
    if (!m_map) return {};
    QString note = tr("%1 · %L2 services, %L3 operations, %4")
                       .arg(m_layout.description)
                       .arg(m_map->services().size())
                       .arg(m_map->operationCount())
                       .arg(requestCount(m_graph.requests));
    if (m_layoutPending) return note;
    const QRectF area = graphArea();
    int outside = 0;
    for (int n = 0; n < static_cast<int>(m_graph.nodes.size()) && n < static_cast<int>(m_layout.centers.size()); ++n)
        outside += !area.contains(nodeRect(n));
    if (outside > 0) note += tr(" · %n services outside the view: drag to pan, wheel to zoom", nullptr, outside);
    return note;
}

QRect ServiceMapView::legendRect() const {
    const int h = fontMetrics().height() + 10;
    return QRect(0, height() - h, width(), h);
}

QRectF ServiceMapView::graphArea() const {
    const int top = fontMetrics().height() + 14;  // the layout note
    return QRectF(0, top, width(), std::max(10, legendRect().top() - top));
}

void ServiceMapView::fit() {
    if (m_layout.bounds.isEmpty() || width() <= 0) {
        update();
        return;
    }
    // Room for cluster titles and self-loops around the layout.
    const QRectF b = m_layout.bounds.adjusted(-30, -40, 30, 20);
    const QRectF area = graphArea();
    m_scale = std::clamp(std::min(area.width() / b.width(), area.height() / b.height()), 0.05, 1.5);
    m_offset = area.center() - b.center() * m_scale;
    if (m_scale < kLegibleScale) {  // too small to read whole: legible, from the left end (the callers)
        m_scale = kLegibleScale;
        QPointF anchor = b.center();  // the leftmost node (a caller at the start of the flow), centred vertically
        double left = std::numeric_limits<double>::max();
        for (const QPointF& c : m_layout.centers)
            if (c.x() < left - 0.5) {
                left = c.x();
                anchor = c;
            }
        m_offset = QPointF(area.left() - b.left() * m_scale, area.center().y() - anchor.y() * m_scale);
    }
    update();
}

void ServiceMapView::resizeEvent(QResizeEvent*) { fit(); }

QRectF ServiceMapView::nodeRect(int node) const {
    if (node < 0 || node >= static_cast<int>(m_sizes.size()) || node >= static_cast<int>(m_layout.centers.size())) return {};
    const QSizeF s = m_sizes[static_cast<std::size_t>(node)] * m_scale;
    const QPointF c = toWidget(m_layout.centers[static_cast<std::size_t>(node)]);
    return QRectF(c.x() - s.width() / 2, c.y() - s.height() / 2, s.width(), s.height());
}

int ServiceMapView::nodeAt(const QPoint& pos) const {
    for (int n = 0; n < static_cast<int>(m_graph.nodes.size()); ++n)
        if (nodeRect(n).contains(pos)) return n;
    return -1;
}

int ServiceMapView::nodeIndex(const QString& label) const {
    const std::string l = label.toStdString();
    for (std::size_t i = 0; i < m_graph.nodes.size(); ++i)
        if (m_graph.nodes[i].label() == l) return static_cast<int>(i);
    return -1;
}

QRectF ServiceMapView::clusterRect(const QString& service) const {
    QRectF r;
    const std::string s = service.toStdString();
    for (std::size_t i = 0; i < m_graph.nodes.size(); ++i)
        if (!m_graph.nodes[i].operation.empty() && m_graph.nodes[i].service == s) r = r.united(nodeRect(static_cast<int>(i)));
    if (r.isNull()) return r;
    const double pad = 8 * std::max(0.5, m_scale);
    return r.adjusted(-pad, -pad - fontMetrics().height() - 2, pad, pad);
}

QString ServiceMapView::nodeToolTip(int node) const {
    if (node < 0 || node >= static_cast<int>(m_graph.nodes.size())) return {};
    const auto& n = m_graph.nodes[static_cast<std::size_t>(node)];
    std::int64_t in = 0, out = 0;
    for (const auto& e : m_graph.edges)
        if (!e.nesting) {
            in += static_cast<int>(e.to) == node ? e.calls : 0;
            out += static_cast<int>(e.from) == node ? e.calls : 0;
        }
    QString text = tr("<b>%1</b><br>%L2 spans in %L3 of %L4 requests").arg(QString::fromStdString(n.label()).toHtmlEscaped()).arg(n.spans).arg(n.requests).arg(m_graph.requests);
    if (n.operation.empty()) text += tr("<br>%L1 operations").arg(n.operations);
    text += tr("<br>calls in: %L1 · calls out: %L2").arg(in).arg(out);
    text += n.operation.empty() ? tr("<br><i>double-click to expand into its operations</i>") : tr("<br><i>double-click to collapse the service</i>");
    return text;
}

void ServiceMapView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_map || m_graph.nodes.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   tr("No spans: the service map needs span data (OpenTelemetry, Jaeger, Zipkin).\nEvent logs show the causal model."));
        return;
    }
    if (m_layoutPending) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Laying out %L1 nodes and %L2 edges…").arg(m_graph.nodes.size()).arg(m_graph.edges.size()));
        return;
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    const QRectF visible = rect();
    QFont bold = font();
    bold.setBold(true);

    // Expanded services: a box around their operations, titled with the service.
    std::set<std::string> drawn;
    for (const auto& n : m_graph.nodes) {
        if (n.operation.empty() || !drawn.insert(n.service).second) continue;
        const QString service = QString::fromStdString(n.service);
        const QRectF box = clusterRect(service);
        const QColor c = palette::forTask(service);
        p.setPen(QPen(c.darker(160), 1.2, Qt::DashLine));
        p.setBrush(QColor(c.red(), c.green(), c.blue(), 40));
        p.drawRoundedRect(box, 6, 6);
        p.setFont(bold);
        p.setPen(c.darker(220));
        p.drawText(box.adjusted(6, 2, -6, 0), Qt::AlignLeft | Qt::AlignTop,
                   QFontMetricsF(bold).elidedText(service + QStringLiteral(" ▾"), Qt::ElideMiddle, box.width() - 12));
    }

    // Edges: width by calls (log), nesting dashed; labels (calls · p50 · p99) at the middle.
    double maxCalls = 1;
    for (const auto& e : m_graph.edges) maxCalls = std::max(maxCalls, double(e.calls));
    const bool labelAll = m_graph.edges.size() <= 60;
    struct Label { QPointF at; QString text; };
    std::vector<Label> labels;
    for (std::size_t i = 0; i < m_graph.edges.size(); ++i) {
        const auto& e = m_graph.edges[i];
        const QPainterPath path = edgePath(static_cast<int>(i));
        if (!path.boundingRect().adjusted(-2, -2, 2, 2).intersects(visible)) continue;
        const bool selected = m_selected >= 0 && (static_cast<int>(e.from) == m_selected || static_cast<int>(e.to) == m_selected);
        const double w = e.nesting ? 1.0 : 1.0 + 3.0 * std::log10(1 + 9 * double(e.calls) / maxCalls);
        const QColor colour = selected ? palette::selection() : e.nesting ? QColor(140, 146, 156) : QColor(70, 78, 90);
        p.setPen(QPen(colour, w, e.nesting ? Qt::DashLine : Qt::SolidLine));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        const QPointF tip = path.currentPosition();
        const QPointF before = path.pointAtPercent(std::max(0.0, 1.0 - 9.0 / std::max(9.0, path.length())));
        QPointF dir = tip - before;
        const double len = std::hypot(dir.x(), dir.y());
        if (len > 0.1) {
            dir /= len;
            const QPointF nrm(-dir.y(), dir.x());
            p.setPen(Qt::NoPen);
            p.setBrush(colour);
            p.drawPolygon(QPolygonF({tip, tip - dir * 9 + nrm * 4, tip - dir * 9 - nrm * 4}));
        }
        if (labelAll || selected) labels.push_back({path.pointAtPercent(0.5), edgeLabel(e)});
    }

    // Nodes: service colour, name (bold) and span count; elided to the box, full name on hover.
    const double pointSize = std::clamp(font().pointSizeF() * m_scale, kMinLabelPt, font().pointSizeF() * 1.2);
    QFont f = font(), fb = bold;
    f.setPointSizeF(pointSize);
    fb.setPointSizeF(pointSize);
    const QFontMetricsF fm(f), fmb(fb);
    for (std::size_t i = 0; i < m_graph.nodes.size(); ++i) {
        const QRectF r = nodeRect(static_cast<int>(i));
        if (!r.intersects(visible)) continue;
        const auto& n = m_graph.nodes[i];
        const QColor fill = palette::forTask(QString::fromStdString(n.service));
        const bool sel = static_cast<int>(i) == m_selected;
        p.setPen(QPen(sel ? palette::selection() : fill.darker(160), sel ? 3 : n.operation.empty() ? 1.6 : 1));
        p.setBrush(n.operation.empty() ? fill : fill.lighter(115));
        p.drawRoundedRect(r, n.operation.empty() ? 8 : 4, n.operation.empty() ? 8 : 4);
        const QStringList lines = nodeLines(n);
        const double lh = fm.height();
        const int fit = static_cast<int>((r.height() - 2) / lh);
        if (fit < 1 || r.width() < 16) continue;
        p.setPen(Qt::black);
        const double top = r.center().y() - std::min(fit, 2) * lh / 2;
        p.setFont(fb);
        p.drawText(QRectF(r.left() + 3, top, r.width() - 6, lh), Qt::AlignCenter, fmb.elidedText(lines[0], Qt::ElideMiddle, r.width() - 6));
        if (fit >= 2) {
            p.setFont(f);
            p.drawText(QRectF(r.left() + 3, top + lh, r.width() - 6, lh), Qt::AlignCenter, fm.elidedText(lines[1], Qt::ElideMiddle, r.width() - 6));
        }
    }
    // Edge labels last, on a pale box, so lines never cross them.
    QFont small = font();
    small.setPointSizeF(std::max(kMinLabelPt, font().pointSizeF() * 0.9));
    p.setFont(small);
    const QFontMetricsF fs(small);
    for (const auto& l : labels) {
        const QStringList lines = l.text.split(QLatin1Char('\n'));
        double w = 0;
        for (const QString& line : lines) w = std::max(w, fs.horizontalAdvance(line));
        const QSizeF s(w + 8, fs.height() * lines.size() + 2);
        const QRectF box(l.at - QPointF(s.width() / 2, s.height() / 2), s);
        if (!box.intersects(visible)) continue;
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(255, 255, 255, 215));
        p.drawRoundedRect(box, 3, 3);
        p.setPen(QColor(40, 44, 52));
        p.drawText(box, Qt::AlignCenter, l.text);
    }

    // The layout note (top) and the legend (bottom band): both outside the area nodes are fitted into.
    p.setFont(font());
    const QFontMetrics fmw = fontMetrics();
    const QString note = noteText();
    const QRect noteBox(6, 4, std::min(width() - 12, fmw.horizontalAdvance(note) + 12), fmw.height() + 6);
    p.fillRect(noteBox, QColor(255, 255, 255, 230));
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(noteBox, Qt::AlignCenter, fmw.elidedText(note, Qt::ElideRight, noteBox.width() - 8));
    const QRect legend = legendRect();
    p.fillRect(legend, palette().window());
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(legend.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft,
               fmw.elidedText(tr("→ calls between services (width: count; label: calls · p50 · p99 of what the caller waited)   "
                                 "- - → nesting inside a service   double-click a service: expand into operations / collapse"),
                              Qt::ElideRight, legend.width() - 16));
}

QPainterPath ServiceMapView::edgePath(int edge) const {
    const auto& e = m_graph.edges[static_cast<std::size_t>(edge)];
    QPainterPath path;
    const QRectF from = nodeRect(static_cast<int>(e.from)), to = nodeRect(static_cast<int>(e.to));
    if (m_layoutEdge[static_cast<std::size_t>(edge)] < 0) {  // a self-loop: an arc over the node's top
        const QPointF a(from.right() - from.width() * 0.3, from.top()), b(from.left() + from.width() * 0.3, from.top());
        const double rise = std::max(18.0, 30 * m_scale);
        path.moveTo(a);
        path.cubicTo(a + QPointF(10, -rise), b + QPointF(-10, -rise), b);
        return path;
    }
    const auto& pts = m_layout.edgePaths[static_cast<std::size_t>(m_layoutEdge[static_cast<std::size_t>(edge)])];
    if (pts.size() >= 4) {
        path.moveTo(toWidget(pts[0]));
        for (std::size_t k = 1; k + 2 < pts.size(); k += 3) path.cubicTo(toWidget(pts[k]), toWidget(pts[k + 1]), toWidget(pts[k + 2]));
    } else {
        path.moveTo(from.center());
        path.lineTo(to.center());
    }
    return path;
}

int ServiceMapView::edgeAt(const QPoint& pos) const {
    if (m_layoutEdge.size() != m_graph.edges.size()) return -1;  // not laid out yet
    QPainterPathStroker stroker;
    stroker.setWidth(8);  // a few pixels either side of the line
    for (std::size_t i = 0; i < m_graph.edges.size(); ++i) {
        const QPainterPath path = edgePath(static_cast<int>(i));
        if (path.boundingRect().adjusted(-5, -5, 5, 5).contains(pos) && stroker.createStroke(path).contains(pos)) return static_cast<int>(i);
    }
    return -1;
}

QString ServiceMapView::edgeToolTip(int edge) const {
    const auto& e = m_graph.edges[static_cast<std::size_t>(edge)];
    const QString from = QString::fromStdString(m_graph.nodes[e.from].label()).toHtmlEscaped();
    const QString to = QString::fromStdString(m_graph.nodes[e.to].label()).toHtmlEscaped();
    if (e.nesting) return tr("<b>%1</b> → <b>%2</b><br>%L3 nested (an operation inside another of one service)").arg(from, to).arg(e.calls);
    QString tip = tr("<b>%1</b> → <b>%2</b><br>%L3 %4<br>what the caller waited: p50 %5 · p99 %6 · max %7<br>the callee's work: p50 %8 · p99 %9")
                      .arg(from, to)
                      .arg(e.calls)
                      .arg(e.calls == 1 ? tr("call") : tr("calls"))
                      .arg(ms(e.p50Ns), ms(e.p99Ns), ms(e.maxNs), ms(e.calleeP50Ns), ms(e.calleeP99Ns));
    if (e.hopCalls > 0)
        tip += tr("<br>the hop between them (network, queues): p50 %1 · p99 %2%3")
                   .arg(ms(e.hopP50Ns), ms(e.hopP99Ns))
                   .arg(e.hopCalls < e.calls ? tr(" (the %L1 calls made from a client span)").arg(e.hopCalls) : QString());
    return tip;
}

bool ServiceMapView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int n = nodeAt(help->pos());
        const int edge = n < 0 ? edgeAt(help->pos()) : -1;  // a node sits over the ends of its edges
        if (n >= 0) QToolTip::showText(help->globalPos(), nodeToolTip(n), this);
        else if (edge >= 0) QToolTip::showText(help->globalPos(), edgeToolTip(edge), this);
        else QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void ServiceMapView::wheelEvent(QWheelEvent* e) {
    const double factor = std::pow(1.25, e->angleDelta().y() / 120.0);
    const QPointF anchor = toGraph(e->position());
    m_scale = std::clamp(m_scale * factor, 0.02, 8.0);
    m_offset = e->position() - anchor * m_scale;
    update();
}

void ServiceMapView::mousePressEvent(QMouseEvent* e) {
    m_pressPos = e->pos();
    m_pressOffset = m_offset;
    m_dragging = false;
}

void ServiceMapView::mouseMoveEvent(QMouseEvent* e) {
    if (!(e->buttons() & (Qt::LeftButton | Qt::MiddleButton))) return;
    if ((e->pos() - m_pressPos).manhattanLength() > 3) m_dragging = true;
    if (m_dragging) {
        m_offset = m_pressOffset + QPointF(e->pos() - m_pressPos);
        update();
    }
}

void ServiceMapView::mouseReleaseEvent(QMouseEvent* e) {
    if (m_dragging || e->button() != Qt::LeftButton) return;
    m_selected = nodeAt(e->pos());
    update();
    if (m_selected >= 0) emit nodeClicked(m_selected);
}

void ServiceMapView::mouseDoubleClickEvent(QMouseEvent* e) {
    const int n = nodeAt(e->pos());
    if (n < 0) {
        fit();
        return;
    }
    toggleService(QString::fromStdString(m_graph.nodes[static_cast<std::size_t>(n)].service));
}

void ServiceMapView::contextMenuEvent(QContextMenuEvent* e) {
    QMenu menu(this);
    const int n = nodeAt(e->pos());
    if (n >= 0) {
        const QString service = QString::fromStdString(m_graph.nodes[static_cast<std::size_t>(n)].service);
        if (isExpanded(service)) menu.addAction(tr("Collapse %1").arg(service), this, [this, service] { collapseService(service); });
        else menu.addAction(tr("Expand %1 into its operations").arg(service), this, [this, service] { expandService(service); });
        menu.addSeparator();
    }
    menu.addAction(tr("Expand all services"), this, [this] { setAllExpanded(true); });
    menu.addAction(tr("Collapse all services"), this, [this] { setAllExpanded(false); });
    menu.addAction(tr("Fit"), this, &ServiceMapView::fit);
    menu.exec(e->globalPos());
}

} // namespace tracelight::widgets
