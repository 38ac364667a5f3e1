#pragma once
// Cumulative distributions with labelled percentiles: what-if latencies before and after, and the
// distribution of a category's slack with a cut-off line you can drag (the share above it is shown).
#include <QWidget>
#include <vector>

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;

namespace tracelight::widgets {

class CdfPlot : public QWidget {
    Q_OBJECT
public:
    explicit CdfPlot(QWidget* parent = nullptr);
    // Each series: name and values; drawn as value * scale with the unit (default: microseconds drawn in ms).
    void setSeries(const QString& xLabel, const std::vector<std::pair<QString, std::vector<float>>>& series, bool logX = false,
                   double scale = 0.001, const QString& unit = QStringLiteral("ms"));
    // A draggable vertical line; cutOffMoved reports the share of the first series above it.
    void setCutOff(double ms);
    double cutOffMs() const { return m_cutOffMs; }
    double shareAbove(double ms) const;
    QCustomPlot* plot() const { return m_plot; }
    QString csv() const;

signals:
    void cutOffMoved(double ms, double shareAbove);

private:
    void placeCutOff(double ms);
    QCustomPlot* m_plot;
    std::vector<std::pair<QString, std::vector<float>>> m_series;  // sorted values
    QCPItemStraightLine* m_cutOff = nullptr;
    QCPItemText* m_cutOffLabel = nullptr;
    double m_cutOffMs = -1;
    double m_scale = 0.001;
    QString m_unit = QStringLiteral("ms");
    bool m_dragging = false;
};

} // namespace tracelight::widgets
