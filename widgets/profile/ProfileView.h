#pragma once
// The Profile tab: the average critical-path profile (critical path tracing) of every request or of one
// period, computed in core on a worker and drawn as a flame graph, with a search that says what share of
// the latency its matches hold, the zoom's breadcrumb, and export as folded stacks or speedscope JSON.
#include <QWidget>
#include <memory>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/profile/Profile.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;
class QSplitter;

namespace tracelight::widgets {

class FlameGraphView;
class JobRunner;

class ProfileView : public QWidget {
    Q_OBJECT
public:
    explicit ProfileView(QWidget* parent = nullptr);

    void setDatabase(const QString& path, std::shared_ptr<const InMemoryAnalysis> analysis, const QStringList& periods);
    void clear(const QString& message);
    void setPeriod(const QString& period);  // "" = every request
    void setDiffBase(const QString& period);  // "" = no diff; else the profile is diffed against this period
    QTableWidget* changeTable() const { return m_changes; }
    bool isComputing() const;
    FlameGraphView* flameGraph() const { return m_flame; }
    QString statusText() const;
    bool exportProfile(const QString& path) const;  // .folded (collapsed stacks) or .json (speedscope)

signals:
    void resultsReady();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void compute();
    void updateLabels();

    QString m_path;
    std::shared_ptr<const InMemoryAnalysis> m_analysis;
    std::shared_ptr<const ProfileSet> m_profile;
    bool m_pending = false;
    JobRunner* m_job = nullptr;
    QComboBox* m_period = nullptr;
    QComboBox* m_diffBase = nullptr;
    QTableWidget* m_changes = nullptr;
    QSplitter* m_split = nullptr;
    std::shared_ptr<const ProfileDiff> m_diff;
    std::int64_t m_aaFrames = 0;
    QLineEdit* m_search = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_crumb = nullptr;
    FlameGraphView* m_flame = nullptr;
};

} // namespace tracelight::widgets
