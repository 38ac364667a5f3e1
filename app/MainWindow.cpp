#include "MainWindow.h"
#include "jobs/TabJobs.h"
#include "jobs/TraceFileJobs.h"

#include <algorithm>
#include <iterator>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QTableView>
#include <QScrollBar>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <sqlite3.h>
#include <cstdio>

#include "aggregates/AggregatesView.h"
#include "compare/CompareWorkspace.h"
#include "profile/ProfileView.h"
#include "bottleneck/BottlenecksView.h"
#include "bottleneck/BurstView.h"
#include "waterfall/TemporalContextStrip.h"
#include "tracelight/store/HostActivityStore.h"
#include "tracelight/bottleneck/HostTimeIndex.h"
#include "tracelight/bottleneck/TemporalContext.h"
#include "BottleneckRulesEditor.h"
#include "CaptureDialog.h"
#include "CaptureRun.h"
#include "CategoryEditor.h"
#include "ClockAdjustmentsDialog.h"
#include "HelpDialogs.h"
#include "WelcomePage.h"
#include "PeriodManager.h"
#include "graph/GraphView.h"
#include "graph/ServiceMapView.h"
#include "common/Counts.h"
#include "common/FileDialogs.h"
#include "common/JobRunner.h"
#include "models/RequestTableModel.h"
#include "models/RequestTablePanel.h"
#include "common/TimeFormat.h"
#include "waterfall/SpanTreePane.h"
#include "waterfall/WaterfallView.h"
#include "tracelight/store/NewDatabaseGuard.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "tracelight/analysis/Slack.h"
#include "tracelight/import/Import.h"
#include "tracelight/import/TraceFileDatabase.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/RequestTable.h"
#include "tracelight/store/ResultTables.h"
#include "tracelight/studies/DerivedAttributes.h"
#include "tracelight/studies/ServiceMap.h"

namespace tracelight::app {

namespace {
constexpr int kMaxRecentFiles = 8;
using LoadResult = std::shared_ptr<Result<RequestTable>>;
using DetailResult = std::shared_ptr<Result<RequestDetail>>;
struct GraphBundle {
    Result<ModelGraph> graph;
    std::shared_ptr<const ServiceMap> services;  // null when the spans could not be read
};
using GraphResult = std::shared_ptr<GraphBundle>;
using AnalysisResult = std::shared_ptr<Result<AnalysisSummary>>;
using ImportResult = std::shared_ptr<Result<ImportSummary>>;
struct AggregateBundle {
    std::shared_ptr<const InMemoryAnalysis> analysis;
    std::shared_ptr<const RequestAggregates> aggregates;
    Status status = Status::ok();
};
using AggregateResult = std::shared_ptr<AggregateBundle>;
using WhatIfResult = std::shared_ptr<Result<std::vector<TimeNs>>>;

// The model inferred from one period's requests alone, over the analysis in memory (read here when the
// aggregates have not brought it yet).
Result<ModelGraph> periodModelGraph(const TraceStore& store, std::shared_ptr<const InMemoryAnalysis> analysis, const std::string& period,
                                    const ProgressSink& progress, const CancelToken& cancel) {
    if (auto size = periodSize(store, period); !size) return size.status();
    if (!analysis) {
        auto loaded = loadAnalysis(store, &progress, &cancel);
        if (!loaded) return loaded.status();
        analysis = std::make_shared<const InMemoryAnalysis>(std::move(loaded.value()));
    }
    progress(0.5, "inferring the period's model");
    const std::vector<std::uint32_t> rows = periodRows(store, analysis->data.requestIds, period);
    if (rows.empty()) return Status::error("no requests in period '" + period + "'");
    return modelGraphOfRows(*analysis, rows, AnalysisOptions{}, [&](RequestId id) { return requestName(store, id); }, &cancel);
}
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Tracelight"));
    setAcceptDrops(true);
    m_session = new Session(this);
    m_requests = new widgets::RequestTableModel(this);
    m_scopeTimer = new QTimer(this);
    m_scopeTimer->setSingleShot(true);
    m_scopeTimer->setInterval(300);  // typing a filter: the views follow once it rests
    connect(m_scopeTimer, &QTimer::timeout, this, &MainWindow::updateScope);

