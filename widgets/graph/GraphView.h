#pragma once
// The inferred dependency graph: segment types as nodes (coloured by task, sized by mean duration or
// critical-path share), happens-before edges after transitive reduction laid out off the GUI thread
// (Graphviz dot within a budget, else a layered layout of our own; the view says which),
// mutual exclusion and pipelines drawn distinctly, edge width by support, unconfirmed edges dashed
// and hidden below a support threshold. ModelOverview adds the controls, node details and the
// convergence plot.
#include <QWidget>
#include <memory>
#include <set>
#include <string>

#include "graph/GraphLayout.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/studies/ServiceMap.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;
class QStackedWidget;
class QTextBrowser;
class QCustomPlot;

namespace tracelight::widgets {

class JobRunner;
class ServiceMapView;

class GraphView : public QWidget {
    Q_OBJECT
public:
    enum class NodeSize { MeanDuration, CriticalShare };

    explicit GraphView(QWidget* parent = nullptr);
    // collapseTasks: start with every task collapsed (a big model), else keep the tasks collapsed before.
    void setGraph(std::shared_ptr<const ModelGraph> graph, bool collapseTasks = false);
    // The graph as drawn: the model with collapsed tasks merged into one node each (the model itself when
    // none is collapsed). Node indices of the view are indices into it.
    const ModelGraph* graph() const { return m_graph.get(); }
    const ModelGraph* sourceGraph() const { return m_source.get(); }
    // Clusters per task: a collapsed task is one node ("N segment types"), its edges merged (the strongest
    // support kept, confirmed if any was), edges inside it dropped. Double-click a node or use the context
    // menu to collapse or expand its task.
    void setTaskCollapsed(const QString& task, bool collapsed);
    void setAllTasksCollapsed(bool collapsed);
    bool isTaskCollapsed(const QString& task) const { return m_collapsed.count(task.toStdString()) > 0; }
    int collapsedMembers(int node) const;  // source types behind a display node (1: not collapsed)
    int nodeForType(std::uint32_t sourceType) const;  // -1 when out of range
    void setNodeSize(NodeSize size);
    void setMinimumSupport(std::int64_t support);  // edges below it are hidden
    void setShowUnconfirmed(bool show);
    int findAndFocus(const QString& text);         // highlights matches, centres the first; returns the count
    void selectNode(int node);
    int selectedNode() const { return m_selected; }
    // The default zoom: the whole graph when its labels stay legible that way, else the legible zoom
    // (kLegibleScale) from the graph's left end (its sources). fitWhole: everything, however small.
    void fit();
    void fitWhole();
    double scale() const { return m_scale; }
    static constexpr double kLegibleScale = 0.7;
    static constexpr double kMaxNodeWidthPx = 220;  // longer task names are elided (the full name on hover)
    QRect legendRect() const;   // the legend: a band across the bottom
    QRectF graphArea() const;   // where the graph is drawn: between the layout note and the legend

    int nodeAt(const QPoint& pos) const;
    QRectF nodeRect(int node) const;  // in widget coordinates
    int visibleEdgeCount() const;
    // Above this many mutual-exclusion and pipeline relations, only the selected node's are drawn.
    static constexpr std::size_t kMaxRelationsDrawn = 500;
    bool relationsOfSelectionOnly() const;
    QString layoutError() const { return m_layout.error; }
    // The layout runs on a worker (the job runner); until it arrives the view says it is laying out.
    bool isLayoutPending() const { return m_layoutPending; }
    bool waitForLayout();  // runs the event loop until the layout is in (tests, render); false if none pending
    GraphLayoutMethod layoutMethod() const { return m_layout.method; }
    QString layoutDescription() const { return m_layout.description; }
    void setLayoutBudget(const GraphLayoutBudget& budget) { m_budget = budget; }
    QSize sizeHint() const override { return {900, 600}; }

signals:
    void nodeClicked(int node);
    void layoutReady();

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
    void rebuildDisplay();  // m_graph from m_source and the collapsed tasks, then relayout
    void relayout();
    double sizeMeasure(int node) const;  // what node height encodes
    QSizeF nodeSize(int node, double largestMeasure) const;
    QPointF toWidget(QPointF p) const { return p * m_scale + m_offset; }
    QPointF toGraph(QPointF p) const { return (p - m_offset) / m_scale; }
    bool edgeVisible(const ModelGraph::Edge& e) const;

