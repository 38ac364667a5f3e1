#pragma once
// Swim lanes of one request: a lane per host, a sub-lane per task, every segment a bar at its
// (adjusted or local) time, network segments as connectors between lanes, the critical path
// highlighted and repeated in the top lane with its blind time hatched, slack as a faint extension.
// Draws only the visible time range and folds runs narrower than a few pixels into one counted mark.
#include <utility>
#include <QWidget>
#include <memory>
#include <optional>
#include <span>

#include "waterfall/WaterfallLayout.h"

class QRubberBand;
class QScrollBar;

namespace tracelight::widgets {

class WaterfallView : public QWidget {
    Q_OBJECT
public:
    explicit WaterfallView(QWidget* parent = nullptr);

    void setRequest(std::shared_ptr<const RequestDetail> detail);
    // With its layout built beforehand, off the GUI thread (a million-span trace's takes a fifth of a
    // second); built again if the view's clocks differ from the layout's by now, or the layout is not of
    // this detail's segments.
    void setRequest(std::shared_ptr<const RequestDetail> detail, WaterfallLayout layout);
    const RequestDetail* request() const { return m_detail.get(); }
    std::shared_ptr<const RequestDetail> sharedRequest() const { return m_detail; }
    // The dependencies of a request loaded with them to follow (RequestDetail::dependenciesFollow); ignored
    // for any other request than the one shown.
    void setDependencies(const RequestDetail* detail, std::shared_ptr<const RequestDependencies> dependencies);
    // The request graph's edges drawn for a selection; empty while they follow.
    std::span<const DagEdge> dependencies() const;
    bool dependenciesKnown() const { return m_detail && (!m_detail->dependenciesFollow || m_dependencies); }
    void setLocalClocks(bool local);
    bool localClocks() const { return m_local; }

    // Visible time range, microseconds from the request's first event.
    void setVisibleRange(double fromUs, double toUs);
    double visibleFromUs() const { return m_fromUs; }
    double visibleToUs() const { return m_toUs; }
    void fit();
    void zoom(double factor, double anchorX);

    void selectSegment(int segment);
    int selectedSegment() const { return m_selected; }

    // Geometry, for hit-testing and tests: the bar of a segment in its own row, or null when hidden.
    int segmentAt(const QPoint& pos) const;
    QRectF segmentRect(int segment) const;
    int rowTop(int row) const;
    const WaterfallLayout& layout() const { return m_layout; }

    struct PaintStats {
        int bars = 0;          // segments drawn as their own bar
        int foldedMarks = 0;   // marks standing for several segments
        int foldedSegments = 0;
    };
    PaintStats lastPaintStats() const { return m_stats; }

    QSize sizeHint() const override { return {900, 500}; }

signals:
    void segmentClicked(int segment);
    void visibleRangeChanged(double fromUs, double toUs);

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    bool event(QEvent*) override;

private:
    double xOf(double us) const;
    double startUs(std::size_t segment) const { return m_layout.startUs(*m_detail, segment); }
    double endUs(std::size_t segment) const { return m_layout.endUs(*m_detail, segment); }
    double usAt(double x) const;
    int plotLeft() const { return kGutter; }
    int plotRight() const;
    int rowAtY(int y) const;
    std::pair<int, int> rowsInView() const;  // first and last lane in view; empty when first > last
    int rowHeight(int row) const;
    int contentHeight() const;
    void relayout();
    // Shows a request with its layout when one fits the view's clocks, else builds it.
    void takeRequest(std::shared_ptr<const RequestDetail> detail, std::optional<WaterfallLayout> layout);
    void useLayout(WaterfallLayout layout);  // the rows' tops and the scroll bar follow it
    void updateScrollBar();
    QString tooltipFor(int segment) const;
    void paintAxis(QPainter& p);
    void paintRows(QPainter& p);
    void paintNetwork(QPainter& p);
    void paintSelection(QPainter& p);
    void paintLegend(QPainter& p);

    static constexpr int kGutter = 190;
    static constexpr int kAxisHeight = 28;
    static constexpr int kLegendHeight = 22;
    static constexpr int kFoldPx = 3;

    std::shared_ptr<const RequestDetail> m_detail;
    std::shared_ptr<const RequestDependencies> m_dependencies;  // of m_detail, when they followed
    WaterfallLayout m_layout;
    std::vector<int> m_rowY;  // content y of each row's top, then of the content's bottom
    bool m_local = false;
    double m_fromUs = 0, m_toUs = 1;
    int m_selected = -1;
    QScrollBar* m_scroll = nullptr;
    QRubberBand* m_rubber = nullptr;
    QPoint m_pressPos;
    double m_panFromUs = 0;
    bool m_panning = false;
    bool m_banding = false;
    mutable PaintStats m_stats;
};

} // namespace tracelight::widgets
