#pragma once
// The Profile tab: the average critical-path profile (critical path tracing) of every request or of one
// period, asked of the session (computeRequested: it computes on a worker) and drawn as a flame graph (icicle or flame), with a search that says
// what share of the latency its matches hold, the zoom's breadcrumb, the top-frames and sandwich tables, a
// right-click menu (zoom, sandwich, open a slowest request where the frame was critical, export) and export
// as folded stacks, speedscope JSON or pprof. In a diff the tables and exports describe the target period.
#include <QWidget>
#include <memory>

#include "common/RequestScope.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/profile/Profile.h"
#include "tracelight/studies/Aggregates.h"
#include "ProfileRequest.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QTableWidget;
class QSplitter;
class QTabWidget;

namespace tracelight::widgets {

class FlameGraphView;
class FrameHistogram;
class SandwichView;
class SuspectsView;
class TopFramesTable;

class ProfileView : public QWidget {
    Q_OBJECT
public:
    explicit ProfileView(QWidget* parent = nullptr);

    void setDatabase(std::shared_ptr<const InMemoryAnalysis> analysis, const QStringList& periods);
    void clear(const QString& message);
    void setPeriod(const QString& period);  // "" = every request
    // The other sources of the profile's requests: the outliers (needs the aggregates), the request table's
    // selection, and an attribute filter (ATTR=V, ATTR!=V, ATTR<N, ATTR>N) applied on top of any of them.
    void setAggregates(std::shared_ptr<const RequestAggregates> aggregates);
    void setSelection(std::vector<RequestId> selection);
    // The requests the table lists: what "Listed requests", the first source, profiles.
    void setScope(const RequestScope& scope);
    QComboBox* requestsChoice() const { return m_period; }  // the scope, a period, ...
    void chooseOutliers();
    void chooseSelection();
    void setWhere(const QString& predicate);
    void setDiffBase(const QString& period);  // "" = no diff; else the profile is diffed against this period
    // The diff of two periods with its frames searched for `search` (a suspect's key: a service or a hop).
    void showDiff(const QString& base, const QString& target, const QString& search);
    SuspectsView* suspectsView() const { return m_suspects; }
    QTableWidget* changeTable() const { return m_changes; }
    bool isComputing() const;  // asked, and its result (with a diff's A/A table) not yet shown
    // The session's answer to computeRequested, and its progress on the way.
    void showOutcome(std::shared_ptr<const ProfileOutcome> outcome);
    void showAaTable(std::shared_ptr<const ProfileAaOutcome> outcome);  // the answer to aaTableRequested
    QTableWidget* aaTable() const { return m_aaTable; }
    void showProgress(double fraction, const QString& stage);
    FlameGraphView* flameGraph() const { return m_flame; }
    QString statusText() const;
    bool exportProfile(const QString& path) const;  // .folded (collapsed stacks), .json (speedscope), .pb.gz (pprof)
    void exportDialog();                             // asks where, then exportProfile
    TopFramesTable* topFrames() const { return m_top; }
    SandwichView* sandwichView() const { return m_sandwich; }
    FrameHistogram* frameHistogram() const { return m_histogram; }
    std::shared_ptr<const ProfileSet> profile() const { return m_profile; }  // null until one is shown
    QTabWidget* tables() const { return m_tables; }
    void showSandwich(const QString& name);
    void showHistogram(int frame);  // -1: none
    void showFrameMenu(int frame, QPoint globalPos);  // the flame graph's right-click menu
    std::unique_ptr<QMenu> frameMenu(int frame);      // ... built, not shown (null without a profile)

signals:
    void computeRequested(const ProfileRequest& request);  // answered with showOutcome
    void aaTableRequested(const ProfileRequest& request);  // of a diff shown: answered with showAaTable
    void resultsReady();
    void requestActivated(RequestId id);  // "open in the waterfall"

protected:
    void showEvent(QShowEvent* event) override;

private:
    void compute();
    void updateLabels();
    void showChangesTab(bool show);
    std::size_t tableGroup() const;

    std::shared_ptr<const InMemoryAnalysis> m_analysis;
    std::shared_ptr<const RequestAggregates> m_aggregates;
    std::vector<RequestId> m_selection;
    RequestScope m_scope;
    std::shared_ptr<const ProfileSet> m_profile;
    bool m_pending = false;
    bool m_awaiting = false;
    QComboBox* m_period = nullptr;
    QComboBox* m_diffBase = nullptr;
    QTableWidget* m_changes = nullptr;
    QWidget* m_aaPage = nullptr;         // a diff's A/A table, with what it is
    QTableWidget* m_aaTable = nullptr;
    QLabel* m_aaCaption = nullptr;
    bool m_aaAwaiting = false;
    ProfileRequest m_asked;  // the last request computed (its A/A table is asked for the same requests)
    SuspectsView* m_suspects = nullptr;  // a diff opens with them
    QTabWidget* m_tables = nullptr;
    TopFramesTable* m_top = nullptr;
    SandwichView* m_sandwich = nullptr;
    FrameHistogram* m_histogram = nullptr;
    QComboBox* m_orientation = nullptr;
    QLineEdit* m_where = nullptr;
    QSplitter* m_split = nullptr;
    std::shared_ptr<const ProfileDiff> m_diff;
    std::int64_t m_aaFrames = 0;
    QLineEdit* m_search = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_crumb = nullptr;
    FlameGraphView* m_flame = nullptr;
};

} // namespace tracelight::widgets
