#pragma once
// Spectroscope's Figure 9 for the two compared periods: each request drawn where it arrived (seconds since
// its period's first request, so the periods overlay) at the height of its response time (log scale), with
// each period's arrival rate in the legend. On local clocks each arrival is the request's first event on its
// host's recorded clock. Right-click saves it or copies the points as CSV.
#include <QWidget>
#include <memory>

#include "tracelight/compare/PeriodComparison.h"

class QCustomPlot;

namespace tracelight::widgets {

class PeriodTimeline : public QWidget {
    Q_OBJECT
public:
    explicit PeriodTimeline(QWidget* parent = nullptr);
    void setComparison(std::shared_ptr<const PeriodComparison> comparison);
    void setLocalClocks(bool local);
    bool localClocks() const { return m_local; }
    QCustomPlot* plot() const { return m_plot; }
    QString csv() const;

private:
    QCustomPlot* m_plot;
    std::shared_ptr<const PeriodComparison> m_comparison;
    bool m_local = false;
};

} // namespace tracelight::widgets
