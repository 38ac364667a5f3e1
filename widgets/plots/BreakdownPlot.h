#pragma once
// Mean summed delay vs mean critical-path time per category (Mystery Machine, Figure 5), as stacked
// bars, in milliseconds or as percent of each bar; one pair of bars per stratum, annotated with the
// share of requests it holds. The ten categories with the most critical time keep a colour of their own;
// the rest are summed as a grey "other", so that span data's dozens of services stay readable.
#include <QColor>
#include <QWidget>
#include <vector>

#include "tracelight/studies/Aggregates.h"

class QCustomPlot;
class QCPBars;
class QCPTextElement;

namespace tracelight::widgets {

class BreakdownPlot : public QWidget {
    Q_OBJECT
public:
    explicit BreakdownPlot(QWidget* parent = nullptr);
    // groups: (label, breakdown) with every category; a single group is the whole population.
    void setBreakdowns(std::vector<std::pair<QString, Breakdown>> groups);
    void setPercent(bool percent);
    QCustomPlot* plot() const { return m_plot; }
    QString csv() const;  // every category, none folded into "other"
    // One legend entry per category shown: its summed-delay (paler) and critical-path shades.
    struct LegendEntry {
        QString name;
        QColor summed, critical;
    };
    std::vector<LegendEntry> legendEntries() const { return m_legend; }
    QColor colourOf(const QString& category) const;  // its critical-path shade; invalid when not shown
    QString toolTipAt(const QPoint& pos) const;       // what the bar under pos is; empty off the bars

private:
    void rebuild();
    QCustomPlot* m_plot;
    std::vector<std::pair<QString, Breakdown>> m_groups;
    std::vector<std::pair<QString, Breakdown>> m_shown;  // with the small categories folded into "other"
    QStringList m_folded;                                // the categories "other" sums
    std::vector<LegendEntry> m_legend;
    struct BarInfo {
        QCPBars* bars;
        std::size_t category;  // in m_shown's categories
        bool critical;         // the right (critical-path) bar, else the summed delay
    };
    std::vector<BarInfo> m_bars;
    bool m_percent = false;
    QCPTextElement* m_note = nullptr;  // the legend's line on the paler bars
};

} // namespace tracelight::widgets