    m_requestPanel = new widgets::RequestTablePanel(m_requests, this);
    m_table = m_requestPanel->view();
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);  // "grpc.hipstershop.…/GetSupportedCurrencies": both ends tell
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);  // uniform rows: no per-row measuring
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSortIndicatorShown(true);
    m_table->setColumnWidth(widgets::RequestTableModel::Name, 110);
    m_table->setColumnWidth(widgets::RequestTableModel::Period, 90);
    m_table->setColumnWidth(widgets::RequestTableModel::Start, 190);
    m_table->setColumnWidth(widgets::RequestTableModel::Latency, 90);
    m_table->setColumnWidth(widgets::RequestTableModel::Service, 120);
    m_table->setColumnWidth(widgets::RequestTableModel::Operation, 230);
    // Counts as wide as a million-span trace's (4,000,002 events) without being cut to "40000...".
    const int digit = m_table->fontMetrics().horizontalAdvance(QLatin1Char('9'));
    m_countColumnWidths = {{widgets::RequestTableModel::Hosts, std::max(60, 7 * digit + 16)},
                           {widgets::RequestTableModel::Events, std::max(60, 9 * digit + 16)},
                           {widgets::RequestTableModel::Spans, std::max(60, 9 * digit + 16)},
                           {widgets::RequestTableModel::Errors, std::max(60, 7 * digit + 16)}};
    for (const auto& [column, width] : m_countColumnWidths) m_table->setColumnWidth(column, width);

    m_waterfall = new widgets::WaterfallView(this);
    m_waterfall->setObjectName(QStringLiteral("waterfall"));  // the request's own (the Compare tab has two more)
    m_model = new widgets::ModelOverview(this);
    m_aggregates = new widgets::AggregatesView(this);
    serve(*m_aggregates, *m_session);
    m_tabs = new QTabWidget(this);
    m_spanPane = new widgets::SpanTreePane(m_waterfall, this);  // host lanes or, for span requests, the span tree
    connect(m_spanPane, &widgets::SpanTreePane::spansWanted, this, &MainWindow::readSpanTree);
    // The waterfall, and under it the request in its temporal context (remembered shown or hidden).
    m_contextStrip = new widgets::TemporalContextStrip(this);
    m_contextStrip->setObjectName(QStringLiteral("contextStrip"));
    auto* waterfallPage = new QSplitter(Qt::Vertical, this);
    waterfallPage->addWidget(m_spanPane);
    waterfallPage->addWidget(m_contextStrip);
    waterfallPage->setStretchFactor(0, 5);
    waterfallPage->setStretchFactor(1, 1);
    waterfallPage->setChildrenCollapsible(false);
    waterfallPage->setSizes({700, m_contextStrip->sizeHint().height()});
    m_contextStrip->setVisible(QSettings().value("waterfall/contextStrip", true).toBool());
    m_tabs->addTab(waterfallPage, tr("&Waterfall"));
    m_tabs->addTab(m_model, tr("Dependency &graph"));
    m_tabs->addTab(m_aggregates, tr("&Aggregates"));
    m_compare = new widgets::CompareWorkspace(this);
    serve(*m_compare, *m_session);
    m_compare->setRequestNamer([this](RequestId id) { return requestLabel(id); });
    m_tabs->addTab(m_compare, tr("&Compare"));
    m_profileView = new widgets::ProfileView(this);
    serve(*m_profileView, *m_session);
    m_tabs->addTab(m_profileView, tr("&Profile"));
    m_bottlenecks = new widgets::BottlenecksView(this);
    serve(*m_bottlenecks, *m_session);
    m_tabs->addTab(m_bottlenecks, tr("&Bottlenecks"));
    m_bursts = new widgets::BurstView(this);
    serve(*m_bursts, *m_session);
    m_tabs->addTab(m_bursts, tr("B&ursts"));
    // The tabs, under a line that says which requests the scoped ones cover.
    auto* tabsPage = new QWidget(this);
    auto* tabsLayout = new QVBoxLayout(tabsPage);
    tabsLayout->setContentsMargins(0, 0, 0, 0);
    tabsLayout->setSpacing(2);
    m_scopeBar = new QLabel(tabsPage);
    m_scopeBar->setObjectName(QStringLiteral("scopeBar"));
    m_scopeBar->setContentsMargins(6, 2, 6, 0);
    m_scopeBar->setToolTip(tr("The dependency graph's service map, the aggregates and what-if, the profile and the bottlenecks cover "
                              "the requests the request table lists: narrow them with its period, filter or \"Only selected\""));
    tabsLayout->addWidget(m_scopeBar);
    tabsLayout->addWidget(m_tabs, 1);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateScopeBar);
    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->addWidget(m_requestPanel);
    m_splitter->addWidget(tabsPage);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 3);
    // Before a database is open, the ways in; the table and the tabs once one is.
    m_welcome = new WelcomePage(bundledSamplePath(), this);
    connect(m_welcome, &WelcomePage::openRequested, this, &MainWindow::chooseAndOpen);
    connect(m_welcome, &WelcomePage::importRequested, this, &MainWindow::importFiles);
    connect(m_welcome, &WelcomePage::sampleRequested, this, [this] { openDatabase(bundledSamplePath()); });
    m_pages = new QStackedWidget(this);
    m_pages->addWidget(m_welcome);
    m_pages->addWidget(m_splitter);
    setCentralWidget(m_pages);

    m_statusText = new QLabel(tr("Open a trace database (Ctrl+O) or drop one here."), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->setVisible(false);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    m_cancel->setShortcut(Qt::Key_Escape);
    statusBar()->addWidget(m_statusText, 1);
    m_captureText = new QLabel(this);
    m_captureText->setVisible(false);
    statusBar()->addPermanentWidget(m_captureText);
    m_captureTimer = new QTimer(this);
    m_captureTimer->setInterval(1000);
    connect(m_captureTimer, &QTimer::timeout, this, &MainWindow::followCapture);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        const bool importing = job(Job::Import).isRunning();
        for (Job lane : {Job::Requests, Job::Analysis, Job::Import, Job::TraceFile, Job::Aggregates, Job::Model, Job::Detail}) job(lane).cancel();
        if (m_fileContents) {
            // A file shown from memory: its import (started after a first waterfall) starts again with the next one.
            if (importing) m_importAfterShown = true;
            m_statusText->setText(tr("Cancelled; the file stays shown from memory, and its import starts again when a request is shown."));
        } else {
            m_statusText->setText(tr("Cancelled; the database is unchanged."));
        }
    });
    for (Job lane : kForegroundJobs) {
        widgets::JobRunner* runner = &job(lane);
        connect(runner, &widgets::JobRunner::started, this, [this] {
            m_progress->setValue(0);
            m_progress->setVisible(true);
            m_cancel->setVisible(true);
        });
        connect(runner, &widgets::JobRunner::finished, this, [this] {
            const bool busy = std::any_of(std::begin(kForegroundJobs), std::end(kForegroundJobs), [this](Job lane) { return m_session->isRunning(lane); });
            m_progress->setVisible(busy);
            m_cancel->setVisible(busy);
            if (!busy) updateStatus();
        });
        connect(runner, &widgets::JobRunner::progress, this, [this](double fraction, const QString& stage) {
            m_progress->setValue(static_cast<int>(fraction * 1000));
            m_statusText->setText(stage);
        });
    }
    connect(m_session, &Session::jobFinished, this, &MainWindow::checkIdle, Qt::QueuedConnection);
    connect(m_requestPanel, &widgets::RequestTablePanel::listedChanged, m_scopeTimer, qOverload<>(&QTimer::start));
    connect(m_model->graphView(), &widgets::GraphView::layoutReady, this, &MainWindow::checkIdle, Qt::QueuedConnection);
    connect(m_model->serviceMapView(), &widgets::ServiceMapView::layoutReady, this, &MainWindow::checkIdle, Qt::QueuedConnection);
    connect(m_aggregates, &widgets::AggregatesView::resultsReady, this, &MainWindow::checkIdle, Qt::QueuedConnection);
    connect(m_compare, &widgets::CompareWorkspace::resultsReady, this, &MainWindow::checkIdle, Qt::QueuedConnection);
    connect(m_profileView, &widgets::ProfileView::resultsReady, this, &MainWindow::checkIdle, Qt::QueuedConnection);
    connect(m_bottlenecks, &widgets::BottlenecksView::resultsReady, this, &MainWindow::checkIdle, Qt::QueuedConnection);
    connect(m_bursts, &widgets::BurstView::resultsReady, this, &MainWindow::checkIdle, Qt::QueuedConnection);
    connect(m_contextStrip, &widgets::TemporalContextStrip::requestActivated, this, [this](RequestId id) {
        m_requestPanel->selectRequest(id);
        m_tabs->setCurrentIndex(0);
    });
    connect(m_bursts, &widgets::BurstView::requestActivated, this, [this](RequestId id) {
        m_requestPanel->selectRequest(id);
        m_tabs->setCurrentIndex(0);
    });
    connect(m_bottlenecks, &widgets::BottlenecksView::requestActivated, this, [this](RequestId id) {
        m_requestPanel->selectRequest(id);
        m_tabs->setCurrentIndex(0);
    });
    connect(m_compare, &widgets::CompareWorkspace::requestActivated, this, [this](RequestId id) {
        m_requestPanel->selectRequest(id);
        m_tabs->setCurrentIndex(0);
    });
    connect(m_requestPanel, &widgets::RequestTablePanel::selectionChanged, this,
            [this] { m_profileView->setSelection(m_requestPanel->selectedIds()); });
    connect(m_profileView, &widgets::ProfileView::requestActivated, this, [this](RequestId id) {
        m_requestPanel->selectRequest(id);
        m_tabs->setCurrentIndex(0);
    });
    connect(m_aggregates, &widgets::AggregatesView::requestActivated, this, [this](RequestId id) {
        m_requestPanel->selectRequest(id);
        m_tabs->setCurrentIndex(0);
    });
    connect(m_aggregates, &widgets::AggregatesView::requestsBrushed, this, [this](const std::vector<RequestId>& ids) {
        // Brushing selects those requests in the table (the first becomes current); with "only selected"
        // on, they are the rows shown.
        m_requestPanel->selectRequests(ids);
        m_statusText->setText(tr("%L1 requests selected by the brush").arg(ids.size()));
    });
    connect(m_aggregates, &widgets::AggregatesView::whatIfRequested, this, [this](WhatIfTarget target, double factor, const QString& label) {
        auto analysis = m_analysisData;
        auto aggregates = m_scopedAggregates;  // the requests the view shows, re-scheduled
        if (!analysis || !aggregates) return;
        job(Job::Aggregates).start<WhatIfResult>(
            [analysis, aggregates, target, factor](const CancelToken& cancel, const ProgressSink& progress) {
                progress(0.0, "re-scheduling the requests");
                return std::make_shared<Result<std::vector<TimeNs>>>(whatIf(*analysis, *aggregates, target, factor, 0, 0, &cancel));
            },
            [this, label](WhatIfResult result) {
                if (!result->isOk()) {
                    m_statusText->setText(tr("What-if: %1").arg(QString::fromStdString(result->message())));
                    return;
                }
                m_aggregates->setWhatIfResult(result->value(), label);
            });
    });

    // A suspect's evidence in the Compare tab opens the profile diff of the two periods, searched for it.
    connect(m_compare, &widgets::CompareWorkspace::suspectActivated, this, [this](const QString& baseline, const QString& problem, const QString& key) {
        showTab(4);
        m_profileView->showDiff(baseline, problem, key);
    });
    connect(m_requestPanel, &widgets::RequestTablePanel::currentRequestChanged, this, [this](RequestId id) {
        updateStatus();
        showRequest(id);
    });
    connect(m_requestPanel, &widgets::RequestTablePanel::filterTextChanged, this, [this](const QString& text) {
        rememberFilter(text);
        updateStatus();
    });
    connect(m_waterfall, &widgets::WaterfallView::segmentClicked, this, [this](int segment) {
        const RequestDetail* d = m_waterfall->request();
        if (!d) return;
        const auto s = static_cast<std::size_t>(segment);
        findDependencies();
        showSegmentStatus(segment);
        m_model->selectType(QString::fromStdString(d->segmentName(s)));
    });
    connect(m_model, &widgets::ModelOverview::periodChosen, this, [this] {
        updateScopeBar();
        loadModel();
    });
    connect(m_model->modeBox(), &QComboBox::activated, this, [this] { updateScopeBar(); });
    connect(m_model, &widgets::ModelOverview::requestActivated, this, [this](const QString& name) {
        selectRequestByName(name);
        m_tabs->setCurrentIndex(0);
    });

    createActions();
    QSettings settings;
    restoreGeometry(settings.value("mainWindow/geometry").toByteArray());
    restoreState(settings.value("mainWindow/state").toByteArray());
    if (!settings.contains("mainWindow/geometry")) resize(1280, 860);
    if (!m_splitter->restoreState(settings.value("mainWindow/splitter").toByteArray())) m_splitter->setSizes({250, 600});
    m_tabs->setCurrentIndex(settings.value("mainWindow/tab", 0).toInt());
    // (The key names the column layout: a header saved with other columns would misplace every width.)
    const QByteArray header = settings.value("mainWindow/requestColumns").toByteArray();
    if (header.isEmpty() || !m_table->horizontalHeader()->restoreState(header))
        m_table->horizontalHeader()->setSortIndicator(widgets::RequestTableModel::Latency, Qt::DescendingOrder);
    // A width remembered from before the counts were sized for a million-span trace is widened to fit.
    for (const auto& [column, least] : m_countColumnWidths)
        if (m_table->columnWidth(column) < least) m_table->setColumnWidth(column, least);
    // The filter is the database's own (a period named in one means nothing in the next): set when one opens.
}

