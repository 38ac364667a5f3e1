#pragma once
// One point per request: a category's time (its span, e.g. the server's generation time) against the
// end-to-end latency, coloured by that category's slack, with the y = x line (Mystery Machine,
// Figure 10). Above a threshold of points it becomes a heat map (requests per cell), so a million
// requests stay fluid. Dragging selects (brushes) requests; clicking one opens it.
#include <QWidget>
#include <memory>
#include <vector>

#include "tracelight/studies/Aggregates.h"

class QCustomPlot;
class QCPColorMap;
class QLabel;

namespace tracelight::widgets {

class JobRunner;

class SlackScatter : public QWidget {
    Q_OBJECT
public:
    explicit SlackScatter(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const RequestAggregates> aggregates, int category);
    void setHeatMapThreshold(std::size_t points) { m_heatMapThreshold = points; }
    // Above this many requests the points are split and binned on a worker (the job runner), not here.
    void setBackgroundThreshold(std::size_t requests) { m_backgroundThreshold = requests; }
    bool isComputing() const;
    bool heatMap() const { return m_heatMap; }
    QCustomPlot* plot() const { return m_plot; }
    // Why the category has nothing to show, said instead of drawing the plot (the root service of span data:
    // every point on the diagonal, no slack); empty when the plot is drawn.
    QString notice() const;
    QString toolTipAt(const QPoint& pos) const;  // the request under pos; empty when none
    QString csv() const;
    // Rows inside a rectangle in data coordinates (ms): what a brush selects.
    std::vector<std::uint32_t> rowsIn(double x0, double x1, double y0, double y1) const;
    int rowNear(double xMs, double yMs) const;  // the request nearest a point, -1 when none

signals:
    void requestsBrushed(const std::vector<RequestId>& ids);
    void requestActivated(RequestId id);
    void drawn();  // the points (or the heat map) of the last setData are on the plot

private:
    struct Layout;
    void rebuild();
    void draw(const Layout& layout);
    JobRunner* m_job;
    QCustomPlot* m_plot;
    QLabel* m_notice;
    std::shared_ptr<const RequestAggregates> m_data;
    int m_category = 0;
    std::size_t m_heatMapThreshold = 100000;
    std::size_t m_backgroundThreshold = 20000;
    bool m_heatMap = false;
};

} // namespace tracelight::widgets
