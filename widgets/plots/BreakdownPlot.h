#pragma once
// Mean summed delay vs mean critical-path time per category (Mystery Machine, Figure 5), as stacked
// bars, in microseconds or as percent of each bar; one pair of bars per stratum, annotated with the
// share of requests it holds.
#include <QWidget>
#include <vector>

#include "tracelight/studies/Aggregates.h"

class QCustomPlot;
class QCPTextElement;

namespace tracelight::widgets {

class BreakdownPlot : public QWidget {
    Q_OBJECT
public:
    explicit BreakdownPlot(QWidget* parent = nullptr);
    // groups: (label, breakdown); a single group is the whole population.
    void setBreakdowns(std::vector<std::pair<QString, Breakdown>> groups);
    void setPercent(bool percent);
    QCustomPlot* plot() const { return m_plot; }
    QString csv() const;

private:
    void rebuild();
    QCustomPlot* m_plot;
    std::vector<std::pair<QString, Breakdown>> m_groups;
    bool m_percent = false;
    QCPTextElement* m_note = nullptr;  // the legend's line on the paler bars
};

} // namespace tracelight::widgets
