#pragma once
// The Compare tab (Spectroscope): a baseline and a problem period, compared in core (categorised once on a
// worker; threshold, alpha, Benjamini-Hochberg and 1:N re-rank the same categories), the ranked entries
// beside the A/A figure — how many categories chance alone flags at this sample size — and the chosen
// entry's red edges, candidate precursors, edge latencies (mean ± standard deviation of each side) and
// problem-period requests (double-click opens the waterfall), and its flow graphs: side by side (the
// mutation's next to the candidate precursor chosen, the closest unless the user picks another, or one category in both
// periods, on one shared layout) and as one diff graph, laid out on a worker; for the two periods, the
// distribution of the categories' C² (Spectroscope's Figure 6) and the timeline of arrivals and response
// times (its Figure 9); the swim lanes of the two representative requests on one time axis; the entry's
// regression tree; a browser of every category of either period with its statistics, shown in the same views;
// and the two periods over time: the baseline's A/A and the problem period against it per time bucket, with the
// load and request mix (the cloud-application study, NSDI'18).
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/compare/PeriodComparison.h"
#include "compare/CompareRequests.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTreeWidget;
class QTreeWidgetItem;

namespace tracelight::widgets {

class AaOverTimeView;
class CdfPlot;
class CompareEntryModel;
class FlowGraphView;
class PeriodTimeline;
class RegressionTreeView;
class SuspectsView;
class TrainScheduleView;
class WaterfallView;

class CompareWorkspace : public QWidget {
    Q_OBJECT
public:
    explicit CompareWorkspace(QWidget* parent = nullptr);

    // The analysed database: its analysis in memory and the names of its periods. Compares at once when the
    // tab is showing, else when it is next shown.
    void setDatabase(std::shared_ptr<const InMemoryAnalysis> analysis, const QStringList& periods);
    void clear(const QString& message);
    void setRequestNamer(std::function<QString(RequestId)> namer) { m_namer = std::move(namer); }
    // The request attributes the Over time view's A/A may split users by.
    void setAttributeKeys(const QStringList& keys);
    void setPeriods(const QString& baseline, const QString& problem);  // and compare
    void compare();

    bool isComputing() const;  // something asked of the session is not shown yet
    // The session's answers to the requests below, and the comparison's progress on the way.
    void showComparison(CompareOutcome outcome);
    void showGraphs(EntryGraphsOutcome outcome);
    void showSwimLanes(SwimLanesOutcome outcome);
    void showTree(EntryTreeOutcome outcome);
    void showOverTime(OverTimeOutcome outcome);
    void showProgress(double fraction, const QString& stage);
    const PeriodComparison* comparison() const { return m_result.get(); }
    QTableView* entryTable() const { return m_table; }
    QCheckBox* paperStatistics() const { return m_paper; }
    // The candidate precursors of the entry shown (item data: category id); the choice is remembered per entry.
    QComboBox* precursorChooser() const { return m_precursor; }
    QTreeWidget* detail() const { return m_detail; }
    // Every category of the two periods with its statistics; choosing one shows it in the entry's views.
    QTreeWidget* categories() const { return m_categories; }
    SuspectsView* suspects() const { return m_suspects; }
    QTabWidget* entryViews() const { return m_views; }
    FlowGraphView* firstGraph() const { return m_first; }
    FlowGraphView* secondGraph() const { return m_second; }
    FlowGraphView* diffGraph() const { return m_diff; }
    QLabel* graphTitles() const { return m_graphTitles; }
    CdfPlot* c2Plot() const { return m_c2; }
    PeriodTimeline* timeline() const { return m_timeline; }
    AaOverTimeView* overTime() const { return m_overTime; }
    RegressionTreeView* treeView() const { return m_tree; }
    QListWidget* treeAttributes() const { return m_treeAttributes; }
    WaterfallView* firstLanes() const { return m_firstLanes; }
    TrainScheduleView* firstTrain() const { return m_firstTrain; }
    TrainScheduleView* secondTrain() const { return m_secondTrain; }
    WaterfallView* secondLanes() const { return m_secondLanes; }
    QString summaryText() const;
    bool exportCsv(const QString& path) const;
    // The swim lanes (on one axis) and the period timeline on each host's own clock (View › Local Clocks) or the
    // skew-corrected time.
    void setLocalClocks(bool local);

signals:
    // What the tab asks of the session (answered with the show* slots).
    void compareRequested(const CompareRequest& request);
    void graphsRequested(const EntryGraphsRequest& request);
    void swimLanesRequested(const SwimLanesRequest& request);
    void treeRequested(const EntryTreeRequest& request);
    void overTimeRequested(const OverTimeRequest& request);
    void requestActivated(RequestId id);
    // A suspect's evidence chosen: show the profile diff of the two periods, its frames searched for `key`.
    void suspectActivated(const QString& baseline, const QString& problem, const QString& key);
    void resultsReady();  // a comparison (or its error) is showing

protected:
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    static QString suspectsText(const std::vector<Suspect>& suspects);
    void shareLanesAxis();
    void fitRequestTypeColumn();
    CompareOptions options() const;
    void showResult(std::shared_ptr<const PeriodComparison> result);
    void showEntry(int sourceRow);
    void showCategory(std::uint32_t index);  // a category from the Categories page, ranked or not
    void present(const CompareEntry& entry, bool ranked);  // the Detail, the graphs, lanes and tree of an entry or category
    void fillCategories();
    void showFlowGraphs(const CompareEntry& entry);
    void choosePrecursorOf(CompareEntry& entry);
    void showEdgeLatencies(const FlowGraphPair& pair);  // the Detail's edge latencies of both sides  // the remembered candidate, into entry and the chooser
    QString precursorKey(const ComparedCategory& category) const;
    void explain();  // the current entry's tree, without the unticked attributes
    void askOverTime();
    void askSwimLanes(RequestId first, RequestId second, const QString& firstTitle, const QString& secondTitle);