MainWindow::~MainWindow() {
    // The session cancels its jobs as it goes, and a job that ends says so: by the time QWidget deletes its
    // children this window's members are gone, so nothing the session or its lanes say may reach it then.
    if (!m_session) return;
    m_session->disconnect(this);
    for (std::size_t lane = 0; lane < Session::kJobs; ++lane) job(static_cast<Job>(lane)).disconnect(this);
    delete m_session;
    m_session = nullptr;
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::chooseAndOpen);
    open->setShortcut(QKeySequence::Open);
    QAction* import = file->addAction(tr("&Import Traces…"), this, &MainWindow::importFiles);
    import->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    import->setToolTip(tr("Event logs, OpenTelemetry, Jaeger, Zipkin or span tables; the format is recognised from content"));
    m_captureAction = file->addAction(tr("&Capture Live Spans…"), this, [this] {
        if (m_session->capture()) {
            stopCapture();
            return;
        }
        CaptureDialog dialog(m_session->path(), this);
        if (dialog.exec() == QDialog::Accepted) startCapture(dialog.database(), dialog.options());
    });
    m_captureAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    m_captureAction->setToolTip(tr("Receive OpenTelemetry spans over OTLP/HTTP into a database while you look at them"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    QAction* reload = file->addAction(tr("&Reload"), this, [this] {
        if (m_session->isOpen()) openDatabase(m_session->path());
    });
    reload->setShortcut(QKeySequence::Refresh);
    file->addSeparator();
    QAction* exportProfile = file->addAction(tr("Export &Profile…"), this, [this] {
        m_tabs->setCurrentWidget(m_profileView);
        m_profileView->exportDialog();
    });
    exportProfile->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    exportProfile->setToolTip(tr("The Profile tab's flame graph as folded stacks, speedscope JSON or pprof"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* analysis = menuBar()->addMenu(tr("&Analysis"));
    QAction* reanalyse = analysis->addAction(tr("&Re-analyse"), this, [this] { startAnalysis(true); });
    reanalyse->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    analysis->addAction(tr("&Categories…"), this, [this] {
        if (!m_session->isOpen()) return;
        CategoryEditor editor(loadCategoryRules(*m_session->store()), this);
        if (editor.exec() != QDialog::Accepted) return;
        if (saveToDatabase(tr("Categories"), [&](TraceStore& store) { return saveCategoryRules(store, editor.rules()); }))
            loadAggregates();  // the studies regroup by the new categories
    });

    analysis->addAction(tr("&Bottleneck types…"), this, [this] {
        if (!m_session->isOpen()) return;
        BottleneckRulesEditor editor(loadBottleneckRules(*m_session->store()), this);
        if (editor.exec() != QDialog::Accepted) return;
        if (saveToDatabase(tr("Bottleneck types"), [&](TraceStore& store) { return saveBottleneckRules(store, editor.rules()); }))
            m_bottlenecks->refresh();  // the table, charts and trend by the new types
    });

    QAction* naming = analysis->addAction(tr("&Naming Filter…"), this, [this] {
        if (!m_session->isOpen()) return;
        bool ok = false;
        const QString regex = QInputDialog::getText(
            this, tr("Naming filter"),
            tr("Leave out the events of event logs whose task or event name this regular expression finds\n"
               "(test and debug log points, as the Mystery Machine does); empty: every event."),
            QLineEdit::Normal, QString::fromStdString(m_session->store()->namingFilter()), &ok);
        if (ok) setNamingFilter(regex);
    });
    naming->setToolTip(tr("Test and debug log points left out of the model, the critical paths and every view, by name"));

    QAction* derived = analysis->addAction(tr("&Derived Attributes…"), this, [this] {
        if (!m_session->isOpen()) return;
        QStringList lines;
        for (const DerivedAttribute& d : loadDerivedAttributes(*m_session->store())) lines << QString::fromStdString(d.definition());
        bool ok = false;
        const QString text = QInputDialog::getMultiLineText(
            this, tr("Derived attributes"),
            tr("One NAME=EXPR per line: + - * / and parentheses over numbers, attributes, time(C) and critical(C)\n"
               "(a category's summed and critical-path time) and latency(), in seconds. Aggregates › Stratify by offers them.\n"
               "Example: bandwidth=bytes/time(network)"),
            lines.join(QLatin1Char('\n')), &ok);
        if (ok) setDerivedAttributes(text.split(QLatin1Char('\n'), Qt::SkipEmptyParts));
    });
    derived->setToolTip(tr("Request attributes computed from others and from categories' times, to stratify by"));

    QAction* sqlTables = analysis->addAction(tr("Results in S&QL Tables"));
    sqlTables->setCheckable(true);
    sqlTables->setToolTip(tr("Keep every request's critical path and slack as rows of the tables critical_path_segments and slack, "
                             "for SQL of your own"));
    connect(analysis, &QMenu::aboutToShow, this, [this, sqlTables] {
        sqlTables->setEnabled(m_session->isOpen());
        sqlTables->setChecked(m_session->isOpen() && resultTablesKept(*m_session->store()));
    });
    connect(sqlTables, &QAction::triggered, this, [this](bool keep) { setResultTablesKept(keep); });

    QAction* periods = analysis->addAction(tr("&Periods…"), this, [this] {
        if (!m_session->isOpen()) return;
        PeriodManager manager(*m_session, this);
        manager.exec();
        if (manager.changed()) openDatabase(m_session->path());  // the table, the compare and profile pickers follow
    });
    periods->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    periods->setToolTip(tr("Define periods by time range or attribute, rename or delete them"));

    QAction* clocks = analysis->addAction(tr("Clock &Adjustments…"), this, [this] {
        if (!m_session->isOpen()) return;
        auto* dialog = new ClockAdjustmentsDialog(*m_session, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    clocks->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    clocks->setToolTip(tr("What clock-skew correction decided per host pair: offset, round trips, the rule that fired"));

    QMenu* go = menuBar()->addMenu(tr("&Go"));
    auto step = [this](int delta) {
        const int rows = m_requests->rowCount();
        if (rows == 0) return;
        const int current = m_table->currentIndex().isValid() ? m_table->currentIndex().row() : -delta;
        const int row = std::clamp(current + delta, 0, rows - 1);
        m_requestPanel->selectRequest(m_requests->requestAt(row));  // one selection, whatever modifier is held
    };
    QAction* next = go->addAction(tr("&Next Request"), this, [step] { step(1); });
    next->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Down));
    QAction* previous = go->addAction(tr("&Previous Request"), this, [step] { step(-1); });
    previous->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Up));
    QAction* slowest = go->addAction(tr("&Slowest Request"), this, [this] {
        m_table->sortByColumn(widgets::RequestTableModel::Latency, Qt::DescendingOrder);
        if (m_requests->rowCount() > 0) m_requestPanel->selectRequest(m_requests->requestAt(0));
    });
    slowest->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_End));
    QAction* find = go->addAction(tr("&Find…"), this, [this] {
        // On the graph tab: its segment-type search; everywhere else: the request filter.
        if (m_tabs->currentIndex() == 1) m_model->focusSearch();
        else m_requestPanel->focusFilter();
    });
    find->setShortcut(QKeySequence::Find);
    find->setToolTip(tr("Filter the requests (on the dependency graph: find a segment type)"));
    go->addAction(tr("Find &Segment Type…"), this, [this] {
        m_tabs->setCurrentIndex(1);
        m_model->focusSearch();
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* waterfall = view->addAction(tr("&Waterfall"), this, [this] { showTab(0); });
    waterfall->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    QAction* graph = view->addAction(tr("Dependency &Graph"), this, [this] { showTab(1); });
    graph->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    QAction* aggregates = view->addAction(tr("&Aggregates"), this, [this] { showTab(2); });
    aggregates->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_3));
    QAction* compare = view->addAction(tr("&Compare Periods"), this, [this] { showTab(3); });
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_4));
    QAction* profile = view->addAction(tr("Critical-path &Profile"), this, [this] { showTab(4); });
    profile->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_5));
    QAction* bottlenecks = view->addAction(tr("&Bottlenecks"), this, [this] { showTab(5); });
    bottlenecks->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_6));
    QAction* bursts = view->addAction(tr("B&ursts"), this, [this] { showTab(6); });
    bursts->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_7));
    view->addSeparator();
    QAction* zoomIn = view->addAction(tr("Zoom &In"), this, [this] { m_spanPane->zoom(0.5); });
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    QAction* zoomOut = view->addAction(tr("Zoom &Out"), this, [this] { m_spanPane->zoom(2.0); });
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* fit = view->addAction(tr("&Fit"), this, [this] {
        m_spanPane->fit();
        m_model->graphView()->fit();
    });
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_localClocks = view->addAction(tr("&Local Clocks"), this, [this](bool on) {
        m_waterfall->setLocalClocks(on);
        m_spanPane->setLocalClocks(on);
        m_compare->setLocalClocks(on);
        m_bursts->setLocalClocks(on);
        // The strip's window and index are on the clocks shown: take them again (nothing to do without a request).
        if (const RequestId id = m_requestPanel->currentRequest(); id.isValid()) showContext(id);
    });
    m_localClocks->setObjectName(QStringLiteral("localClocks"));
    m_localClocks->setCheckable(true);
    m_localClocks->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_localClocks->setToolTip(tr("Draw each event on its own host's clock instead of the skew-corrected time (waterfall, span tree, "
                                 "the temporal-context strip, Compare's swim lanes and period timeline, the burst windows)"));
    QAction* spanTree = view->addAction(tr("&Span Tree"), this, [this](bool on) {
        setWaterfallMode(on ? QStringLiteral("spans") : QStringLiteral("lanes"));
        showTab(0);
    });
    spanTree->setCheckable(true);
    spanTree->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    spanTree->setToolTip(tr("Waterfall of a request imported from spans: one row per span instead of a lane per host"));
    spanTree->setChecked(m_spanPane->mode() == widgets::SpanTreePane::Mode::SpanTree);
    QAction* context = view->addAction(tr("Temporal &Context Strip"), this, [this](bool on) {
        QSettings().setValue("waterfall/contextStrip", on);
        m_contextStrip->setVisible(on);
        if (on) showContext(m_requestPanel->currentRequest());
        showTab(0);
    });
    context->setCheckable(true);
    context->setChecked(QSettings().value("waterfall/contextStrip", true).toBool());
    context->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    context->setToolTip(tr("Under the waterfall: what else ran on the request's hosts during its lifetime"));
    connect(m_spanPane->toggleButton(), &QToolButton::toggled, spanTree, &QAction::setChecked);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* quickStart = help->addAction(tr("&Quick Start"), this, [this] { showQuickStart(this); });
    quickStart->setShortcut(QKeySequence::HelpContents);
    QAction* keys = help->addAction(tr("&Keyboard Shortcuts"), this, [this] { showShortcuts(this, *menuBar()); });
    keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    help->addSeparator();
    help->addAction(tr("&About Tracelight"), this, [this] {
        QMessageBox::about(this, tr("About Tracelight"),
                           tr("<b>Tracelight</b> %1<br>Which components decide the latency of distributed requests.")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::showTab(int index) { m_tabs->setCurrentIndex(index); }

void MainWindow::setWaterfallMode(const QString& mode) {
    m_spanPane->setMode(mode == QLatin1String("spans") ? widgets::SpanTreePane::Mode::SpanTree : widgets::SpanTreePane::Mode::HostLanes);
}

void MainWindow::setRequestFilter(const QString& text) {
    m_requestPanel->setFilterText(text);
    if (!m_session->isOpen()) m_filterForNextDatabase = text;  // given before a database opens (--filter): for that one
}

void MainWindow::showAggregatePage(int index) {
    m_tabs->setCurrentIndex(2);
    m_aggregates->showPage(index);
}

void MainWindow::loadAggregates() {
    job(Job::Aggregates).start<AggregateResult>(
        [reader = m_session->reader()](const CancelToken& cancel, const ProgressSink& progress) {
            auto bundle = std::make_shared<AggregateBundle>();
            auto store = reader();
            if (!store) {
                bundle->status = store.status();
                return bundle;
            }
            ProgressSink reading = [&](double f, std::string_view s) { progress(0.5 * f, s); };
            // One snapshot for the analysis and the cached results the aggregates read: an analyze that
            // commits meanwhile (another process's) cannot mix its results with the model read here.
            if (Status s = store.value()->beginRead(); !s) {
                bundle->status = s;
                return bundle;
            }
            struct EndRead {
                const TraceStore& store;
                ~EndRead() { store.endRead(); }
            } endRead{*store.value()};
            auto analysis = loadAnalysis(*store.value(), &reading, &cancel);
            if (!analysis) {
                bundle->status = analysis.status();
                return bundle;
            }
            ProgressSink aggregating = [&](double f, std::string_view s) { progress(0.5 + 0.5 * f, s); };
            auto shared = std::make_shared<const InMemoryAnalysis>(std::move(analysis.value()));
            // Analyze's cached results give each request's slack and critical path: no graph is built again.
            auto aggregates = computeAggregates(*shared, loadCategoryRules(*store.value()), 0, &aggregating, &cancel, store.value().get());
            if (!aggregates) {
                bundle->status = aggregates.status();  // cancelled: nothing partial reaches the view
                return bundle;
            }
            bundle->aggregates = std::make_shared<const RequestAggregates>(std::move(aggregates.value()));
            bundle->analysis = shared;
            return bundle;
        },
        [this](AggregateResult result) {
            if (!result->status) {
                m_statusText->setText(tr("Aggregates: %1").arg(QString::fromStdString(result->status.message())));
                return;
            }
            m_analysisData = result->analysis;
            m_aggregateData = result->aggregates;
            const QStringList periods = periodNames();
            m_compare->setDatabase(m_analysisData, periods);
            m_model->setPeriods(periods);
            m_profileView->setScope(m_session->scope());
            m_profileView->setDatabase(m_analysisData, periods);
            m_bottlenecks->setScope(m_session->scope());
            m_stratifyingKeys = stratifyingKeys(periods.size());
            QStringList userKeys = m_stratifyingKeys;  // what the Over time view's A/A may split users by
            userKeys.removeAll(QString::fromUtf8(kPeriodKey.data(), static_cast<qsizetype>(kPeriodKey.size())));
            m_compare->setAttributeKeys(userKeys);
            m_bottlenecks->setDatabase(m_analysisData, periods, m_stratifyingKeys);
            showContext(m_requestPanel->currentRequest());  // the first request was shown before the analysis was in
            m_bursts->setDatabase(m_analysisData, [this](RequestId id) { return requestLabel(id); });
            showScopedAggregates();
        });
}

QStringList MainWindow::stratifyingKeys(qsizetype periods) const {
    QStringList keys;
    if (!m_session->isOpen()) return keys;
    // The period, once there are two to tell apart, then the attributes.
    if (periods > 1) keys << QString::fromUtf8(kPeriodKey.data(), static_cast<int>(kPeriodKey.size()));
    for (const auto& key : attributeKeys(*m_session->store()))
        if (key != kPeriodKey) keys << QString::fromStdString(key);
    return keys;
}

void MainWindow::updateScope() {
    std::shared_ptr<const std::vector<RequestId>> ids;
    if (m_requestPanel->isNarrowed()) ids = std::make_shared<const std::vector<RequestId>>(m_requestPanel->listedIds());
    const bool changed = m_session->setScope({std::move(ids), m_requestPanel->listedText()});
    updateScopeBar();
    m_profileView->setScope(m_session->scope());  // the text may have changed even when the requests did not
    m_bottlenecks->setScope(m_session->scope());
    if (!changed) return;
    showScopedAggregates();
    showScopedServiceMap();
}

void MainWindow::updateScopeBar() {
    const int tab = m_tabs->currentIndex();
    if (m_fileContents) {
        // A file shown from memory: every tab but the waterfall needs its database.
        m_scopeBar->setVisible(tab != 0);
        m_scopeBar->setText(tr("Read from the file: this tab follows its import into %1.").arg(QFileInfo(m_fileDatabase).fileName()));
        return;
    }
    const bool scoped = tab == 1 || tab == 2 || tab == 4 || tab == 5;  // graph, aggregates, profile, bottlenecks
    const widgets::RequestScope& scope = m_session->scope();
    m_scopeBar->setVisible(scoped && m_session->isOpen());
    QString text = scope.isAll() ? tr("Covering %1").arg(m_requestPanel->listedText())  // "all 1,290 requests"
                                 : tr("Covering the listed requests — %1").arg(scope.text);
    // The graph tab's causal model may come from one period alone (its period box); the service map keeps the scope.
    if (tab == 1 && m_model->mode() == widgets::ModelOverview::Mode::CausalModel && !m_model->period().isEmpty())
        text += tr("; the causal model from period “%1” alone").arg(m_model->period());
    m_scopeBar->setText(text);
}

void MainWindow::showScopedAggregates() {
    auto full = m_aggregateData;
    if (!full) return;
    auto show = [this](std::shared_ptr<const RequestAggregates> scoped) {
        m_scopedAggregates = scoped;
        m_profileView->setAggregates(scoped);
        auto analysis = m_analysisData;
        // The attributes, then the derived ones kept in the database (Analysis › Derived Attributes…).
        QStringList keys = m_stratifyingKeys;
        for (const DerivedAttribute& d : loadDerivedAttributes(*m_session->store()))
            if (!keys.contains(QString::fromStdString(d.name))) keys << QString::fromStdString(d.name);
        m_aggregates->setAggregates(
            scoped, keys,
            // Called on the view's workers: each read opens its own connection.
            [reader = m_session->reader(), scoped](const QString& key) {
                auto store = reader ? reader() : Result<std::unique_ptr<TraceStore>>(Status::error("no database"));
                auto values = store ? requestAttributeValues(*store.value(), *scoped, key.toStdString())
                                    : Result<std::vector<std::string>>(store.status());
                return values ? std::move(values.value()) : std::vector<std::string>(scoped->ids.size());
            },
            [analysis](std::uint32_t type) {
                return type < analysis->data.segmentTypes.size() ? QString::fromStdString(analysis->data.segmentName(SegmentTypeId(type)))
                                                                 : QString::number(type);
            });
    };
    auto ids = m_session->scope().ids;
    if (!ids) {
        job(Job::Scope).cancel();
        show(full);
        return;
    }
    using Scoped = std::shared_ptr<const RequestAggregates>;
    job(Job::Scope).start<Scoped>(
        [full, ids](const CancelToken&, const ProgressSink& progress) -> Scoped {
            progress(0.0, "restricting the aggregates to the listed requests");
            return std::make_shared<const RequestAggregates>(restrictAggregates(*full, rowsOfRequests(full->ids, *ids)));
        },
        show);
}

void MainWindow::showScopedServiceMap() {
    if (!m_session->isOpen()) return;
    auto ids = m_session->scope().ids;
    using MapResult = std::shared_ptr<const ServiceMap>;
    job(Job::ServiceMap).start<MapResult>(
        [reader = m_session->reader(), ids](const CancelToken& cancel, const ProgressSink& progress) -> MapResult {
            progress(0.0, "counting the listed requests' calls");
            auto store = reader();
            if (!store) return nullptr;
            auto map = loadServiceMap(*store.value(), &cancel, ids.get());
            return map ? std::make_shared<const ServiceMap>(std::move(map.value())) : nullptr;
        },
        [this](MapResult map) {
            if (map) m_model->setServiceMap(map);
        });
}

bool MainWindow::openPath(const QString& path) {
    // The open database is one, and its header is not read again: closing a descriptor of our own on it would
    // drop SQLite's locks (widgets/common/FileDialogs.h).
    const bool isOpen = m_session->isOpen() && QFileInfo(path).canonicalFilePath() == QFileInfo(m_session->path()).canonicalFilePath();
    if (isOpen || looksLikeDatabase(path.toStdString())) return openDatabase(path);
    if (!QFileInfo(path).isFile()) {
        reportError(tr("Cannot open"), tr("%1: no such file").arg(path));
        return false;
    }
    if (const QString why = notATraceFile(path); !why.isEmpty()) {
        reportError(tr("Cannot open"), tr("%1 is not a Tracelight database either.").arg(QDir::toNativeSeparators(path)) + QStringLiteral("\n\n") + why);
        return false;
    }
    // The file's own database (import/TraceFileDatabase.h, shared with tracelight-cli): used as it is while current.
    const std::string trace = QFileInfo(path).absoluteFilePath().toStdString();
    const std::string cache = traceCacheFolder();
    const std::string own = databaseForTraceFile(trace, cache);
    // Ours but stale, it is about to be imported afresh: the window lets go of it first (one holding other data stays).
    if (m_session->isOpen() && QFileInfo(QString::fromStdString(own)).absoluteFilePath() == QFileInfo(m_session->path()).absoluteFilePath() &&
        holdsOnlyImportOf(own, trace) && !holdsCurrentImportOf(own, trace))
        m_session->close();
    auto target = traceFileDatabase(trace, cache);
    if (!target) {
        reportError(tr("Cannot open"), tr("%1: import it with File › Import Traces… instead.").arg(QString::fromStdString(target.message())));
        return false;
    }
    const QString database = QString::fromStdString(target->path);
    if (target->current) return openDatabase(database);
    readTraceFileIntoMemory(QString::fromStdString(trace), database);
    return true;
}

void MainWindow::readTraceFileIntoMemory(const QString& file, const QString& database) {
    m_statusText->setText(tr("Reading %1").arg(QFileInfo(file).fileName()));
    job(Job::TraceFile).start<std::shared_ptr<TraceFileRead>>(
        [file = file.toStdString()](const CancelToken& cancel, const ProgressSink& progress) { return readTraceFile(file, cancel, progress); },
        [this, file, database](std::shared_ptr<TraceFileRead> read) {
            if (!read->status) {
                if (needsDatabase(read->status)) {
                    // An event log, or more spans than memory holds: the database first, as before.
                    m_statusText->setText(tr("Importing %1 into %2").arg(QFileInfo(file).fileName(), database));
                    startImport({file}, database, QString());
                } else if (read->status.message() == "cancelled") {
                    m_statusText->setText(tr("Cancelled; nothing was opened."));
                } else {
                    reportError(tr("Cannot open"), tr("%1: %2").arg(QDir::toNativeSeparators(file), QString::fromStdString(read->status.message())));
                }
                return;
            }
            m_fileContents = read->contents;
            m_fileName = file;
            m_fileDatabase = database;
            showTraceFileRead(file, database);
            auto table = read->table;
            m_requests->setTable(table, {});  // the file's reader keeps no attributes: they come with the database
            arrangeTable(table->hasSpans);
            // The import waits for the first waterfall (showRequestFromFile starts it): on two cores it would halve
            // the time the first request's pass gets.
            m_importAfterShown = true;
            m_requestPanel->tableReplaced();  // its first request is selected, and shown from memory (showRequest)
            updateStatus();
            emit loaded();
            if (table->size() == 0 || !m_requestPanel->currentRequest().isValid()) startImportAfterShown();
        });
}

void MainWindow::arrangeTable(bool hasSpans) {
    // The span columns only where there are span requests: an event log's would stay empty.
    for (int column : {widgets::RequestTableModel::Service, widgets::RequestTableModel::Operation, widgets::RequestTableModel::Spans,
                       widgets::RequestTableModel::Errors})
        m_table->setColumnHidden(column, !hasSpans);
    const auto sortColumn = m_table->horizontalHeader()->sortIndicatorSection();
    if (sortColumn >= 0 && sortColumn < widgets::RequestTableModel::Attributes)
        m_requests->sort(sortColumn, m_table->horizontalHeader()->sortIndicatorOrder());
}

void MainWindow::showTraceFileRead(const QString& file, const QString& database) {
    // Whatever was open is let go of: the file's requests are the ones on show now.
    m_session->close();
    clearDatabaseViews(true);
    m_requestPanel->setFilterText(m_filterForNextDatabase ? *std::exchange(m_filterForNextDatabase, std::nullopt) : rememberedFilter(database));
    setWindowTitle(tr("%1 — Tracelight").arg(QFileInfo(file).fileName()));
    m_requests->setTable(nullptr, {});
    m_requestPanel->forgetShown();
    m_waterfall->setRequest(nullptr);
    m_spanPane->setSpans(nullptr);
    {
        const QSignalBlocker quiet(m_model);
        m_model->setPeriods({});
    }
    updateScopeBar();  // no database: the line that names the scoped tabs' requests goes
}

void MainWindow::startImportAfterShown() {
    if (!std::exchange(m_importAfterShown, false) || !m_fileContents) return;
    importShownTraceFile(m_fileName, m_fileDatabase);
}

void MainWindow::importShownTraceFile(const QString& file, const QString& database) {
    const std::string shown = tr("Read from the file; importing into %1: ").arg(QFileInfo(database).fileName()).toStdString();
    job(Job::Import).start<std::shared_ptr<Status>>(
        [file = file.toStdString(), db = database.toStdString(), shown](const CancelToken& cancel, const ProgressSink& progress) {
            return std::make_shared<Status>(importAndAnalyse(file, db, shown, cancel, progress));
        },
        [this, database](std::shared_ptr<Status> done) {
            if (m_fileDatabase != database || !m_fileContents) return;  // another database or file opened meanwhile
            // (Cancelled, nothing comes here: the file stays shown.) An analysis that failed after the import is
            // tried again, and its error shown, when the database opens.
            if (!*done && !QFileInfo::exists(database)) {
                reportError(tr("Import failed"), tr("%1\n\nThe requests shown are read from the file; no database was made.")
                                                     .arg(QString::fromStdString(done->message())));
                return;
            }
            // Into the database, keeping the request shown (its ids are the file's) and the table's scroll.
            m_keepShownRequest = true;
            m_tableScroll = m_table->verticalScrollBar()->value();
            openDatabase(database);
            m_keepShownRequest = false;
        });
}

namespace {
constexpr int kRememberedFilters = 50;  // databases whose filter is kept, the most recently used
}

QString MainWindow::rememberedFilter(const QString& database) const {
    return QSettings().value(QStringLiteral("requestTable/filters")).toMap().value(QFileInfo(database).absoluteFilePath()).toString();
}

void MainWindow::rememberFilter(const QString& text) {
    if (!m_session->isOpen()) return;
    QSettings settings;
    QVariantMap filters = settings.value(QStringLiteral("requestTable/filters")).toMap();
    QStringList order = settings.value(QStringLiteral("requestTable/filterOrder")).toStringList();
    const QString key = QFileInfo(m_session->path()).absoluteFilePath();
    order.removeAll(key);
    if (text.isEmpty()) filters.remove(key);
    else {
        filters.insert(key, text);
        order.prepend(key);
    }
    while (order.size() > kRememberedFilters) filters.remove(order.takeLast());
    settings.setValue(QStringLiteral("requestTable/filters"), filters);
    settings.setValue(QStringLiteral("requestTable/filterOrder"), order);
}

bool MainWindow::openDatabase(const QString& path) {
    if (Status opened = m_session->open(path); !opened) {
        reportError(tr("Cannot open database"), QString::fromStdString(opened.message()));
        return false;
    }
    // Nothing of the previous database stays on show (its aggregates arrive again in the background); from
    // the file shown in memory, its request stays on show until the database's own detail of it arrives.
    const bool fromFile = m_keepShownRequest && m_fileContents && path == m_fileDatabase;
    m_fileContents.reset();
    m_fileName.clear();
    m_fileDatabase.clear();
    m_importAfterShown = false;
    updateScopeBar();
    if (!fromFile) {
        job(Job::TraceFile).cancel();
        m_tableScroll.reset();
    }
    clearDatabaseViews(false);
    m_aggregates->setExportContext(QFileInfo(path).completeBaseName());  // in the plots' default export names
    if (!fromFile)
        m_requestPanel->setFilterText(m_filterForNextDatabase ? *std::exchange(m_filterForNextDatabase, std::nullopt) : rememberedFilter(path));
    setWindowTitle(tr("%1 — Tracelight").arg(QFileInfo(path).fileName()));
    addRecentFile(path);
    m_requests->setTable(nullptr, {});
    if (!fromFile) {
        m_requestPanel->forgetShown();
        m_waterfall->setRequest(nullptr);
        m_spanPane->setSpans(nullptr);
    }
    {
        // The period the model was inferred over stays chosen while this database has one of that name.
        const QSignalBlocker quiet(m_model);  // the model is loaded below
        m_model->setPeriods(periodNames());
    }
    loadTable();
    if (analysisIsCurrent(*m_session->store(), AnalysisOptions{})) {
        loadModel();
        loadAggregates();
    } else {
        startAnalysis(false);
    }
    return true;
}

void MainWindow::clearDatabaseViews(bool followsImport) {
    m_aggregates->setAggregates(nullptr, {}, {}, {});
    m_aggregateData.reset();
    m_scopedAggregates.reset();
    m_analysisData.reset();
    const QString follows = followsImport ? tr("it follows the import of the file shown") : tr("it follows the database loading");
    m_compare->clear(tr("Comparing needs the analysis; %1.").arg(follows));
    m_profileView->clear(tr("The profile needs the analysis; %1.").arg(follows));
    m_bottlenecks->clear(tr("The bottlenecks need the analysis; %1.").arg(follows));
    m_bursts->clear(tr("The bursts need the analysis; %1.").arg(follows));
    m_dependencyWork.reset();
    m_contextStrip->clear(tr("The temporal context needs the analysis; %1.").arg(follows));
    m_pages->setCurrentWidget(m_splitter);
    m_model->setGraph(nullptr);
    m_model->setServiceMap(nullptr);
}

void MainWindow::loadTable() {
    job(Job::Requests).start<LoadResult>(
        [reader = m_session->reader()](const CancelToken& cancel, const ProgressSink& progress) {
            progress(0.0, "loading requests");
            auto store = reader();  // each worker its own connection
            if (!store) return std::make_shared<Result<RequestTable>>(store.status());
            return std::make_shared<Result<RequestTable>>(loadRequestTable(*store.value(), &cancel));
        },
        [this](LoadResult result) {
            if (!result->isOk()) {
                reportError(tr("Cannot load requests"), QString::fromStdString(result->message()));
                return;
            }
            auto table = std::make_shared<const RequestTable>(std::move(result->value()));
            std::shared_ptr<const TraceStore> store = m_session->store();
            m_requests->setTable(table, [store](RequestId id) {
                QStringList parts;
                for (const auto& [key, value] : requestAttributes(*store, id))
                    parts << QString::fromStdString(key) + "=" + QString::fromStdString(value);
                return parts.join(QStringLiteral("  "));
            });
            arrangeTable(table->hasSpans);
            m_requestPanel->tableReplaced();  // filter again; the request shown stays selected when still listed
            if (m_tableScroll) {
                // From the file in memory: the same request, at the same place, now read from the database (the
                // table kept it current, so it did not say so).
                m_table->verticalScrollBar()->setValue(*std::exchange(m_tableScroll, std::nullopt));
                showRequest(m_requestPanel->currentRequest());
            }
            updateStatus();
            emit loaded();
        });
}

void MainWindow::loadModel() {
    job(Job::Model).start<GraphResult>(
        [reader = m_session->reader(), ids = m_session->scope().ids, period = m_model->period().toStdString(),
         analysis = m_analysisData](const CancelToken& cancel, const ProgressSink& progress) {
            auto store = reader();
            if (!store) return std::make_shared<GraphBundle>(GraphBundle{store.status(), nullptr});
            auto bundle = std::make_shared<GraphBundle>(GraphBundle{period.empty() ? loadModelGraph(*store.value(), &cancel)
                                                                                   : periodModelGraph(*store.value(), analysis, period, progress, cancel),
                                                                    nullptr});
            // The service map of span data (empty for event logs) is counted here too, off the GUI thread, over the scope.
            if (auto map = loadServiceMap(*store.value(), &cancel, ids.get())) bundle->services = std::make_shared<const ServiceMap>(std::move(map.value()));
            return bundle;
        },
        [this](GraphResult result) {
            // The views lay the graphs out on workers of their own (never here, on the GUI thread).
            if (result->graph.isOk()) m_model->setGraph(std::make_shared<const ModelGraph>(std::move(result->graph.value())));
            else if (result->graph.message() != "cancelled")
                m_statusText->setText(tr("Dependency graph: %1").arg(QString::fromStdString(result->graph.message())));
            m_model->setServiceMap(result->services);
        });
}

void MainWindow::startAnalysis(bool force) {
    if (!m_session->isOpen()) return;
    if (!force && analysisIsCurrent(*m_session->store(), AnalysisOptions{})) return;
    // While a capture commits spans, a full analysis holds the write lock only for its final write (the capture's
    // rounds after the first are incremental and write little).
    AnalysisOptions options;
    options.writeAtEnd = m_session->capture() != nullptr;
    options.full = force;  // Re-analyse: every request again, not refined
    job(Job::Analysis).start<AnalysisResult>(
        [writer = m_session->analysisWriter(), options](const CancelToken& cancel, const ProgressSink& progress) {
            // Checked while the analysis reads it; nothing is written before the check passed.
            auto store = writer();
            if (!store) return std::make_shared<Result<AnalysisSummary>>(store.status());
            return std::make_shared<Result<AnalysisSummary>>(analyzeStore(*store.value(), options, &progress, &cancel));
        },
        [this](AnalysisResult result) {
            if (!result->isOk()) {
                m_statusText->setText(tr("Analysis failed: %1").arg(QString::fromStdString(result->message())));
                return;
            }
            // Corrected latencies, the model and the current request's critical path are new.
            loadTable();
            loadModel();
            loadAggregates();
            if (m_table->currentIndex().isValid()) showRequest(m_requests->requestAt(m_table->currentIndex().row()));
        });
}

void MainWindow::showRequest(RequestId id) {
    if (!id.isValid()) return;
    if (m_fileContents) {
        showRequestFromFile(id);
        return;
    }
    if (!m_session->isOpen()) return;
    // What follows the last request's lanes is not wanted any more. Its work to find them stays until the
    // next request is shown (a click on it meanwhile still finds them), and a read of its spans finishes
    // (its result is dropped if another request is shown by then).
    job(Job::Dependencies).cancel();
    // The lanes' layout is built on the detail's worker, for the clocks the view shows now. Two things
    // follow the lanes when they are first wanted, each on a worker of its own: the request graph's edges
    // when a segment is selected (only its dependencies need them) and the span tree when it is shown (a
    // million spans take seconds to read). Neither is held, nor its working memory taken, at the open.
    auto later = std::make_shared<DependencyWork>();
    auto layout = std::make_shared<widgets::WaterfallLayout>();
    const bool localClocks = m_waterfall->localClocks();
    job(Job::Detail).start<DetailResult>(
        [reader = m_session->reader(), id, later, layout, localClocks](const CancelToken& cancel, const ProgressSink&) {
            auto store = reader();
            if (!store) return std::make_shared<Result<RequestDetail>>(store.status());
            auto detail = std::make_shared<Result<RequestDetail>>(loadRequestDetail(*store.value(), id, &cancel, later.get()));
            if (detail->isOk() && !cancel.isCancelled()) *layout = widgets::WaterfallLayout::build(detail->value(), localClocks);
            return detail;
        },
        [this, later, layout](DetailResult result) {
            if (!result->isOk()) {
                m_statusText->setText(QString::fromStdString(result->message()));
                return;
            }
            auto shown = std::make_shared<const RequestDetail>(std::move(result->value()));
            m_waterfall->setRequest(shown, std::move(*layout));
            // The span tree is read when it is asked for (spansWanted), which may be now.
            if (shown->fromSpans) m_spanPane->setSpansOnDemand();
            else m_spanPane->setSpans(nullptr);
            // The graph's edges are found when a segment is first selected (findDependencies).
            m_dependencyWork = *later ? later : nullptr;
            m_dependencyOf = shown.get();
            emit waterfallShown();
        });
    showContext(id);
}

void MainWindow::showRequestFromFile(RequestId id) {
    auto contents = m_fileContents;
    const auto& ids = contents->data.requestIds;
    const auto at = std::find(ids.begin(), ids.end(), id);
    if (at == ids.end()) return;
    const auto row = static_cast<std::size_t>(at - ids.begin());
    job(Job::Dependencies).cancel();
    m_dependencyWork.reset();
    auto layout = std::make_shared<widgets::WaterfallLayout>();
    job(Job::Detail).start<DetailResult>(
        [contents, row, layout, localClocks = m_waterfall->localClocks()](const CancelToken& cancel, const ProgressSink& progress) {
            progress(0.0, "building the request's waterfall");
            auto detail = std::make_shared<Result<RequestDetail>>(requestDetailFromData(contents->data, row, contents->requestNames[row], &cancel));
            if (detail->isOk() && !cancel.isCancelled()) *layout = widgets::WaterfallLayout::build(detail->value(), localClocks);
            return detail;
        },
        [this, layout](DetailResult result) {
            if (!result->isOk()) {
                m_statusText->setText(QString::fromStdString(result->message()));
                startImportAfterShown();
                return;
            }
            auto shown = std::make_shared<const RequestDetail>(std::move(result->value()));
            m_waterfall->setRequest(shown, std::move(*layout));  // the graph's edges came with it: nothing follows
            if (shown->fromSpans) m_spanPane->setSpansUnreadable(tr("The span tree is read from the database: it follows the import of the file shown."));
            else m_spanPane->setSpans(nullptr);
            m_dependencyOf = shown.get();
            emit waterfallShown();
            startImportAfterShown();
        });
    m_contextStrip->clear(tr("The temporal context needs the analysis; it follows the import of the file shown."));
}

void MainWindow::findDependencies() {
    std::shared_ptr<const RequestDetail> shown = m_waterfall->sharedRequest();
    if (!m_dependencyWork || !*m_dependencyWork || !shown || m_dependencyOf != shown.get()) return;
    auto later = std::move(m_dependencyWork);  // once per request
    job(Job::Dependencies).start<std::shared_ptr<const RequestDependencies>>(
        [later, shown](const CancelToken& cancel, const ProgressSink&) -> std::shared_ptr<const RequestDependencies> {
            if (cancel.isCancelled()) return nullptr;
            return std::make_shared<const RequestDependencies>((*later)(shown->dag.segments));
        },
        [this, shown](std::shared_ptr<const RequestDependencies> dependencies) {
            if (!dependencies) return;
            m_waterfall->setDependencies(shown.get(), std::move(dependencies));
            if (m_waterfall->request() == shown.get() && m_waterfall->selectedSegment() >= 0)
                showSegmentStatus(m_waterfall->selectedSegment());  // it said the dependencies were still being found
        });
}

void MainWindow::readSpanTree() {
    std::shared_ptr<const RequestDetail> shown = m_waterfall->sharedRequest();
    if (!shown || !m_session->isOpen()) return m_spanPane->setSpans(nullptr);
    const std::string file = m_session->path().toStdString();
    struct SpanRead {
        std::shared_ptr<const widgets::SpanTreeData> spans;
        std::string error;  // the store could not be opened
    };
    job(Job::SpanTree).start<std::shared_ptr<const SpanRead>>(
        [reader = m_session->reader(), shown](const CancelToken& cancel, const ProgressSink&) {
            auto read = std::make_shared<SpanRead>();
            auto store = reader();
            if (!store) read->error = store.message();
            else read->spans = widgets::loadSpanTree(*store.value(), *shown, &cancel, reader);  // a superseded read stops
            return std::shared_ptr<const SpanRead>(std::move(read));
        },
        [this, shown, file](std::shared_ptr<const SpanRead> read) {
            if (m_waterfall->request() != shown.get()) return;
            // Only a span request's tree is read: none coming back means the store could not give it.
            if (read->spans) m_spanPane->setSpans(read->spans);  // loadSpanTree gives none for no spans
            else if (!read->error.empty()) m_spanPane->setSpansUnreadable(QString::fromStdString(read->error));
            else m_spanPane->setSpansUnreadable(tr("%1: the spans of request '%2' could not be read (the file may have changed or be damaged).")
                                                    .arg(QString::fromStdString(file), QString::fromStdString(shown->name)));
        });
}

void MainWindow::showSegmentStatus(int segment) {
    const RequestDetail* d = m_waterfall->request();
    if (!d || segment < 0) return;
    const auto s = static_cast<std::size_t>(segment);
    int in = 0, out = 0;
    for (const auto& e : m_waterfall->dependencies()) {
        in += e.to == s;
        out += e.from == s;
    }
    const QString dependencies = m_waterfall->dependenciesKnown() ? tr("%1 dependencies in, %2 out").arg(in).arg(out)
                                                                  : tr("dependencies still being found");
    m_statusText->setText(tr("%1: %2, %3 · %4")
                              .arg(QString::fromStdString(d->segmentName(s)), widgets::formatDurationNs(d->dag.segments[s].durationNs()),
                                   d->critical[s] ? tr("critical")
                                   : d->slackNs[s] == kUnboundedSlack ? tr("not waited for")
                                                                      : tr("slack %1").arg(widgets::formatDurationNs(d->slackNs[s])),
                                   dependencies));
}

void MainWindow::showContext(RequestId id) {
    if (m_contextStrip->isHidden()) return;  // switched off (not merely on another tab)
    if (!m_analysisData) {
        m_contextStrip->clear(tr("The temporal context needs the analysis; it follows the database loading."));
        return;
    }
    const auto& ids = m_analysisData->data.requestIds;
    const auto at = std::lower_bound(ids.begin(), ids.end(), id);  // analysis rows are in request id order
    if (!id.isValid() || at == ids.end() || *at != id) {
        m_contextStrip->clear(tr("This request has no analysis, so no temporal context."));
        return;
    }
    const auto row = static_cast<std::uint32_t>(at - ids.begin());
    auto analysis = m_analysisData;
    const bool local = m_waterfall->localClocks();
    job(Job::Context).start<std::shared_ptr<const ContextStrip>>(
        [analysis, row, local, source = m_session->reader()](const CancelToken&, const ProgressSink&) {
            // Only the other requests' items on its hosts are filed: the index costs those, not every host's.
            // It files them on the clocks the window is taken on.
            const ClockOffsets recorded = ClockOffsets::none(analysis->data.hostLabels.size());
            const HostTimeIndex index = HostTimeIndex::forRequest(analysis->data, local ? recorded : analysis->offsets, row);
            // The host activity beside it, when the database holds some (read on this worker's own connection),
            // on the same clocks.
            HostActivitySet activitySet;
            bool withActivity = false;
            if (source)
                if (auto store = source(); store && hasHostActivity(*store.value())) {
                    const auto name = requestName(*store.value(), analysis->data.requestIds[row]);
                    if (auto loaded = loadHostActivity(*store.value(), hostActivityQuery(*analysis, row, local, name.value_or("")))) {
                        activitySet = std::move(loaded.value());
                        withActivity = true;
                    }
                }
            const HostActivityIndex activity(activitySet, local ? HostOffsets{} : hostOffsetsByLabel(analysis->data, analysis->offsets));
            return std::make_shared<const ContextStrip>(
                temporalContextStrip(*analysis, index, row, 40, 50, local, withActivity ? &activity : nullptr));
        },
        [this](std::shared_ptr<const ContextStrip> strip) {
            m_contextStrip->setStrip(std::move(strip), [this](RequestId other) { return requestLabel(other); });
        });
}

QStringList MainWindow::periodNames() const {
    QStringList periods;
    if (m_session->isOpen())
        if (auto info = m_session->store()->info())
            for (const auto& p : info->periods) periods << QString::fromStdString(p.name);
    return periods;
}

QString MainWindow::requestLabel(RequestId id) const {
    auto name = m_session->store() ? requestName(*m_session->store(), id) : std::nullopt;
    return name ? QString::fromStdString(*name) : QString::number(id.value);
}

void MainWindow::selectRequestByName(const QString& name) {
    if (!m_session->isOpen()) return;
    const auto id = requestByName(*m_session->store(), name.toStdString());
    if (!id) return;
    m_requestPanel->selectRequest(*id);
}

bool MainWindow::isLoading() const {
    return m_session->isBusy() || m_scopeTimer->isActive() || m_model->isLayoutPending() || m_aggregates->isComputing() || m_compare->isComputing() ||
           m_profileView->isComputing() || m_bottlenecks->isComputing() || m_bursts->isComputing();
}

void MainWindow::chooseAndOpen() {
    const QString path = widgets::chooseFileToOpen(this, tr("Open a database or a trace file"), QString(),
                                                      tr("Databases and traces (*.tldb *.db *.sqlite *.json *.jsonl *.csv *.txt *.pb *.binpb);;"
                                                         "Tracelight databases (*.tldb *.db *.sqlite);;All files (*)"));
    if (!path.isEmpty()) openPath(path);
}

void MainWindow::importFiles() {
    // The folder of the last import, remembered: traces usually come from one place.
    const QString folder = QSettings().value(QStringLiteral("import/folder")).toString();
    const QStringList files = widgets::chooseFilesToOpen(this, tr("Import traces"), folder,
                                                            tr("Traces (*.csv *.json *.jsonl *.txt *.pb *.binpb);;All files (*)"));
    if (!files.isEmpty()) importChosenFiles(files);
}

QString MainWindow::notATraceFile(const QString& file) const {
    auto format = detectInputFormat(file.toStdString());
    if (format) return {};
    // The core's reason, without its command-line advice.
    QString detail = QString::fromStdString(format.message());
    detail.remove(QStringLiteral("; name it with --format"));
    return tr("%1 is not a trace file Tracelight reads (OpenTelemetry, Jaeger or Zipkin JSON, a span table or an event log).\n\n%2")
        .arg(QDir::toNativeSeparators(file), detail);
}

bool MainWindow::importChosenFiles(const QStringList& files) {
    if (files.isEmpty()) return false;
    QSettings().setValue(QStringLiteral("import/folder"), QFileInfo(files.first()).absolutePath());
    for (const QString& file : files)
        if (const QString why = notATraceFile(file); !why.isEmpty()) {
            reportError(tr("Cannot import"), why);
            return false;
        }
    QString target = m_session->path();
    if (!target.isEmpty()) {
        const int choice = m_importQuestions.addOrNew ? m_importQuestions.addOrNew(m_session->path(), static_cast<int>(files.size()))
                                                      : askAddOrNew(m_session->path(), static_cast<int>(files.size()));
        if (choice < 0) return false;
        if (choice == 0) target.clear();
    }
    const QFileInfo first(files.first());
    if (target.isEmpty()) {
        const QString suggested = first.absolutePath() + QLatin1Char('/') + first.completeBaseName() + QStringLiteral(".tldb");
        target = m_importQuestions.newDatabase ? m_importQuestions.newDatabase(suggested)
                                               : widgets::chooseFileToSave(this, tr("New trace database"), suggested,
                                                                              tr("Tracelight databases (*.tldb)"));
        if (target.isEmpty()) return false;
    }
    std::optional<QString> period;
    if (m_importQuestions.period) period = m_importQuestions.period(first.completeBaseName());
    else {
        bool ok = false;
        const QString typed = QInputDialog::getText(this, tr("Import traces"),
                                                    tr("Name these requests' period (Compare sets one period against another):"),
                                                    QLineEdit::Normal, first.completeBaseName(), &ok);
        if (ok) period = typed;
    }
    if (!period) return false;
    startImport(files, target, period->trimmed().isEmpty() ? first.completeBaseName() : period->trimmed());
    return true;
}

int MainWindow::askAddOrNew(const QString& database, int files) {
    // Adding to the open database mixes these requests with its own (one service map, one set of periods): it is
    // the user's choice, asked each time.
    QMessageBox ask(QMessageBox::Question, tr("Import traces"),
                    tr("Add the requests of %n file(s) to the open database %1, or import them into a new database?", nullptr, files)
                        .arg(QFileInfo(database).fileName()),
                    QMessageBox::Cancel, this);
    QPushButton* add = ask.addButton(tr("&Add to %1").arg(QFileInfo(database).fileName()), QMessageBox::AcceptRole);
    QPushButton* fresh = ask.addButton(tr("&New Database…"), QMessageBox::AcceptRole);
    ask.setDefaultButton(fresh);
    ask.exec();
    return ask.clickedButton() == add ? 1 : ask.clickedButton() == fresh ? 0 : -1;
}

void MainWindow::startImport(const QStringList& files, const QString& target, const QString& period) {
    ImportOptions options;
    for (const QString& f : files) options.inputs.push_back(f.toStdString());
    options.period = period.toStdString();
    const std::string db = target.toStdString();
    job(Job::Import).start<ImportResult>(
        [options, db, create = Session::creator(target)](const CancelToken& cancel, const ProgressSink& progress) {
            NewDatabaseGuard created(db);  // a failed or cancelled import into a new path leaves no file behind
            auto result = [&] {
                auto store = create();
                if (!store) return std::make_shared<Result<ImportSummary>>(store.status());
                return std::make_shared<Result<ImportSummary>>(importTraces(*store.value(), options, &progress, &cancel));
            }();  // the store is closed here, before the guard may remove its files
            if (result->isOk()) created.keep();
            return result;
        },
        [this, target](ImportResult result) {
            if (!result->isOk()) {
                reportError(tr("Import failed"),
                            tr("%1\n\nNothing was added; the database is as it was.").arg(QString::fromStdString(result->message())));
                return;
            }
            const ImportSummary& s = result->value();
            QString text = tr("Imported %L1 requests, %L2 events into period \"%3\"").arg(s.requests).arg(s.events).arg(QString::fromStdString(s.period));
            if (s.warnings) text += tr(" · %L1 warnings (first: %2)").arg(s.warnings).arg(QString::fromStdString(s.warningSamples.front()));
            if (target != m_session->path()) openDatabase(target);
            else {
                loadTable();
                startAnalysis(false);
            }
            m_statusText->setText(text);
        });
}

bool MainWindow::startCapture(const QString& database, const ReceiverOptions& options) {
    if (database != m_session->path()) {
        if (!QFileInfo::exists(database)) {
            auto created = Session::creator(database)();
            if (!created) {
                reportError(tr("Cannot capture"), QString::fromStdString(created.message()));
                return false;
            }
        }
        if (!openDatabase(database)) return false;
    }
    if (Status started = m_session->startCapture(options); !started) {
        reportError(tr("Cannot capture"), QString::fromStdString(started.message()));
        return false;
    }
    m_capturedShown = -1;
    m_captureAction->setText(tr("Stop &Capture"));
    m_captureText->setVisible(true);
    m_captureTimer->start();
    followCapture();
    return true;
}

void MainWindow::stopCapture() {
    CaptureRun* run = m_session->capture();
    if (!run) return;
    run->stop();  // (the session's stop then only lets it go) after which the counts are final
    const auto counts = run->counts();
    const Status verdict = m_session->stopCapture();
    followCapture();  // the capture line goes; the views take in the traces the stop stored
    loadTable();
    startAnalysis(false);
    if (!verdict) reportError(tr("Capture stopped"), QString::fromStdString(verdict.message()));
    else
        m_statusText->setText(tr("Capture stopped: %L1 spans received (%L2 rejected), %L3 traces stored")
                                  .arg(counts.spans)
                                  .arg(counts.rejectedSpans)
                                  .arg(counts.traces));
}

void MainWindow::followCapture() {
    CaptureRun* run = m_session->capture();
    if (!run) {
        m_captureTimer->stop();
        m_captureText->setVisible(false);
        m_captureAction->setText(tr("&Capture Live Spans…"));
        return;
    }
    for (const std::string& line : run->takeLog()) m_statusText->setText(tr("Capture: %1").arg(QString::fromStdString(line)));
    const auto counts = run->counts();
    const QString grpc = QString::fromStdString(run->grpcEndpoint());
    m_captureText->setText(tr("Capturing on %1 · %L2 spans · %L3 requests")
                               .arg(QString::fromStdString(run->endpoint()) + (grpc.isEmpty() ? QString() : tr(", gRPC %1").arg(grpc)))
                               .arg(counts.spans)
                               .arg(counts.traces));
    m_captureText->setToolTip(tr("OTLP/HTTP at http://%1/v1/traces%2 into period \"%3\" (File › Stop Capture, Ctrl+Shift+L, stops)")
                                  .arg(QString::fromStdString(run->endpoint()), grpc.isEmpty() ? QString() : tr(", OTLP/gRPC at %1").arg(grpc),
                                       QString::fromStdString(run->period())));
    // New requests: the table and the analyses follow, unless they are still busy with the last ones.
    const std::int64_t stored = counts.traces + counts.storedAgain;
    if (stored != m_capturedShown && !job(Job::Requests).isRunning() && !job(Job::Analysis).isRunning()) {
        m_capturedShown = stored;
        loadTable();
        startAnalysis(false);
    }
}

void MainWindow::reportError(const QString& title, const QString& message) {
    m_failed = true;
    m_lastError = message;
    if (m_errorsToStderr) {
        std::fprintf(stderr, "tracelight: %s: %s\n", qPrintable(title), qPrintable(message.section(QLatin1Char('\n'), 0, 0)));
        return;
    }
    QMessageBox::critical(this, title, message);
}

void MainWindow::checkIdle() {
    if (!isLoading()) emit idle();
}

void MainWindow::updateStatus() {
    const RequestTable* table = m_requests->table();
    if (!table) {
        if (!job(Job::Requests).isRunning() && !m_session->isOpen()) m_statusText->setText(tr("Open a trace database (Ctrl+O) or drop one here."));
        return;
    }
    QString text = m_requests->isFiltered() ? (table->size() == 1 ? tr("%L1 of 1 request shown").arg(m_requests->rowCount())
                                                                  : tr("%L1 of %L2 requests shown").arg(m_requests->rowCount()).arg(table->size()))
                                            : widgets::requestCount(static_cast<qint64>(table->size()));
    if (m_fileContents) text += m_importAfterShown ? tr(" · read from the file") : tr(" · read from the file; importing…");
    else if (!table->skewCorrected) text += tr(" · latencies on local clocks (not yet analysed)");
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid()) {
        const int row = current.row();
        text += tr(" · %1: %2").arg(m_requests->index(row, widgets::RequestTableModel::Name).data().toString(),
                                    m_requests->index(row, widgets::RequestTableModel::Latency).data().toString());
    }
    m_statusText->setText(text);
}

void MainWindow::addRecentFile(const QString& path) {
    QSettings settings;
    QStringList files = settings.value("recentFiles").toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles) files.removeLast();
    settings.setValue("recentFiles", files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList files = QSettings().value("recentFiles").toStringList();
    for (int i = 0; i < files.size(); ++i) {
        QAction* action = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(files[i]));
        const QString path = files[i];
        connect(action, &QAction::triggered, this, [this, path] { openDatabase(path); });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("mainWindow/geometry", saveGeometry());
    settings.setValue("mainWindow/state", saveState());
    settings.setValue("mainWindow/splitter", m_splitter->saveState());
    settings.setValue("mainWindow/tab", m_tabs->currentIndex());
    settings.setValue("mainWindow/requestColumns", m_table->horizontalHeader()->saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) openPath(urls.first().toLocalFile());
}

bool MainWindow::setNamingFilter(const QString& regex) {
    if (!m_session->isOpen()) return false;
    const std::string text = regex.toStdString();
    if (Status s = TraceStore::checkNamingFilter(text); !s) {
        reportError(tr("Naming filter"), QString::fromStdString(s.message()));
        return false;
    }
    if (m_session->store()->namingFilter() == text) return true;
    if (!saveToDatabase(tr("Naming filter"), [&](TraceStore& store) { return store.setNamingFilter(text); })) return false;
    openDatabase(m_session->path());  // its analysis is stale now: analysed again, every view follows
    return true;
}

bool MainWindow::setDerivedAttributes(const QStringList& definitions) {
    if (!m_session->isOpen()) return false;
    std::vector<DerivedAttribute> derived;
    for (const QString& line : definitions) {
        if (line.trimmed().isEmpty()) continue;
        auto d = parseDerivedAttribute(line.toStdString());
        if (!d) {
            reportError(tr("Derived attributes"), QString::fromStdString(d.message()));
            return false;
        }
        derived.push_back(std::move(d.value()));
    }
    if (!saveToDatabase(tr("Derived attributes"), [&](TraceStore& store) { return saveDerivedAttributes(store, derived); })) return false;
    showScopedAggregates();  // Stratify by offers them; their values are read when chosen
    return true;
}

bool MainWindow::setResultTablesKept(bool keep) {
    if (!m_session->isOpen()) return false;
    if (!saveToDatabase(tr("SQL tables"), [&](TraceStore& store) { return keepResultTables(store, keep); })) return false;
    if (keep) startAnalysis(true);  // the analysis writes them
    return true;
}

bool MainWindow::saveToDatabase(const QString& what, const std::function<Status(TraceStore&)>& save) {
    const Status saved = m_session->write(save);
    if (!saved) QMessageBox::critical(this, what, QString::fromStdString(saved.message()));
    return static_cast<bool>(saved);
}

} // namespace tracelight::app