    std::shared_ptr<const ModelGraph> m_source;
    std::shared_ptr<const ModelGraph> m_graph;
    std::set<std::string> m_collapsed;
    std::vector<int> m_members;     // per display node: source types merged into it
    std::vector<int> m_displayOf;   // per source type: its display node
    GraphLayoutResult m_layout;
    GraphLayoutBudget m_budget;
    JobRunner* m_layoutJob;
    bool m_layoutPending = false;
    std::vector<QSizeF> m_sizes;
    NodeSize m_sizeBy = NodeSize::CriticalShare;
    std::int64_t m_minimumSupport = 0;
    bool m_showUnconfirmed = true;
    double m_scale = 1.0;
    QPointF m_offset;
    int m_selected = -1;
    std::vector<bool> m_highlight;
    QPoint m_pressPos;
    QPointF m_pressOffset;
    bool m_dragging = false;
    bool m_fitted = false;
    bool m_zoomedToLegible = false;
};

// Relations alive vs requests processed, for happens-before and mutual exclusion (log x axis).
class ConvergencePlot : public QWidget {
    Q_OBJECT
public:
    explicit ConvergencePlot(QWidget* parent = nullptr);
    void setGraph(const ModelGraph* graph);
    QCustomPlot* plot() const { return m_plot; }

private:
    QCustomPlot* m_plot;
};

// The graph tab: the causal model (every input), or for span data the service map and the operation graph.
// The mode is remembered (QSettings "graph/mode"); without spans only the causal model is offered.
class ModelOverview : public QWidget {
    Q_OBJECT
public:
    enum class Mode { CausalModel = 0, ServiceMap = 1, Operations = 2 };

    explicit ModelOverview(QWidget* parent = nullptr);
    void setGraph(std::shared_ptr<const ModelGraph> graph);
    void setServiceMap(std::shared_ptr<const ServiceMap> map);  // null or empty: event logs, no service modes
    void setMode(Mode mode);  // a service mode without spans shows the causal model
    Mode mode() const;
    bool hasServiceMap() const;
    bool isLayoutPending() const;
    GraphView* graphView() const { return m_view; }
    ServiceMapView* serviceMapView() const { return m_services; }
    QComboBox* modeBox() const { return m_mode; }
    // Above this many segment types the model opens with its tasks collapsed (one node each) so it stays
    // readable; double-click or the context menu expands a task.
    static constexpr std::size_t kCollapseTasksAbove = 150;
    void focusSearch();
    void selectType(const QString& segmentName);  // e.g. from a waterfall click
    // The periods the model may be inferred over (the Mystery Machine's model of a window); the one chosen
    // stays chosen while it exists. period(): the name chosen, empty for every request.
    void setPeriods(const QStringList& periods);
    QString period() const;
    void setPeriod(const QString& period);  // emits periodChosen when it changes the choice
    QComboBox* periodBox() const { return m_period; }

signals:
    void requestActivated(const QString& requestName);
    void periodChosen(const QString& period);  // empty: every request (the cached model)

private:
    void showNode(int node);

    void showMode(Mode mode);

    std::shared_ptr<const ModelGraph> m_graph;
    GraphView* m_view;
    ServiceMapView* m_services;
    QStackedWidget* m_pages;
    QComboBox* m_mode;
    QComboBox* m_period;
    QWidget* m_modelControls;
    Mode m_wanted = Mode::ServiceMap;  // what the user chose last; shown when there are spans
    ConvergencePlot* m_convergence;
    QLineEdit* m_search;
    QComboBox* m_sizeBy;
    QSlider* m_support;
    QLabel* m_supportLabel;
    QCheckBox* m_unconfirmed;
    QTextBrowser* m_details;
};

} // namespace tracelight::widgets
