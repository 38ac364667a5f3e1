#pragma once
// The service map of span data: services as nodes (labelled with their span count), calls as edges
// (labelled with call count and p50 / p99 latency, width by calls). A service expands into its operations
// (double-click, or the context menu) with the call and nesting edges between them, drawn inside a box named
// after the service, and collapses again the same way. The graph comes from core (ServiceMap::graph); the
// layout runs on a worker (Graphviz within a budget, else the layered layout), never on the GUI thread.
#include <QPainterPath>
#include <QWidget>
#include <memory>
#include <set>
#include <string>

#include "graph/GraphLayout.h"
#include "tracelight/studies/ServiceMap.h"

namespace tracelight::widgets {

class JobRunner;

class ServiceMapView : public QWidget {
    Q_OBJECT
public:
    explicit ServiceMapView(QWidget* parent = nullptr);
    void setServiceMap(std::shared_ptr<const ServiceMap> map);
    const ServiceMap* serviceMap() const { return m_map.get(); }
    const ServiceGraph& graph() const { return m_graph; }

    // Expansion: a service shows as its operations; all expanded is the operation graph.
    void expandService(const QString& service);
    void collapseService(const QString& service);
    void toggleService(const QString& service);
    void setAllExpanded(bool expanded);
    bool isExpanded(const QString& service) const { return m_expanded.count(service.toStdString()) > 0; }
    int expandedCount() const { return static_cast<int>(m_expanded.size()); }

    int nodeAt(const QPoint& pos) const;
    int nodeIndex(const QString& label) const;  // "service" or "service:operation"; -1 when not shown
    QRectF nodeRect(int node) const;            // in widget coordinates
    QRectF clusterRect(const QString& service) const;  // an expanded service's box, widget coordinates
    QRect legendRect() const;                   // where the legend sits (no node under it at the default zoom)
    void fit();
    bool isLayoutPending() const { return m_layoutPending; }
    bool waitForLayout();
    GraphLayoutMethod layoutMethod() const { return m_layout.method; }
    QString layoutDescription() const { return m_layout.description; }
    // The note over the map: the layout, the counts, and how many services are outside the view (then how to
    // reach them).
    QString noteText() const;
    QString nodeToolTip(int node) const;
    int edgeAt(const QPoint& pos) const;        // -1 when none passes within a few pixels
    QString edgeToolTip(int edge) const;
    QPainterPath edgePath(int edge) const;       // in widget coordinates, as drawn
    QSize sizeHint() const override { return {900, 600}; }

    static constexpr double kMaxNodeWidthPx = 220;
    static constexpr double kLegibleScale = 0.8;  // the default zoom never goes below it (labels stay legible)  // longer names are elided (full name on hover)

signals:
    void layoutReady();
    void nodeClicked(int node);
    void expansionChanged();

protected:
    void paintEvent(QPaintEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void contextMenuEvent(QContextMenuEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    bool event(QEvent*) override;

private:
    void rebuild();  // the graph for the current expansion, then a layout on the worker
    QStringList nodeLines(const ServiceGraphNode& n) const;
    QPointF toWidget(QPointF p) const { return p * m_scale + m_offset; }
    QPointF toGraph(QPointF p) const { return (p - m_offset) / m_scale; }
    QRectF graphArea() const;  // the widget minus the layout note and the legend

    std::shared_ptr<const ServiceMap> m_map;
    std::set<std::string> m_expanded;
    ServiceGraph m_graph;
    GraphLayoutResult m_layout;
    std::vector<QSizeF> m_sizes;
    std::vector<int> m_layoutEdge;  // graph edge -> layout edge (-1: a self-loop, drawn by the view)
    JobRunner* m_layoutJob;
    bool m_layoutPending = false;
    double m_scale = 1.0;
    QPointF m_offset;
    int m_selected = -1;
    QPoint m_pressPos;
    QPointF m_pressOffset;
    bool m_dragging = false;
};

} // namespace tracelight::widgets
