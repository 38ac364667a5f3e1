#pragma once
// One side of a comparison entry's flow graphs, or their diff (core's FlowGraphPair), drawn on a layout of
// the merged graph that both sides share, so the mutation and its precursor sit node for node in the same
// places. Nodes are segments with their mean duration; a red border marks a red edge (a segment type whose
// latency changed). Diff: nodes and edges only in the first (problem) graph green, only in the second
// (baseline) orange and dashed. Double-click opens the side's representative request; the context menu
// saves the picture (PNG, SVG, PDF).
#include <QTransform>
#include <QWidget>
#include <memory>

#include "graph/GraphLayout.h"
#include "tracelight/compare/FlowGraph.h"

namespace tracelight::widgets {

class FlowGraphView : public QWidget {
    Q_OBJECT
public:
    enum class Mode { First, Second, Diff };
    explicit FlowGraphView(Mode mode, QWidget* parent = nullptr);

    // The merged graph, the node boxes it was laid out with, and the layout.
    struct Drawing {
        FlowGraphPair pair;
        GraphLayoutInput input;
        GraphLayoutResult layout;
    };
    void setDrawing(std::shared_ptr<const Drawing> drawing);
    void setMessage(const QString& message);  // instead of a graph (computing, no entry, an error)
    Mode mode() const { return m_mode; }
    int drawnNodes() const;  // nodes of this view's side (all in a diff)
    QPointF nodeCenter(std::size_t node) const;  // where a node of the merged graph is drawn, in this widget
    bool isChangedNode(std::size_t node) const;  // a red edge's node
    QSize sizeHint() const override { return {600, 400}; }

    // The merged graph's node boxes from the font's average character width and line height (measured on
    // the GUI thread; the layout runs on a worker), and the drawing laid out within the usual budget.
    static std::shared_ptr<const Drawing> layOut(FlowGraphPair pair, double charWidth, double lineHeight);

signals:
    void requestActivated(RequestId id);

protected:
    void paintEvent(QPaintEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;  // a node's tooltip: its whole label and both means

private:
    bool shows(bool inFirst, bool inSecond) const;
    QTransform viewTransform() const;  // layout coordinates to the view's
    int nodeAt(QPointF pos) const;     // -1: none
    QString nodeText(const FlowNode& node) const;
    // In its scroll area, what matters in view: the nodes with a red edge (and, in a diff, those only one side
    // has), else the first segment. Done when the view is next shown: a hidden tab has no size to scroll by.
    void scrollToWhatMatters();
    bool m_scrollPending = false;

    Mode m_mode;
    std::shared_ptr<const Drawing> m_drawing;
    QString m_message;
};

} // namespace tracelight::widgets
