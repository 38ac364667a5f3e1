#pragma once
// The Bottlenecks tab (BOSS; docs/user/bottlenecks.md): for every request, a period, or one
// stratum of a "slice by" attribute, the bottleneck types ranked by their contribution ratio in a sortable
// table with how to fix them, the shares as bars and as a pie, a stacked trend of the mean contribution per
// request over time, and each request's latency over time, where clicking a point opens its waterfall.
// Asked of the session (computeRequested: core's computeBottleneckTrend on a worker), progress in the status line.
#include <QWidget>
#include <QColor>
#include <memory>
#include <unordered_map>

#include "common/RequestScope.h"
#include "tracelight/analysis/Analysis.h"
#include "bottleneck/BottleneckCharts.h"
#include "tracelight/bottleneck/BottleneckTrend.h"
#include "bottleneck/BottleneckRequest.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QSplitter;
class QTableWidget;

namespace tracelight::widgets {

class BottleneckPie;

class BottlenecksView : public QWidget {
    Q_OBJECT
public:
    explicit BottlenecksView(QWidget* parent = nullptr);

    void setDatabase(std::shared_ptr<const InMemoryAnalysis> analysis, const QStringList& periods,
                     const QStringList& attributeKeys);
    void clear(const QString& message);
    void refresh();  // again, with the rules and categories now stored (computed when next shown)
    void setPeriod(const QString& period);  // "" = the scope
    // The requests the table lists: what "Listed requests", the first choice of requests, covers.
    void setScope(const RequestScope& scope);
    QComboBox* requestsChoice() const { return m_period; }  // the scope, a period, ...
    void setSliceBy(const QString& attribute, const QString& value = {});  // "" = no strata; value "" = all of them
    // A latency slice of the requests: "LO..HI" percentiles ("90..100": the slowest 10 %); "" = every latency.
    void setLatencyPercentile(const QString& range);
    QComboBox* latencyChooser() const { return m_latency; }
    // Before and after: the requests against a period ("" = no comparison).
    void setCompareWith(const QString& period);
    QComboBox* compareChooser() const { return m_compareWith; }
    const BottleneckComparison* comparison() const { return m_comparison.get(); }
    bool isComputing() const;  // asked, and its result not yet shown
    // The session's answer to computeRequested, and its progress on the way.
    void showOutcome(std::shared_ptr<const BottleneckOutcome> outcome);
    void showProgress(double fraction, const QString& stage);
    QString statusText() const;

    const BottleneckTrend* trend() const { return m_trend.get(); }
    QTableWidget* table() const { return m_table; }
    QComboBox* strataChooser() const { return m_stratum; }
    QCustomPlot* sharePlot() const { return m_bars; }
    QCustomPlot* trendPlot() const { return m_trendPlot; }
    QCustomPlot* scatterPlot() const { return m_scatter; }
    QCustomPlot* strataPlot() const { return m_strataPlot; }  // shown when a slice is shown whole
    BottleneckPie* pie() const { return m_pie; }

    // Table columns.
    // Before, Change, Chance and p: shown when comparing with a period (Compare with).
    enum Column { TypeColumn = 0, ShareColumn, MeanColumn, BeforeColumn, ChangeColumn, ChanceColumn, PValueColumn, HowToFixColumn };

signals:
    void computeRequested(const BottleneckRequest& request);  // answered with showOutcome
    void resultsReady();
    void requestActivated(RequestId id);  // a point of the latency scatter: "open in the waterfall"

protected:
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void compute();
    void showResults(std::shared_ptr<const BottleneckTrend> trend);
    void fillTable(const BottleneckSummary& summary, const std::unordered_map<std::string, QColor>& colours);
    void setPieShown(bool shown);  // hidden while comparing: its room goes to the table

    std::shared_ptr<const InMemoryAnalysis> m_analysis;
    std::shared_ptr<const BottleneckTrend> m_trend;
    bool m_pending = false;
    bool m_awaiting = false;  // asked the session, its result not yet shown
    QComboBox* m_period = nullptr;
    RequestScope m_scope;
    QComboBox* m_sliceBy = nullptr;
    QComboBox* m_stratum = nullptr;
    QComboBox* m_latency = nullptr;
    QComboBox* m_compareWith = nullptr;
    std::shared_ptr<const BottleneckComparison> m_comparison;
    QLabel* m_status = nullptr;
    QTableWidget* m_table = nullptr;
    QCustomPlot* m_bars = nullptr;
    int m_barsShown = 0;  // the bars drawn fit this many rows
    BottleneckPie* m_pie = nullptr;
    QCustomPlot* m_trendPlot = nullptr;
    QCustomPlot* m_scatter = nullptr;
    QCustomPlot* m_strataPlot = nullptr;
    QSplitter* m_top = nullptr;  // table | bars | pie or strata
    std::vector<StratumShares> m_strataShares;
    QString m_sliceText;  // the latency slice shown, for the status line
};

} // namespace tracelight::widgets
