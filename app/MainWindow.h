#pragma once
// The main window: one trace database at a time, its requests in a sortable table.
#include <utility>
#include <vector>
#include <QMainWindow>
#include <functional>
#include <optional>
#include <memory>

#include "Session.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/base/Ids.h"
#include "tracelight/import/TraceFileContents.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/store/TraceStore.h"
#include "common/RequestScope.h"

class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTableView;
class QTabWidget;
class QSplitter;
class QStackedWidget;
class QAction;
class QTimer;

namespace tracelight {
class ServiceMap;
}

namespace tracelight::widgets {
class JobRunner;
class AggregatesView;
class CompareWorkspace;
class ProfileView;
class BottlenecksView;
class BurstView;
class TemporalContextStrip;
class ModelOverview;
class RequestTableModel;
class RequestTablePanel;
class WaterfallView;
class SpanTreePane;
} // namespace tracelight::widgets

namespace tracelight::app {

class WelcomePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a database; on failure shows the error and keeps the current one. Loading continues in the background.
    bool openDatabase(const QString& path);
    // Opens a database or a trace file: a trace file is imported into a database of its own, in the background,
    // which then opens (the same database again, without importing, while the file is unchanged). Meanwhile a
    // span file is read into memory and shown from there: its requests listed, the first one's waterfall drawn.
    bool openPath(const QString& path);
    bool showsFileInMemory() const { return m_fileContents != nullptr; }  // not its database yet
    bool isLoading() const;   // any background job still running
    void showTab(int index);  // 0: waterfall, 1: dependency graph, 2: aggregates, 3: compare, 4: profile, 5: bottlenecks
    widgets::CompareWorkspace* compareWorkspace() const { return m_compare; }
    Session* session() const { return m_session; }  // the open database and the scope
    void showAggregatePage(int index);
    void setWaterfallMode(const QString& mode);  // "spans": the span tree for span requests; "lanes": host lanes
    void setRequestFilter(const QString& text);  // as typed into the request table's filter box
    // Analysis › Naming Filter…: keeps the expression in the database and analyses it again without the events
    // it names (empty: every event). False, with a message, for one that does not compile or a failed write.
    bool setNamingFilter(const QString& regex);
    // Analysis › Derived Attributes…: keeps these NAME=EXPR definitions in the database (replacing those kept),
    // offered by Aggregates › Stratify by. False, with a message, when one does not parse.
    bool setDerivedAttributes(const QStringList& definitions);
    // Analysis › Results in SQL Tables: keeps the critical paths and slack as SQL tables (analysing again to
    // write them), or stops keeping them (their rows go).
    bool setResultTablesKept(bool keep);
    // File › Capture once chosen: opens the database (created when missing) and receives spans into it; the
    // request table and the analyses follow what arrives. False (and the error shown) when it cannot start.
    bool startCapture(const QString& database, const ReceiverOptions& options);
    void stopCapture();  // stores every open trace, then refreshes the views once more
    // Imports files into a database (created if missing) in the background, then opens it.
    void startImport(const QStringList& files, const QString& database, const QString& period);
    // File › Import Traces… once the files are chosen: each is checked first (one that is no trace is refused,
    // named, before anything is asked); then, with a database open, whether to add to it or make a new one; then
    // the period. False when refused or cancelled.
    bool importChosenFiles(const QStringList& files);
    // The questions importChosenFiles asks, as dialogs unless replaced (a test answers them itself).
    struct ImportQuestions {
        std::function<int(const QString& database, int files)> addOrNew;  // 1: add to it, 0: a new database, -1: cancel
        std::function<QString(const QString& suggested)> newDatabase;     // the new database's path; "" cancels
        std::function<std::optional<QString>(const QString& suggested)> period;  // nullopt cancels
    };
    void setImportQuestions(ImportQuestions questions) { m_importQuestions = std::move(questions); }