    // What was asked and is not shown yet (a cleared tab drops what arrives after).
    enum Awaiting : unsigned { kComparison = 1, kGraphs = 2, kLanes = 4, kTree = 8, kOverTime = 16 };
    unsigned m_awaiting = 0;
    std::set<std::string> m_treeDropped;  // the tree asked for: without these attributes
    std::shared_ptr<const InMemoryAnalysis> m_analysis;
    std::shared_ptr<const PeriodComparison> m_result;
    std::function<QString(RequestId)> m_namer;
    bool m_pending = false;
    QComboBox* m_baseline = nullptr;
    QComboBox* m_problem = nullptr;
    QDoubleSpinBox* m_threshold = nullptr;
    QDoubleSpinBox* m_alpha = nullptr;
    QCheckBox* m_bh = nullptr;
    QCheckBox* m_paper = nullptr;  // the paper's statistics
    QCheckBox* m_oneToN = nullptr;
    QComboBox* m_precursor = nullptr;
    QTreeWidgetItem* m_edgeItem = nullptr;  // the Detail's edge latencies, filled when the graphs arrive
    int m_entryRow = -1;                    // the entry shown (source row)
    // The entry shown before the data was replaced (a reload, a live capture's refresh), by kind and category
    // structure: shown again when the new comparison still ranks it, instead of the first entry.
    std::optional<std::pair<CompareEntry::Kind, std::uint64_t>> m_keepEntry;
    QPushButton* m_run = nullptr;
    QPushButton* m_export = nullptr;
    QLabel* m_summary = nullptr;
    CompareEntryModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QTreeWidget* m_detail = nullptr;
    QTreeWidget* m_categories = nullptr;
    SuspectsView* m_suspects = nullptr;
    QTabWidget* m_views = nullptr;
    FlowGraphView* m_first = nullptr;
    FlowGraphView* m_second = nullptr;
    FlowGraphView* m_diff = nullptr;
    QLabel* m_graphTitles = nullptr;
    CdfPlot* m_c2 = nullptr;
    PeriodTimeline* m_timeline = nullptr;
    AaOverTimeView* m_overTime = nullptr;
    const RequestCategories* m_overTimeCategories = nullptr;  // what the over-time view was asked for
    RegressionTreeView* m_tree = nullptr;
    QListWidget* m_treeAttributes = nullptr;
    QLabel* m_treeSummary = nullptr;
    std::optional<CompareEntry> m_entry;  // the entry shown
    WaterfallView* m_firstLanes = nullptr;
    TrainScheduleView* m_firstTrain = nullptr;
    TrainScheduleView* m_secondTrain = nullptr;
    WaterfallView* m_secondLanes = nullptr;
    QLabel* m_firstLanesTitle = nullptr;
    QLabel* m_secondLanesTitle = nullptr;
};

} // namespace tracelight::widgets
