#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>

#include "JobRunner.h"
#include "RequestTableModel.h"
#include "TimeFormat.h"
#include "tracelight/RequestTable.h"

namespace tracelight::app {

namespace {
constexpr int kMaxRecentFiles = 8;
using LoadResult = std::shared_ptr<Result<RequestTable>>;
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Tracelight"));
    setAcceptDrops(true);
    m_model = new widgets::RequestTableModel(this);
    m_jobs = new widgets::JobRunner(this);

    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);  // uniform rows: no per-row measuring
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSortIndicatorShown(true);
    m_table->setColumnWidth(widgets::RequestTableModel::Name, 110);
    m_table->setColumnWidth(widgets::RequestTableModel::Period, 90);
    m_table->setColumnWidth(widgets::RequestTableModel::Start, 190);
    m_table->setColumnWidth(widgets::RequestTableModel::Latency, 90);
    m_table->setColumnWidth(widgets::RequestTableModel::Hosts, 60);
    m_table->setColumnWidth(widgets::RequestTableModel::Events, 60);
    setCentralWidget(m_table);

    m_statusText = new QLabel(tr("Open a trace database (Ctrl+O) or drop one here."), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->setVisible(false);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    m_cancel->setShortcut(Qt::Key_Escape);
    statusBar()->addWidget(m_statusText, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, m_jobs, &widgets::JobRunner::cancel);
    connect(m_jobs, &widgets::JobRunner::started, this, [this] {
        m_progress->setValue(0);
        m_progress->setVisible(true);
        m_cancel->setVisible(true);
    });
    connect(m_jobs, &widgets::JobRunner::finished, this, [this] {
        m_progress->setVisible(false);
        m_cancel->setVisible(false);
        updateStatus();
    });
    connect(m_jobs, &widgets::JobRunner::progress, this, [this](double fraction, const QString& stage) {
        m_progress->setValue(static_cast<int>(fraction * 1000));
        m_statusText->setText(stage);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { updateStatus(); });

    createActions();
    QSettings settings;
    restoreGeometry(settings.value("mainWindow/geometry").toByteArray());
    restoreState(settings.value("mainWindow/state").toByteArray());
    if (!settings.contains("mainWindow/geometry")) resize(1200, 760);
    const QByteArray header = settings.value("mainWindow/requestHeader").toByteArray();
    if (header.isEmpty() || !m_table->horizontalHeader()->restoreState(header))
        m_table->horizontalHeader()->setSortIndicator(widgets::RequestTableModel::Start, Qt::AscendingOrder);
}

MainWindow::~MainWindow() { m_jobs->cancel(); }

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open trace database"), QString(),
                                                          tr("Tracelight databases (*.tldb *.db *.sqlite);;All files (*)"));
        if (!path.isEmpty()) openDatabase(path);
    });
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    QAction* reload = file->addAction(tr("&Reload"), this, [this] {
        if (!m_path.isEmpty()) openDatabase(m_path);
    });
    reload->setShortcut(QKeySequence::Refresh);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* go = menuBar()->addMenu(tr("&Go"));
    auto step = [this](int delta) {
        const int rows = m_model->rowCount();
        if (rows == 0) return;
        const int current = m_table->currentIndex().isValid() ? m_table->currentIndex().row() : -delta;
        const int row = std::clamp(current + delta, 0, rows - 1);
        m_table->selectRow(row);
        m_table->scrollTo(m_model->index(row, 0));
    };
    QAction* next = go->addAction(tr("&Next Request"), this, [step] { step(1); });
    next->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Down));
    QAction* previous = go->addAction(tr("&Previous Request"), this, [step] { step(-1); });
    previous->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Up));
    QAction* slowest = go->addAction(tr("&Slowest Request"), this, [this] {
        m_table->sortByColumn(widgets::RequestTableModel::Latency, Qt::DescendingOrder);
        if (m_model->rowCount() > 0) m_table->selectRow(0);
    });
    slowest->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_End));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Tracelight"), this, [this] {
        QMessageBox::about(this, tr("About Tracelight"),
                           tr("<b>Tracelight</b> %1<br>Which components decide the latency of distributed requests.")
                               .arg(QApplication::applicationVersion()));
    });
}

bool MainWindow::openDatabase(const QString& path) {
    auto store = TraceStore::open(path.toStdString(), TraceStore::Mode::ReadOnly);
    if (!store) {
        QMessageBox::critical(this, tr("Cannot open database"), QString::fromStdString(store.message()));
        return false;
    }
    m_store = std::move(store.value());
    m_path = path;
    setWindowTitle(tr("%1 — Tracelight").arg(QFileInfo(path).fileName()));
    addRecentFile(path);
    m_model->setTable(nullptr, {});
    const std::string file = path.toStdString();
    m_jobs->start<LoadResult>(
        [file](const CancelToken& cancel, const ProgressSink& progress) {
            progress(0.0, "loading requests");
            // Each worker opens its own connection.
            auto store = TraceStore::open(file, TraceStore::Mode::ReadOnly);
            if (!store) return std::make_shared<Result<RequestTable>>(store.status());
            return std::make_shared<Result<RequestTable>>(loadRequestTable(*store.value(), &cancel));
        },
        [this](LoadResult result) {
            if (!result->isOk()) {
                QMessageBox::critical(this, tr("Cannot load requests"), QString::fromStdString(result->message()));
                return;
            }
            auto table = std::make_shared<const RequestTable>(std::move(result->value()));
            TraceStore* store = m_store.get();
            m_model->setTable(table, [store](RequestId id) {
                QStringList parts;
                for (const auto& [key, value] : store->requestAttributes(id))
                    parts << QString::fromStdString(key) + "=" + QString::fromStdString(value);
                return parts.join(QStringLiteral("  "));
            });
            const auto sortColumn = m_table->horizontalHeader()->sortIndicatorSection();
            if (sortColumn >= 0 && sortColumn < widgets::RequestTableModel::Attributes)
                m_model->sort(sortColumn, m_table->horizontalHeader()->sortIndicatorOrder());
            if (m_model->rowCount() > 0) m_table->selectRow(0);
            updateStatus();
            emit loaded();
        });
    return true;
}

bool MainWindow::isLoading() const { return m_jobs->isRunning(); }

void MainWindow::updateStatus() {
    const RequestTable* table = m_model->table();
    if (!table) {
        if (!m_jobs->isRunning() && m_path.isEmpty())
            m_statusText->setText(tr("Open a trace database (Ctrl+O) or drop one here."));
        return;
    }
    QString text = tr("%L1 requests").arg(table->size());
    if (!table->skewCorrected) text += tr(" · latencies on local clocks (not yet skew-corrected)");
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid()) {
        const int row = current.row();
        text += tr(" · %1: %2").arg(m_model->index(row, widgets::RequestTableModel::Name).data().toString(),
                                    m_model->index(row, widgets::RequestTableModel::Latency).data().toString());
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
    settings.setValue("mainWindow/requestHeader", m_table->horizontalHeader()->saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) openDatabase(urls.first().toLocalFile());
}

} // namespace tracelight::app