    // Headless runs (--screenshot): errors go to stderr as one line and are remembered, never a modal box.
    void setErrorsToStderr(bool on) { m_errorsToStderr = on; }
    bool hasFailed() const { return m_failed; }
    QString lastError() const { return m_lastError; }  // the last error reported, whole

signals:
    void loaded();            // the request table is in
    void waterfallShown();    // a request's waterfall was handed to the view (drawn at its next paint)
    void idle();              // every background job has finished

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void showContext(RequestId id);  // the strip under the waterfall, computed on a worker
    // Opens the database for writing and saves through `save`; a failure is shown under the title `what`.
    bool saveToDatabase(const QString& what, const std::function<Status(TraceStore&)>& save);
    void createActions();
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void updateStatus();
    void loadTable();
    void loadModel();
    void startAnalysis(bool force);
    void importFiles();
    // A trace file without a current database: read into memory and shown; its import (and analysis) starts
    // once it is shown. A file that needs the database first (an event log, spans past the memory budget) is
    // imported as before.
    void readTraceFileIntoMemory(const QString& file, const QString& database);
    void showTraceFileRead(const QString& file, const QString& database);  // the views, before the read arrives
    void importShownTraceFile(const QString& file, const QString& database);
    void startImportAfterShown();  // the file shown's import, once its first waterfall is (or cannot be) drawn
    // A new table's columns as its requests need them (span columns or not), sorted as the header says.
    void arrangeTable(bool hasSpans);
    // The views of the open database (or file) dropped; the tabs that need the analysis say it follows the
    // database loading, or (followsImport) the import of the file shown from memory.
    void clearDatabaseViews(bool followsImport);
    void chooseAndOpen();  // File › Open…
    QString notATraceFile(const QString& file) const;
    // The open database's periods, by name; and a request's name as the views show it (its id when unnamed).
    QStringList periodNames() const;
    QString requestLabel(RequestId id) const;
    // The request table's filter, kept per database (by its absolute path).
    QString rememberedFilter(const QString& database) const;
    void rememberFilter(const QString& text);
    int askAddOrNew(const QString& database, int files);  // ImportQuestions::addOrNew as a dialog  // why it cannot be imported, in the window's words; "" when it can
    void loadAggregates();
    // The scope: the requests the table lists, which the service map, the aggregates (and what-if), the
    // profile and the bottlenecks cover. Read from the table a moment after it changes.
    void updateScope();
    void showScopedAggregates();  // the aggregates of the scope, restricted on a worker
    void showScopedServiceMap();  // the service map of the scope, counted on a worker
    void updateScopeBar();
    // The period (when there are two to tell apart) and every request attribute, read once per database load.
    QStringList stratifyingKeys(qsizetype periods) const;
    void showRequest(RequestId id);
    void showRequestFromFile(RequestId id);  // the file shown in memory: its detail from the one pass, on a worker
    void findDependencies();  // the shown request's graph edges, on a worker, when they are still to be found
    void readSpanTree();  // the shown request's span tree, on a worker, when the span pane asks for it
    void showSegmentStatus(int segment);  // the clicked segment's name, time, slack and dependencies
    void selectRequestByName(const QString& name);
    void checkIdle();
    void followCapture();  // the status bar's capture line, and the views refreshed when new requests arrived
    void reportError(const QString& title, const QString& message);

    using Job = Session::Job;
    widgets::JobRunner& job(Job lane) const { return m_session->job(lane); }
    // The long jobs, whose progress and Cancel the status bar shows.
    static constexpr Job kForegroundJobs[] = {Job::Requests, Job::Analysis, Job::Import, Job::TraceFile, Job::Aggregates};

    Session* m_session = nullptr;  // the open database (its connections), the scope and the background jobs
    widgets::RequestTableModel* m_requests = nullptr;
    // A trace file read into memory, shown while its own database (m_fileDatabase) is made; null otherwise.
    std::shared_ptr<const TraceFileContents> m_fileContents;
    QString m_fileName, m_fileDatabase;
    bool m_importAfterShown = false;
    // Moving from the file in memory to its database: the waterfall shown stays until the database's arrives;
    // the request table's scroll position is restored, and the request shown read again, once the table is in.
    bool m_keepShownRequest = false;
    std::optional<int> m_tableScroll;
    std::shared_ptr<DependencyWork> m_dependencyWork;  // what finds them, until a segment is selected
    const RequestDetail* m_dependencyOf = nullptr;      // the request it finds them for
    widgets::TemporalContextStrip* m_contextStrip = nullptr;
    widgets::CompareWorkspace* m_compare = nullptr;
    widgets::ProfileView* m_profileView = nullptr;
    widgets::BurstView* m_bursts = nullptr;
    widgets::BottlenecksView* m_bottlenecks = nullptr;
    widgets::AggregatesView* m_aggregates = nullptr;
    std::shared_ptr<const InMemoryAnalysis> m_analysisData;  // what the aggregates came from (for what-if)
    std::shared_ptr<const RequestAggregates> m_aggregateData;
    std::shared_ptr<const RequestAggregates> m_scopedAggregates;
    QStringList m_stratifyingKeys;  // what the aggregates and bottlenecks stratify by  // what the aggregates view shows (and what-if runs on)
    QTimer* m_scopeTimer = nullptr;
    QLabel* m_scopeBar = nullptr;                  // above the tabs that cover the scope: which requests they are
    widgets::RequestTablePanel* m_requestPanel = nullptr;
    QTableView* m_table = nullptr;  // the panel's view
    std::vector<std::pair<int, int>> m_countColumnWidths;  // (column, least width) of the hosts and events counts
    QSplitter* m_splitter = nullptr;
    QTabWidget* m_tabs = nullptr;
    widgets::WaterfallView* m_waterfall = nullptr;
    widgets::SpanTreePane* m_spanPane = nullptr;  // the waterfall tab: m_waterfall or the span tree
    widgets::ModelOverview* m_model = nullptr;
    QAction* m_localClocks = nullptr;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_statusText = nullptr;
    QAction* m_captureAction = nullptr;  // File › Capture…, Stop Capture while one runs
    QLabel* m_captureText = nullptr;     // what the capture received so far
    QTimer* m_captureTimer = nullptr;
    std::int64_t m_capturedShown = -1;   // the traces stored (and stored again) when the views were last refreshed
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    std::optional<QString> m_filterForNextDatabase;
    WelcomePage* m_welcome = nullptr;
    QStackedWidget* m_pages = nullptr;
    QString m_lastError;
    ImportQuestions m_importQuestions;
    bool m_errorsToStderr = false;
    bool m_failed = false;
};

} // namespace tracelight::app
