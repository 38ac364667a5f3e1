#pragma once
// Cumulative distributions with labelled percentiles: what-if latencies before and after, and the
// distribution of a category's slack with a cut-off line you can drag (the share above it is shown).
#include <QColor>
#include <QVector>
#include <QWidget>
#include <vector>

#include "tracelight/base/Time.h"

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;

namespace tracelight::widgets {

// One distribution ready to draw: sorted values and the steps to plot. Making it sorts the values, so for
// large inputs make it on a worker (the job runner) and hand the result to the plot on the GUI thread.
struct CdfSeries {
    QString name;
    std::vector<float> values;  // ascending
    QVector<double> x, y;       // at most ~2,000 steps, x in the plot's unit
    double p50 = 0, p95 = 0, p99 = 0;  // in the plot's unit
    QColor colour;              // invalid: the plot's own colour for the series' position
};
CdfSeries makeCdfSeries(QString name, std::vector<float> values, double scale = 0.001, QColor colour = QColor());
// Durations (core's nanoseconds) as a series in microseconds, drawn in milliseconds.
CdfSeries makeDurationCdfSeries(QString name, const std::vector<TimeNs>& durations);

class CdfPlot : public QWidget {
    Q_OBJECT
public:
    explicit CdfPlot(QWidget* parent = nullptr);
    // Each series: name and values; drawn as value * scale with the unit (default: microseconds drawn in ms).
    // Small inputs only: sorts here, on the calling thread.
    void setSeries(const QString& xLabel, const std::vector<std::pair<QString, std::vector<float>>>& series, bool logX = false,
                   double scale = 0.001, const QString& unit = QStringLiteral("ms"));
    // Series made by makeCdfSeries with the same scale: only draws.
    void setSeries(const QString& xLabel, std::vector<CdfSeries> series, bool logX = false, double scale = 0.001,
                   const QString& unit = QStringLiteral("ms"));
    // A draggable vertical line; cutOffMoved reports the share of the first series above it.
    void setCutOff(double ms);
    double cutOffMs() const { return m_cutOffMs; }
    double shareAbove(double ms) const;
    QCustomPlot* plot() const { return m_plot; }
    QString csv() const;
    // What the plot says over its curves when its series are too short to be distributions; "" otherwise.
    QString noteText() const;

signals:
    void cutOffMoved(double ms, double shareAbove);

private:
    void placeCutOff(double ms);
    QCustomPlot* m_plot;
    std::vector<CdfSeries> m_series;
    QCPItemStraightLine* m_cutOff = nullptr;
    QCPItemText* m_cutOffLabel = nullptr;
    double m_cutOffMs = -1;
    double m_logLeft = 0;  // a log axis's left edge, where zeros are drawn (0: linear axis)
    double m_scale = 0.001;
    QString m_unit = QStringLiteral("ms");
    bool m_dragging = false;
};

} // namespace tracelight::widgets
