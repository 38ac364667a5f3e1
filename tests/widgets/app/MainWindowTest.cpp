// The main window over real databases: opening one after another must leave no view holding the
// previous database (issue 10: the aggregates view kept a pointer to a store that openDatabase freed).
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QFileInfo>
#include <limits>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <unistd.h>
#include <fstream>
#include <set>

#include "HelpDialogs.h"
#include "MainWindow.h"
#include "WelcomePage.h"
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QTimer>
#include <QInputDialog>
#include <QMessageBox>
#include <QFile>
#include <functional>
#include <functional>
#include "StoreAccess.h"
#include "BottleneckRulesEditor.h"
#include "ClockAdjustmentsDialog.h"
#include "models/ClockAdjustmentsModel.h"
#include "PeriodManager.h"
#include "Session.h"
#include <QPushButton>
#include <QTableWidget>
#include "aggregates/AggregatesView.h"
#include "graph/GraphView.h"
#include <sqlite3.h>
#include "bottleneck/BottlenecksView.h"
#include "profile/ProfileView.h"
#include "models/RequestTableModel.h"
#include "models/RequestTablePanel.h"
#include "waterfall/SpanTreePane.h"
#include "waterfall/TemporalContextStrip.h"
#include "waterfall/WaterfallView.h"
#include <QLabel>
#include <QLineEdit>
#include <QHeaderView>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QToolButton>
#include "plots/BreakdownPlot.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/Periods.h"

using namespace tracelight;
using tracelight::app::BottleneckRulesEditor;

namespace {

// A small analysed database: client -> server -> client requests with a "browser" and a "user" attribute
// (and, with extra, a third attribute only this database has); the server's clock serverAheadUs ahead.
std::string makeDatabase(const QTemporaryDir& dir, const std::string& name, int requests, bool extra, long serverAheadUs = 0) {
    const std::string csv = dir.filePath(QString::fromStdString(name + ".csv")).toStdString();
    const std::string db = dir.filePath(QString::fromStdString(name + ".tldb")).toStdString();
    {
        std::ofstream out(csv);
        out << "request,host,task,event,ts_us,seq,browser,user" << (extra ? ",region" : "") << "\n";
        for (int r = 0; r < requests; ++r) {
            const long t = 1000L * r;
            const int server = 100 + (r * 37) % 900;
            const std::string attrs = std::string(r % 2 ? "Chrome" : "Firefox") + ",u" + std::to_string(r % 7) +
                                      (extra ? std::string(",") + (r % 3 ? "eu" : "us") : "");
            out << "r" << r << ",client,main,START," << t << ",1," << attrs << "\n";
            out << "r" << r << ",server,main,RECV," << t + 50 + serverAheadUs << ",2," << std::string(extra ? ",," : ",") << "\n";
            out << "r" << r << ",server,main,SEND," << t + 50 + server + serverAheadUs << ",3," << std::string(extra ? ",," : ",") << "\n";
            out << "r" << r << ",client,main,DONE," << t + 100 + server << ",4," << std::string(extra ? ",," : ",") << "\n";
        }
    }
    auto store = TraceStore::open(db, TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    ImportOptions options;
    options.inputs = {csv};
    options.format = InputFormat::EventsCsv;
    auto imported = importTraces(*store.value(), options);
    EXPECT_TRUE(imported) << imported.message();
    auto analysed = analyzeStore(*store.value(), AnalysisOptions{});
    EXPECT_TRUE(analysed) << analysed.message();
    return db;
}

bool waitIdle(app::MainWindow& window) {
    return QTest::qWaitFor([&] { return !window.isLoading(); }, 300000);
}

// The window shown at 1200 x 800 with db open and its loading done.
bool showWithDatabase(app::MainWindow& window, const std::string& db) {
    window.resize(1200, 800);
    window.show();
    return QTest::qWaitForWindowExposed(&window) && window.openDatabase(QString::fromStdString(db)) && waitIdle(window);
}

} // namespace

TEST(MainWindow, AggregatesViewLetsGoOfADatabaseThatWasReplaced) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string first = makeDatabase(dir, "first", 300, true);
    const std::string second = makeDatabase(dir, "second", 200, false);

    app::MainWindow window;
    window.resize(1200, 800);
    window.showAggregatePage(0);
    auto* view = window.findChild<widgets::AggregatesView*>();
    ASSERT_TRUE(view);
    QComboBox* stratify = view->stratifyBy();

    ASSERT_TRUE(window.openDatabase(QString::fromStdString(first)));
    ASSERT_TRUE(waitIdle(window));
    ASSERT_EQ(stratify->count(), 4);  // (all requests), browser, region, user
    ASSERT_EQ(stratify->itemText(2), QStringLiteral("region"));

    // Another database: its store replaces the first one at once, while its aggregates load in the
    // background. Until they arrive the view must show nothing of the first database, and asking
    // it for an attribute must not reach the first database's freed store (ASan: heap-use-after-free).
    ASSERT_TRUE(window.openDatabase(QString::fromStdString(second)));
    EXPECT_EQ(stratify->count(), 1);
    EXPECT_EQ(view->breakdownPlot()->csv().count(QLatin1Char('\n')), 1);  // the header only
    for (int i = 1; i < stratify->count(); ++i) stratify->setCurrentIndex(i);  // each attribute read from the store
    stratify->setCurrentIndex(0);

    ASSERT_TRUE(waitIdle(window));
    ASSERT_EQ(stratify->count(), 3);  // (all requests), browser, user: the second database's
    for (int i = 1; i < stratify->count(); ++i) stratify->setCurrentIndex(i);
    EXPECT_GT(view->breakdownPlot()->csv().count(QLatin1Char('\n')), 1);

    // And back to the first, exercised again at once and once loaded.
    ASSERT_TRUE(window.openDatabase(QString::fromStdString(first)));
    for (int i = 1; i < stratify->count(); ++i) stratify->setCurrentIndex(i);
    ASSERT_TRUE(waitIdle(window));
    EXPECT_EQ(stratify->count(), 4);
    for (int i = 1; i < stratify->count(); ++i) stratify->setCurrentIndex(i);
}

// Issue 11: Ctrl+Down/Up (Go > Next/Previous Request) left several rows highlighted that were not the request
// shown; the filter box is reached with Ctrl+F and remembers its text.
TEST(MainWindow, RequestTableFilterAndNavigationKeepOneSelectionThatIsShown) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string db = makeDatabase(dir, "nav", 120, false);
    QSettings().remove("requestTable/filters");
    {
        app::MainWindow window;
        ASSERT_TRUE(showWithDatabase(window, db));
        auto* panel = window.findChild<widgets::RequestTablePanel*>();
        ASSERT_TRUE(panel);
        auto* model = qobject_cast<widgets::RequestTableModel*>(panel->view()->model());
        ASSERT_TRUE(model);
        auto* waterfall = window.findChild<widgets::WaterfallView*>(QStringLiteral("waterfall"));
        ASSERT_TRUE(waterfall);
        ASSERT_EQ(model->rowCount(), 120);

        window.activateWindow();
        panel->view()->setFocus();
        QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
        EXPECT_TRUE(panel->filterEdit()->hasFocus());
        QTest::keyClicks(panel->filterEdit(), QStringLiteral("browser=Firefox"));
        EXPECT_EQ(model->rowCount(), 60);

        panel->view()->setFocus();
        for (int step = 0; step < 6; ++step) {
            QTest::keyClick(panel->view(), step % 3 == 2 ? Qt::Key_Up : Qt::Key_Down, step < 4 ? Qt::ControlModifier : Qt::NoModifier);
            ASSERT_TRUE(waitIdle(window));
            const QModelIndexList rows = panel->view()->selectionModel()->selectedRows();
            ASSERT_EQ(rows.size(), 1) << "step " << step;
            const RequestId selected = model->requestAt(rows.front().row());
            ASSERT_TRUE(waterfall->request()) << "step " << step;
            EXPECT_EQ(waterfall->request()->id, selected) << "step " << step;
        }
        window.close();  // saves the settings
    }
    // The filter is the database's: it greets that database again, not another one (whose periods and
    // attributes may differ).
    app::MainWindow again;
    ASSERT_TRUE(showWithDatabase(again, db));
    EXPECT_EQ(again.findChild<widgets::RequestTablePanel*>()->filterText(), QStringLiteral("browser=Firefox"));
    const std::string other = makeDatabase(dir, "other", 10, false);
    ASSERT_TRUE(again.openDatabase(QString::fromStdString(other)));
    ASSERT_TRUE(waitIdle(again));
    EXPECT_EQ(again.findChild<widgets::RequestTablePanel*>()->filterText(), QString());
    ASSERT_TRUE(again.openDatabase(QString::fromStdString(db)));
    ASSERT_TRUE(waitIdle(again));
    EXPECT_EQ(again.findChild<widgets::RequestTablePanel*>()->filterText(), QStringLiteral("browser=Firefox"));
    QSettings().remove("requestTable/filters");
    QSettings().remove("requestTable/filterOrder");
}

// A root with a million children has 4,000,002 events: the count fits its column (a fixed 60 pixels cut it
// to "40000...").
TEST(MainWindow, ARequestsEventCountFitsItsColumn) {
    app::MainWindow window;
    auto* panel = window.findChild<widgets::RequestTablePanel*>();
    ASSERT_TRUE(panel);
    const int text = panel->view()->fontMetrics().horizontalAdvance(QStringLiteral("40000002"));
    EXPECT_GE(panel->view()->columnWidth(widgets::RequestTableModel::Events), text + 8);
    // A width remembered from an older version (the header's saved state) is widened to fit, too.
    panel->view()->setColumnWidth(widgets::RequestTableModel::Events, 60);
    QSettings().setValue("mainWindow/requestColumns", panel->view()->horizontalHeader()->saveState());
    app::MainWindow again;
    auto* restored = again.findChild<widgets::RequestTablePanel*>();
    ASSERT_TRUE(restored);
    EXPECT_GE(restored->view()->columnWidth(widgets::RequestTableModel::Events), text + 8);
    QSettings().remove("mainWindow/requestColumns");
}

// A span request opens in the lanes first; its graph's edges and its span tree follow on workers of their
// own when first wanted: the edges at a segment's selection, the tree when it is the mode. Each must then
// be the shown request's, and survive a click elsewhere.
TEST(MainWindow, EdgesAndSpanTreeFollowTheLanesOfTheRequestShown) {
    const std::string genai = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/jaeger/TraceTimelineViewer__genaiTestTrace.json";
    const std::string flame = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/jaeger/TraceFlamegraph__testTrace.json";
    if (!std::ifstream(genai) || !std::ifstream(flame)) GTEST_SKIP() << "no shared/realdata/jaeger beside this checkout";
    struct ForgetMode {
        ~ForgetMode() { QSettings().remove(QStringLiteral("waterfall/mode")); }  // even when an assertion ends the test
    } forgetMode;
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string db = dir.filePath(QStringLiteral("spans.tldb")).toStdString();
    {
        auto store = TraceStore::open(db, TraceStore::Mode::Create);
        ASSERT_TRUE(store) << store.message();
        ImportOptions options;
        options.inputs = {genai, flame};
        ASSERT_TRUE(importTraces(*store.value(), options));
        ASSERT_TRUE(analyzeStore(*store.value(), AnalysisOptions{}));
    }
    app::MainWindow window;
    window.resize(1200, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    ASSERT_TRUE(window.openDatabase(QString::fromStdString(db)));
    auto* panel = window.findChild<widgets::RequestTablePanel*>();
    auto* waterfall = window.findChild<widgets::WaterfallView*>(QStringLiteral("waterfall"));
    auto* spans = window.findChild<widgets::SpanTreePane*>();
    ASSERT_TRUE(panel && waterfall && spans);
    auto* model = qobject_cast<widgets::RequestTableModel*>(panel->view()->model());
    ASSERT_TRUE(model);
    ASSERT_TRUE(waitIdle(window));
    ASSERT_EQ(model->rowCount(), 2);
    auto reader = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(reader) << reader.message();
    ASSERT_NE(requestSpans(*reader.value(), model->requestAt(0)).size(), requestSpans(*reader.value(), model->requestAt(1)).size());
    // In the host lanes the spans are not read; the span tree reads them when asked for, and then for each
    // request shown while it is the mode.
    window.setWaterfallMode(QStringLiteral("lanes"));
    panel->view()->selectRow(1);
    ASSERT_TRUE(waitIdle(window));
    EXPECT_TRUE(spans->spansOnDemand());
    EXPECT_FALSE(spans->spanTree()->spans()) << "a million spans are not read for the lanes";
    window.setWaterfallMode(QStringLiteral("spans"));
    ASSERT_TRUE(waitIdle(window));
    ASSERT_TRUE(spans->spansAvailable());
    EXPECT_EQ(spans->spanTree()->spans()->spans.size(), requestSpans(*reader.value(), model->requestAt(1)).size());
    for (int row : {0, 1, 0}) {
        panel->view()->selectRow(row);
        ASSERT_TRUE(waitIdle(window));
        ASSERT_TRUE(waterfall->request());
        EXPECT_EQ(waterfall->request()->id, model->requestAt(row)) << "row " << row;
        EXPECT_TRUE(waterfall->request()->dependenciesFollow) << "an analysed request's edges follow its lanes";
        EXPECT_FALSE(waterfall->dependenciesKnown()) << "found when a segment is selected, row " << row;
        // A click on a segment (one drawn wide enough to hit) finds them.
        int clicked = -1;
        for (int s = 0; s < static_cast<int>(waterfall->request()->dag.segments.size()) && clicked < 0; ++s) {
            const QRectF r = waterfall->segmentRect(s);
            if (r.width() >= 4 && waterfall->rect().contains(r.center().toPoint())) clicked = s;
        }
        ASSERT_GE(clicked, 0) << "row " << row;
        QTest::mouseClick(waterfall, Qt::LeftButton, {}, waterfall->segmentRect(clicked).center().toPoint());
        ASSERT_TRUE(waitIdle(window));
        EXPECT_EQ(waterfall->selectedSegment(), clicked) << "row " << row;
        EXPECT_TRUE(waterfall->dependenciesKnown()) << "row " << row;
        EXPECT_FALSE(waterfall->dependencies().empty()) << "row " << row;
        EXPECT_FALSE(spans->spansPending()) << "row " << row;
        ASSERT_TRUE(spans->spansAvailable()) << "row " << row;
        EXPECT_EQ(spans->spanTree()->spans()->spans.size(), requestSpans(*reader.value(), model->requestAt(row)).size())
            << "the tree is the shown request's, row " << row;
    }
    // A click on a segment of the request shown while the next one loads finds the shown one's edges; they
    // do not follow onto the next request, which shows with none selected and its own edges still to find.
    panel->view()->selectRow(1);
    ASSERT_TRUE(waitIdle(window));
    panel->view()->selectRow(0);  // its lanes load on a worker: request 1's stay until they come
    ASSERT_TRUE(waterfall->request());
    ASSERT_EQ(waterfall->request()->id, model->requestAt(1));
    int onOld = -1;
    for (int s = 0; s < static_cast<int>(waterfall->request()->dag.segments.size()) && onOld < 0; ++s) {
        const QRectF r = waterfall->segmentRect(s);
        if (r.width() >= 4 && waterfall->rect().contains(r.center().toPoint())) onOld = s;
    }
    ASSERT_GE(onOld, 0);
    const RequestDetail* old = waterfall->request();
    QTest::mouseClick(waterfall, Qt::LeftButton, {}, waterfall->segmentRect(onOld).center().toPoint());
    EXPECT_EQ(waterfall->selectedSegment(), onOld);
    // Its edges come, unless the next request's lanes come first (then they are dropped, as the view's own
    // test holds); while it is shown they are its own.
    ASSERT_TRUE(QTest::qWaitFor([&] { return waterfall->request() != old || waterfall->dependenciesKnown(); }, 300000));
    if (waterfall->request() == old) {
        EXPECT_FALSE(waterfall->dependencies().empty());
    }
    ASSERT_TRUE(waitIdle(window));
    ASSERT_TRUE(waterfall->request());
    EXPECT_EQ(waterfall->request()->id, model->requestAt(0));
    EXPECT_EQ(waterfall->selectedSegment(), -1);
    EXPECT_FALSE(waterfall->dependenciesKnown()) << "request 1's edges must not be taken for request 0's";

    // A span request whose spans cannot be read (another process removed them here; a damaged file alike)
    // is not an event log: the lanes show and the tree's note says the spans could not be read.
    {
        auto writer = TraceStore::open(db, TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(writer) << writer.message();
        // Its events stored apart from its spans, as before schema 13 (else they go with the spans).
        test::StoreAccess::storeEventModel(*writer.value());
        test::StoreAccess::rows(*writer.value(), "DELETE FROM spans WHERE request_id=" + std::to_string(model->requestAt(1).value));
    }
    panel->view()->selectRow(1);
    ASSERT_TRUE(waitIdle(window));
    EXPECT_FALSE(spans->spansAvailable());
    EXPECT_EQ(spans->shownMode(), widgets::SpanTreePane::Mode::HostLanes);
    const QString why = spans->unavailableReason();
    EXPECT_TRUE(why.contains(QStringLiteral("could not be read"))) << why.toStdString();
    EXPECT_FALSE(why.contains(QStringLiteral("event log"))) << why.toStdString();
    EXPECT_EQ(spans->toggleButton()->toolTip(), why);
}

// View › Local Clocks moves the temporal-context strip too: its window runs from the request's first to its
// last recorded timestamp (the server's clock 5 s ahead, so its SEND is last), and back on the corrected
// clock, where the request lasts about a millisecond.
TEST(MainWindow, LocalClocksMoveTheTemporalContextStrip) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    constexpr long kAheadUs = 5'000'000;
    const std::string db = makeDatabase(dir, "skew", 60, false, kAheadUs);
    QSettings().setValue("waterfall/contextStrip", true);
    app::MainWindow window;
    ASSERT_TRUE(showWithDatabase(window, db));
    auto* panel = window.findChild<widgets::RequestTablePanel*>();
    auto* strip = window.findChild<widgets::TemporalContextStrip*>(QStringLiteral("contextStrip"));
    auto* localClocks = window.findChild<QAction*>(QStringLiteral("localClocks"));
    ASSERT_TRUE(panel && strip && localClocks);
    auto* model = qobject_cast<widgets::RequestTableModel*>(panel->view()->model());
    ASSERT_TRUE(model);
    panel->view()->selectRow(10);
    ASSERT_TRUE(waitIdle(window));
    const RequestId id = model->requestAt(10);
    auto reader = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(reader) << reader.message();
    const auto name = requestName(*reader.value(), id);
    ASSERT_TRUE(name && name->size() > 1);
    const long r = std::stol(name->substr(1)), t = 1000L * r, server = 100 + (r * 37) % 900;  // as makeDatabase wrote it
    const TimeNs us = 1000;
    for (bool local : {false, true, false}) {
        if (local != localClocks->isChecked()) localClocks->trigger();
        ASSERT_TRUE(waitIdle(window));
        ASSERT_TRUE(strip->strip()) << "local " << local;
        EXPECT_EQ(strip->strip()->request, id);
        EXPECT_EQ(strip->strip()->localClocks, local);
        if (local) {
            EXPECT_EQ(strip->strip()->startNs, t * us);
            EXPECT_EQ(strip->strip()->endNs, (t + 50 + server + kAheadUs) * us);
            // On the server's own clock its window [t + 5 s + 50 us, t + 5 s + 50 us + server] is passed by every
            // earlier request's server events and by no later one's (each starts 1 ms after the one before, and
            // spends under 1 ms there): what an index on the recorded clocks finds.
            std::set<std::string> seen, earlier;
            for (const auto& host : strip->strip()->hosts)
                if (host.host == "server")
                    for (const auto& slice : host.listed)
                        for (RequestId other : slice) seen.insert(requestName(*reader.value(), other).value_or("?"));
            for (long q = 0; q < r; ++q) earlier.insert("r" + std::to_string(q));
            EXPECT_EQ(seen, earlier);
        } else {
            EXPECT_LT(strip->strip()->endNs - strip->strip()->startNs, kAheadUs / 2 * us) << "the skew is corrected";
        }
    }
}

// Help › Quick Start and Help › Keyboard Shortcuts: the tour is in the build (a resource of the app's
// library), every menu shortcut is listed with its action, and every key the tour names is one the window
// answers to.
TEST(MainWindow, HelpMenuOffersTheQuickStartAndEveryShortcut) {
    app::MainWindow window;
    QMenu* help = nullptr;
    for (QAction* action : window.menuBar()->actions())
        if (action->menu() && action->text().remove(QLatin1Char('&')) == QLatin1String("Help")) help = action->menu();
    ASSERT_NE(help, nullptr);
    QStringList helpItems;
    for (QAction* action : help->actions()) helpItems << action->text().remove(QLatin1Char('&'));
    EXPECT_TRUE(helpItems.contains(QStringLiteral("Quick Start"))) << helpItems.join(QLatin1Char(',')).toStdString();
    EXPECT_TRUE(helpItems.contains(QStringLiteral("Keyboard Shortcuts")));

    const QString shortcuts = app::shortcutsHtml(*window.menuBar());
    int listed = 0;
    std::function<void(const QMenu&)> check = [&](const QMenu& menu) {
        for (QAction* action : menu.actions()) {
            if (action->menu()) {
                check(*action->menu());
                continue;
            }
            if (action->shortcut().isEmpty()) continue;
            ++listed;
            const QString key = action->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped();
            QString name = action->text().remove(QLatin1Char('&'));
            if (name.endsWith(QChar(0x2026))) name.chop(1);
            EXPECT_TRUE(shortcuts.contains(QStringLiteral("<b>%1</b></td><td>").arg(key)) && shortcuts.contains(name.toHtmlEscaped()))
                << key.toStdString() << " " << name.toStdString();
        }
    };
    for (QAction* action : window.menuBar()->actions())
        if (action->menu()) check(*action->menu());
    EXPECT_GE(listed, 25);  // Open, Import, Reload, Export, Quit, the seven tabs, zoom, clocks, span tree, …

    const QString tour = app::quickStartHtml();
    for (const char* step : {"1. Open", "2. The slowest request", "3. Waterfall and critical path", "4. Compare two periods", "5. Profile"})
        EXPECT_TRUE(tour.contains(QLatin1String(step))) << step;
    const QRegularExpression keyName(QStringLiteral("Ctrl\\+(Shift\\+)?(Return|End|Up|Down|[A-Z0-9])\\b"));
    int named = 0;
    for (auto it = keyName.globalMatch(tour); it.hasNext(); ++named) {
        const QString key = it.next().captured(0);
        EXPECT_TRUE(shortcuts.contains(key)) << key.toStdString() << " is in the tour but not in Keyboard Shortcuts";
    }
    EXPECT_GE(named, 10);

    // The menu item opens a dialog that shows the same list.
    QString shown;
    QTimer::singleShot(0, [&] {
        if (QWidget* dialog = QApplication::activeModalWidget()) {
            if (auto* browser = dialog->findChild<QTextBrowser*>()) shown = browser->toPlainText();
            dialog->close();
        }
    });
    for (QAction* action : help->actions())
        if (action->text().remove(QLatin1Char('&')) == QLatin1String("Keyboard Shortcuts")) action->trigger();
    EXPECT_TRUE(shown.contains(QStringLiteral("Ctrl+Shift+A"))) << shown.toStdString();
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    // Recent files and window state go to a settings file of the test's own, not the user's.
    QTemporaryDir config;
    qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TracelightTest"));
    QApplication::setApplicationName(QStringLiteral("MainWindowTest"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// Analysis › Periods…: define a period by attribute and by time range, refuse what cannot be, rename and
// delete; each change is in the database (the table of periods re-read from it).
TEST(PeriodManager, DefinesRenamesAndDeletesPeriods) {
    QTemporaryDir dir;
    const std::string db = makeDatabase(dir, "periods", 40, false);
    app::Session session;
    ASSERT_TRUE(session.open(QString::fromStdString(db)));
    PeriodManager manager(session);
    ASSERT_EQ(manager.table()->rowCount(), 1);  // the import batch
    EXPECT_FALSE(manager.changed());

    EXPECT_FALSE(manager.addWhere(QString(), QStringLiteral("browser=Chrome")));
    EXPECT_TRUE(manager.lastMessage().contains("give it a name")) << manager.lastMessage().toStdString();
    EXPECT_FALSE(manager.addWhere(QStringLiteral("bad"), QStringLiteral("browser")));
    EXPECT_TRUE(manager.lastMessage().contains("predicate")) << manager.lastMessage().toStdString();

    ASSERT_TRUE(manager.addWhere(QStringLiteral("chrome"), QStringLiteral("browser=Chrome"))) << manager.lastMessage().toStdString();
    EXPECT_TRUE(manager.lastMessage().contains("20 requests")) << manager.lastMessage().toStdString();
    // Requests start every millisecond from the epoch (ts_us 1000 * r): the first ten.
    const QDateTime epoch = QDateTime::fromMSecsSinceEpoch(0, Qt::UTC);
    ASSERT_TRUE(manager.addByTime(QStringLiteral("first ten"), epoch, epoch.addMSecs(10))) << manager.lastMessage().toStdString();
    EXPECT_TRUE(manager.lastMessage().contains("10 requests")) << manager.lastMessage().toStdString();
    EXPECT_FALSE(manager.addWhere(QStringLiteral("chrome"), QStringLiteral("browser=Firefox")));  // the name is taken
    ASSERT_EQ(manager.table()->rowCount(), 3);
    EXPECT_TRUE(manager.changed());
    if (const QByteArray png = qgetenv("PERIODS_PNG"); !png.isEmpty()) { ASSERT_TRUE(manager.grab().save(QString::fromLocal8Bit(png))); }

    ASSERT_TRUE(manager.rename(QStringLiteral("chrome"), QStringLiteral("chromium"))) << manager.lastMessage().toStdString();
    ASSERT_TRUE(manager.remove(QStringLiteral("first ten"))) << manager.lastMessage().toStdString();
    auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store);
    std::vector<std::string> names;
    for (const auto& p : listPeriods(*store.value())) names.push_back(p.name);
    EXPECT_EQ(names, (std::vector<std::string>{"periods", "chromium"}));
    EXPECT_EQ(requestsInPeriod(*store.value(), "chromium").size(), 20u);
}

// Analysis › Bottleneck types…: the rows become the rules in order; a bad pattern is reported in the dialog
// (which stays open) instead of being saved; rows move up and down.
TEST(BottleneckRulesEditor, EditsRulesAndRefusesBadPatterns) {
    auto start = BottleneckRules::fromJson(R"([{"type": "Ads calls", "service": "^ads", "kind": "client"}, {"type": "Cache", "task": "^fetch-"}])");
    ASSERT_TRUE(start);
    BottleneckRulesEditor editor(start.value());
    QTableWidget* table = editor.table();
    ASSERT_EQ(table->rowCount(), 2);
    EXPECT_EQ(table->item(0, BottleneckRulesEditor::TypeColumn)->text(), "Ads calls");
    table->item(1, BottleneckRulesEditor::TaskColumn)->setText(QStringLiteral("(("));
    editor.accept();
    EXPECT_NE(editor.result(), QDialog::Accepted);
    EXPECT_TRUE(editor.lastError().contains("rule 2: bad task pattern")) << editor.lastError().toStdString();
    table->item(1, BottleneckRulesEditor::TaskColumn)->setText(QStringLiteral("^fetch-"));
    table->item(1, BottleneckRulesEditor::HowToFixColumn)->setText(QStringLiteral("fetch in parallel"));
    table->setCurrentCell(1, BottleneckRulesEditor::TypeColumn);
    QPushButton* up = nullptr;
    for (QPushButton* b : editor.findChildren<QPushButton*>())
        if (b->text() == QObject::tr("Move &up")) up = b;
    ASSERT_NE(up, nullptr);
    up->click();
    editor.accept();
    EXPECT_EQ(editor.result(), QDialog::Accepted);
    EXPECT_TRUE(editor.lastError().isEmpty());
    ASSERT_EQ(editor.rules().rules().size(), 2u);
    EXPECT_EQ(editor.rules().rules()[0].type, "Cache");
    EXPECT_EQ(editor.rules().rules()[0].howToFix, "fetch in parallel");
    EXPECT_EQ(editor.rules().rules()[1].type, "Ads calls");
    EXPECT_EQ(editor.rules().rules()[1].kind, "client");
    EXPECT_EQ(editor.rules().rules()[1].service, "^ads");
    if (const QByteArray png = qgetenv("RULES_PNG"); !png.isEmpty()) { ASSERT_TRUE(editor.grab().save(QString::fromLocal8Bit(png))); }
}

// Analysis › Clock Adjustments: the last analysis's decision per host pair, read off the GUI thread, with
// the rule and whether it moved a clock; filtered by host, case-insensitively. Before any analysis it says so.
TEST(ClockAdjustmentsDialog, ListsEachHostPairsDecisionAndFiltersByHost) {
    QTemporaryDir dir;
    const std::string db = qEnvironmentVariableIsSet("CLOCKS_DB") ? qEnvironmentVariable("CLOCKS_DB").toStdString()
                                                                   : makeDatabase(dir, "clocks", 40, false);
    app::Session session;
    ASSERT_TRUE(session.open(QString::fromStdString(db)));
    ClockAdjustmentsDialog dialog(session);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !dialog.isLoading(); }, 10000));
    auto* model = dialog.model();
    if (qEnvironmentVariableIsSet("CLOCKS_DB")) {
        dialog.show();
        QTest::qWait(50);
        if (const QByteArray png = qgetenv("CLOCKS_PNG"); !png.isEmpty()) { ASSERT_TRUE(dialog.grab().save(QString::fromLocal8Bit(png))); }
        return;
    }
    ASSERT_EQ(model->rowCount(), 1);
    auto cell = [&](int column) { return model->index(0, column).data().toString(); };
    EXPECT_EQ(cell(widgets::ClockAdjustmentsModel::Client), "client");
    EXPECT_EQ(cell(widgets::ClockAdjustmentsModel::Server), "server");
    EXPECT_EQ(cell(widgets::ClockAdjustmentsModel::Rule), "min-rtt");
    EXPECT_EQ(cell(widgets::ClockAdjustmentsModel::Applied), "applied");
    EXPECT_EQ(model->index(0, widgets::ClockAdjustmentsModel::RoundTrips).data(widgets::ClockAdjustmentsModel::SortRole).toLongLong(), 40);
    EXPECT_TRUE(dialog.summary()->text().startsWith("1 host pair with round trips: 1 moved")) << dialog.summary()->text().toStdString();
    dialog.filter()->setText("SERV");
    EXPECT_EQ(model->rowCount(), 1);
    dialog.filter()->setText("nobody");
    EXPECT_EQ(model->rowCount(), 0);
    dialog.filter()->clear();
    EXPECT_EQ(model->rowCount(), 1);

    const std::string fresh = dir.filePath("fresh.tldb").toStdString();
    { ASSERT_TRUE(TraceStore::open(fresh, TraceStore::Mode::Create)); }
    app::Session freshSession;
    ASSERT_TRUE(freshSession.open(QString::fromStdString(fresh)));
    ClockAdjustmentsDialog none(freshSession);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !none.isLoading(); }, 10000));
    EXPECT_EQ(none.model()->rowCount(), 0);
    EXPECT_TRUE(none.summary()->text().contains("analyse the database")) << none.summary()->text().toStdString();
}

// Sorting moves rows through an index: a persistent index (the selection, the current row) follows its
// host pair; the filter keeps the sort; QAbstractItemModelTester watches every change.
TEST(ClockAdjustmentsModel, SortsAndFiltersAndTheSelectionFollowsItsPair) {
    widgets::ClockAdjustmentsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setAdjustments({{"web-1", "db", -3000, 100, 5, 0, "min-rtt", true},
                          {"web-2", "db", 7000, 90, 50, 0, "min-rtt", true},
                          {"web-3", "cache", 0, 80, 2, 0, "fits", false}});
    ASSERT_EQ(model.rowCount(), 3);
    auto client = [&](int row) { return model.index(row, widgets::ClockAdjustmentsModel::Client).data().toString(); };
    EXPECT_EQ(client(0), "web-2") << "most round trips first";
    const QPersistentModelIndex web1 = model.index(1, widgets::ClockAdjustmentsModel::Offset);
    ASSERT_EQ(client(web1.row()), "web-1");
    model.sort(widgets::ClockAdjustmentsModel::Offset, Qt::AscendingOrder);
    EXPECT_EQ(client(0), "web-1");
    EXPECT_EQ(client(2), "web-2");
    EXPECT_EQ(client(web1.row()), "web-1") << "the persistent index follows its pair";
    EXPECT_EQ(web1.data().toString(), QString::fromUtf8("−3 µs"));
    model.sort(widgets::ClockAdjustmentsModel::Client, Qt::DescendingOrder);
    EXPECT_EQ(client(0), "web-3");
    EXPECT_EQ(client(web1.row()), "web-1");
    model.setHostFilter("DB");
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(client(0), "web-2") << "the filter keeps the sort";
    EXPECT_EQ(model.appliedCount(), 2);
}

// Issue 39: one scope for every analysis view. The requests the table lists (here a period typed into its
// filter) are what the aggregates, the profile and the bottlenecks cover, and the line above the tabs says
// so; clearing the filter gives every request back. The period is a dimension to stratify by.
TEST(MainWindow, TheListedRequestsAreTheScopeOfTheAnalysisViews) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string db = makeDatabase(dir, "scope", 300, false);
    {
        auto store = TraceStore::open(db, TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(store) << store.message();
        auto early = addPeriodByTime(*store.value(), "early", 0, 100'000'000);  // requests r0..r99 start in the first 100 ms
        ASSERT_TRUE(early) << early.message();
        ASSERT_EQ(early.value(), 100);
    }
    QSettings().remove("requestTable/filters");
    app::MainWindow window;
    ASSERT_TRUE(showWithDatabase(window, db));
    auto* aggregates = window.findChild<widgets::AggregatesView*>();
    auto* bottlenecks = window.findChild<widgets::BottlenecksView*>();
    auto* profile = window.findChild<widgets::ProfileView*>();
    auto* bar = window.findChild<QLabel*>(QStringLiteral("scopeBar"));
    ASSERT_TRUE(aggregates && bottlenecks && profile && bar);
    EXPECT_EQ(aggregates->stratifyBy()->itemText(1), QStringLiteral("period"));
    EXPECT_EQ(bottlenecks->requestsChoice()->itemText(0), QStringLiteral("All requests"));

    window.setRequestFilter(QStringLiteral("period:early"));
    ASSERT_TRUE(waitIdle(window));
    EXPECT_TRUE(bar->text().contains(QStringLiteral("100 of 300 requests"))) << bar->text().toStdString();
    EXPECT_EQ(bottlenecks->requestsChoice()->itemText(0), QStringLiteral("Listed requests (100)"));
    EXPECT_EQ(profile->requestsChoice()->itemText(0), QStringLiteral("Listed requests (100)"));
    window.showAggregatePage(0);
    ASSERT_TRUE(waitIdle(window));
    EXPECT_TRUE(aggregates->breakdownAa()->text().contains(QStringLiteral("(50 each)"))) << aggregates->breakdownAa()->text().toStdString();
    window.showTab(5);
    ASSERT_TRUE(waitIdle(window));
    EXPECT_TRUE(bottlenecks->statusText().startsWith(QStringLiteral("100 requests"))) << bottlenecks->statusText().toStdString();

    window.setRequestFilter(QString());
    ASSERT_TRUE(waitIdle(window));
    EXPECT_EQ(bottlenecks->requestsChoice()->itemText(0), QStringLiteral("All requests"));
    EXPECT_TRUE(bottlenecks->statusText().startsWith(QStringLiteral("300 requests"))) << bottlenecks->statusText().toStdString();
    window.showAggregatePage(0);
    ASSERT_TRUE(waitIdle(window));
    EXPECT_TRUE(aggregates->breakdownAa()->text().contains(QStringLiteral("(150 each)"))) << aggregates->breakdownAa()->text().toStdString();
}

// The Mystery Machine's model over a chosen window: the graph tab's period choice infers the model from that
// period's requests alone (on the Model lane), and "All requests" brings the cached model back.
TEST(MainWindow, TheDependencyGraphIsInferredOverTheChosenPeriod) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string db = makeDatabase(dir, "window", 300, false);
    {
        auto store = TraceStore::open(db, TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(store) << store.message();
        auto early = addPeriodByTime(*store.value(), "early", 0, 100'000'000);  // r0..r99
        ASSERT_TRUE(early) << early.message();
        ASSERT_EQ(early.value(), 100);
    }
    app::MainWindow window;
    ASSERT_TRUE(showWithDatabase(window, db));
    window.showTab(1);
    auto* overview = window.findChild<widgets::ModelOverview*>();
    ASSERT_TRUE(overview);
    ASSERT_TRUE(overview->graphView()->sourceGraph());
    EXPECT_EQ(overview->graphView()->sourceGraph()->requests, 300);
    ASSERT_GE(overview->periodBox()->findText(QStringLiteral("early")), 1);
    overview->setPeriod(QStringLiteral("early"));
    ASSERT_TRUE(waitIdle(window));
    ASSERT_TRUE(overview->graphView()->sourceGraph());
    EXPECT_EQ(overview->graphView()->sourceGraph()->requests, 100);
    EXPECT_EQ(overview->period(), QStringLiteral("early"));
    for (const auto& t : overview->graphView()->sourceGraph()->types) EXPECT_LE(t.occurrences, 100) << t.name();
    // The line above the tabs says what the model covers, not only the listed requests.
    auto* bar = window.findChild<QLabel*>(QStringLiteral("scopeBar"));
    ASSERT_TRUE(bar);
    overview->setMode(widgets::ModelOverview::Mode::CausalModel);
    overview->modeBox()->activated(0);
    EXPECT_TRUE(bar->text().contains(QStringLiteral("period “early”"))) << bar->text().toStdString();
    overview->setPeriod(QString());
    ASSERT_TRUE(waitIdle(window));
    EXPECT_EQ(overview->graphView()->sourceGraph()->requests, 300);
    EXPECT_FALSE(bar->text().contains(QStringLiteral("early"))) << bar->text().toStdString();
}

// The naming filter from the app: kept in the database, the database analysed again without the events it names,
// and the dependency graph drawn from that analysis (the server's two log points gone: one segment per request).
TEST(MainWindow, TheNamingFilterLeavesOutTheEventsItNamesEverywhere) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string db = makeDatabase(dir, "named", 60, false);
    app::MainWindow window;
    ASSERT_TRUE(showWithDatabase(window, db));
    auto* overview = window.findChild<widgets::ModelOverview*>();
    ASSERT_TRUE(overview && overview->graphView()->sourceGraph());
    EXPECT_EQ(overview->graphView()->sourceGraph()->types.size(), 3u);  // START->RECV->SEND->DONE
    ASSERT_TRUE(window.setNamingFilter(QStringLiteral("^(RECV|SEND)$")));
    ASSERT_TRUE(waitIdle(window));
    ASSERT_TRUE(overview->graphView()->sourceGraph());
    ASSERT_EQ(overview->graphView()->sourceGraph()->types.size(), 1u);
    EXPECT_EQ(overview->graphView()->sourceGraph()->types[0].name(), "main:START->DONE");
    auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store) << store.message();
    EXPECT_EQ(store.value()->namingFilter(), "^(RECV|SEND)$");
    EXPECT_TRUE(analysisIsCurrent(*store.value(), AnalysisOptions{}));
}

// A derived attribute defined in the app is offered by Stratify by and cuts the requests into quantiles of its
// values (the server's share of each request's latency: numeric).
TEST(MainWindow, ADerivedAttributeStratifiesTheBreakdown) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string db = makeDatabase(dir, "derived", 200, false);
    app::MainWindow window;
    ASSERT_TRUE(showWithDatabase(window, db));
    auto* aggregates = window.findChild<widgets::AggregatesView*>();
    ASSERT_TRUE(aggregates);
    ASSERT_TRUE(window.setDerivedAttributes({QStringLiteral("serverShare=time(server)/latency()")}));
    ASSERT_TRUE(waitIdle(window));
    const int at = aggregates->stratifyBy()->findText(QStringLiteral("serverShare"));
    ASSERT_GE(at, 1);
    window.showAggregatePage(0);
    aggregates->stratifyBy()->setCurrentIndex(at);
    ASSERT_TRUE(waitIdle(window));
    const QString csv = aggregates->breakdownPlot()->csv();
    for (const char* quartile : {"01: [", "02: [", "03: [", "04: ["})
        EXPECT_TRUE(csv.contains(QLatin1String(quartile))) << quartile << " in " << csv.toStdString();
}

// Results in SQL tables from the app: kept, the database is analysed again and the rows are there, one per segment;
// no longer kept, they go.
TEST(MainWindow, TheCriticalPathsAndSlackCanBeKeptAsSqlTables) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string db = makeDatabase(dir, "sql", 40, false);
    app::MainWindow window;
    ASSERT_TRUE(showWithDatabase(window, db));
    auto count = [&](const char* sql) {
        sqlite3* handle = nullptr;
        sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr);
        sqlite3_stmt* q = nullptr;
        sqlite3_prepare_v2(handle, sql, -1, &q, nullptr);
        const std::int64_t n = q && sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
        sqlite3_finalize(q);
        sqlite3_close(handle);
        return n;
    };
    EXPECT_EQ(count("SELECT COUNT(*) FROM slack"), 0);
    ASSERT_TRUE(window.setResultTablesKept(true));
    ASSERT_TRUE(waitIdle(window));
    EXPECT_EQ(count("SELECT COUNT(*) FROM slack"), 40 * 3);  // START->RECV->SEND->DONE
    EXPECT_EQ(count("SELECT COUNT(DISTINCT request_id) FROM critical_path_segments"), 40);
    ASSERT_TRUE(window.setResultTablesKept(false));
    EXPECT_EQ(count("SELECT COUNT(*) FROM critical_path_segments"), 0);
}

namespace {
// A Jaeger JSON file of `traces` one-span traces of service "shop".
void writeJaeger(const QString& path, int traces) {
    std::ofstream out(path.toStdString());
    out << R"({"data":[)";
    for (int t = 0; t < traces; ++t)
        out << (t ? "," : "") << R"({"traceID":"t)" << t << R"(","spans":[{"traceID":"t)" << t << R"(","spanID":"s)" << t
            << R"(","operationName":"GET /cart","references":[],"startTime":)" << 1700000000000000L + 1000L * t
            << R"(,"duration":)" << 100 + t << R"(,"processID":"p","tags":[],"logs":[]}],"processes":{"p":{"serviceName":"shop","tags":[]}}})";
    out << "]}";
}
} // namespace

// Issue 40: a trace file opens as people expect. It is imported into FILE.tldb beside it and opened; opened
// again unchanged, that database is reused (what was saved in it stays); changed, it is imported again. A file
// that is no trace, or a FILE.tldb that holds other data, is refused with the reason.
TEST(MainWindow, OpensATraceFileByImportingItBesideItself) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString trace = dir.filePath("shop.json");
    writeJaeger(trace, 2);
    QSettings().remove("requestTable/filters");
    app::MainWindow window;
    window.setErrorsToStderr(true);
    window.resize(1200, 800);
    window.show();
    auto* panel = window.findChild<widgets::RequestTablePanel*>();
    ASSERT_TRUE(panel);
    auto* model = qobject_cast<widgets::RequestTableModel*>(panel->view()->model());
    ASSERT_TRUE(model);
    ASSERT_TRUE(window.openPath(trace));
    ASSERT_TRUE(waitIdle(window));
    ASSERT_FALSE(window.hasFailed());
    const QString db = trace + ".tldb";
    ASSERT_TRUE(QFileInfo::exists(db));
    EXPECT_TRUE(window.windowTitle().startsWith("shop.json.tldb")) << window.windowTitle().toStdString();
    EXPECT_EQ(model->totalCount(), 2);
    {
        auto store = TraceStore::open(db.toStdString(), TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(store);
        ASSERT_TRUE(addPeriodByTime(*store.value(), "kept", 0, std::numeric_limits<std::int64_t>::max()));
    }
    ASSERT_TRUE(window.openPath(trace));  // unchanged: the same database, the period saved in it still there
    ASSERT_TRUE(waitIdle(window));
    {
        auto store = TraceStore::open(db.toStdString(), TraceStore::Mode::ReadOnly);
        ASSERT_TRUE(store);
        EXPECT_EQ(requestsInPeriod(*store.value(), "kept").size(), 2u);
    }

    writeJaeger(trace, 3);  // changed (and newer than its database): imported again
    {
        QFile file(trace);
        ASSERT_TRUE(file.open(QIODevice::ReadWrite));
        ASSERT_TRUE(file.setFileTime(QDateTime::currentDateTime().addSecs(60), QFileDevice::FileModificationTime));
    }
    ASSERT_TRUE(window.openPath(trace));
    ASSERT_TRUE(waitIdle(window));
    ASSERT_FALSE(window.hasFailed());
    EXPECT_EQ(model->totalCount(), 3);
    {
        auto store = TraceStore::open(db.toStdString(), TraceStore::Mode::ReadOnly);
        ASSERT_TRUE(store);
        EXPECT_TRUE(requestsInPeriod(*store.value(), "kept").empty());
        EXPECT_EQ(store.value()->importedInputs().size(), 1u);
    }

    const QString garbage = dir.filePath("notes.txt");
    {
        std::ofstream out(garbage.toStdString());
        out << "nothing to see here\n";
    }
    EXPECT_FALSE(window.openPath(garbage));
    EXPECT_TRUE(window.hasFailed());
    EXPECT_FALSE(QFileInfo::exists(garbage + ".tldb"));

    // other.json.tldb already holds another file's import: not ours to replace.
    const QString other = dir.filePath("other.json");
    writeJaeger(other, 1);
    {
        auto store = TraceStore::open((other + ".tldb").toStdString(), TraceStore::Mode::Create);
        ASSERT_TRUE(store);
        ImportOptions options;
        options.inputs = {trace.toStdString()};
        ASSERT_TRUE(importTraces(*store.value(), options));
    }
    EXPECT_FALSE(window.openPath(other));
    // ... nor is it let go of when it is the database open in the window: refused, it stays open.
    ASSERT_TRUE(window.openDatabase(other + ".tldb"));
    ASSERT_TRUE(waitIdle(window));
    EXPECT_FALSE(window.openPath(other));
    EXPECT_TRUE(window.session()->isOpen());
    EXPECT_EQ(window.session()->path(), other + ".tldb");
}

// Issue 41: a trace file without its database is shown from memory first (its requests listed, the first one's
// waterfall drawn, another one's when it is selected) while the import and the analysis run behind; then the window
// moves to the database, the same request still selected and shown, now analysed.
TEST(MainWindow, ShowsATraceFileFromMemoryUntilItsDatabaseIsMade) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString trace = dir.filePath("shop.json");
    writeJaeger(trace, 2000);  // enough that importing it takes longer than showing one request
    const QString db = trace + ".tldb";
    QSettings().remove("requestTable/filters");
    app::MainWindow window;
    window.setErrorsToStderr(true);
    window.resize(1200, 800);
    window.show();
    auto* panel = window.findChild<widgets::RequestTablePanel*>();
    ASSERT_TRUE(panel);
    auto* model = qobject_cast<widgets::RequestTableModel*>(panel->view()->model());
    ASSERT_TRUE(model);
    auto* waterfall = window.findChild<widgets::WaterfallView*>(QStringLiteral("waterfall"));
    ASSERT_TRUE(waterfall);
    // What each waterfall shown was read from, as it arrived.
    struct Shown {
        std::string name;
        bool fromMemory, sessionOpen, analysed;
        int listed;
    };
    std::vector<Shown> shown;
    QString statusSaid, graphTabSaid;
    QObject::connect(&window, &app::MainWindow::waterfallShown, [&] {
        shown.push_back({waterfall->request()->name, window.showsFileInMemory(), window.session()->isOpen(), waterfall->request()->analysed,
                         static_cast<int>(model->totalCount())});
        if (shown.size() != 1) return;
        for (const QLabel* label : window.statusBar()->findChildren<QLabel*>()) statusSaid += label->text();
        window.showTab(1);
        if (auto* bar = window.findChild<QLabel*>(QStringLiteral("scopeBar")); bar && bar->isVisible()) graphTabSaid = bar->text();
        window.showTab(0);
        panel->selectRequest(model->requestAt(1));  // another request, while still in memory
    });
    ASSERT_TRUE(window.openPath(trace));
    ASSERT_TRUE(QTest::qWaitFor([&] { return shown.size() >= 2 || window.hasFailed(); }, 60000));
    ASSERT_FALSE(window.hasFailed()) << window.lastError().toStdString();
    for (std::size_t i = 0; i < 2; ++i) {
        SCOPED_TRACE(i);
        EXPECT_TRUE(shown[i].fromMemory);
        EXPECT_FALSE(shown[i].sessionOpen);  // no database open yet
        EXPECT_FALSE(shown[i].analysed);     // local clocks, the one pass
        EXPECT_EQ(shown[i].listed, 2000);    // the file's requests listed
    }
    EXPECT_NE(shown[0].name, shown[1].name);
    const std::string selected = shown[1].name;
    EXPECT_TRUE(window.windowTitle().startsWith("shop.json")) << window.windowTitle().toStdString();
    // While shown from memory: the status bar said where the picture came from, and the tabs that need the
    // database said they follow its import.
    EXPECT_TRUE(statusSaid.contains(QStringLiteral("read from the file"))) << statusSaid.toStdString();
    EXPECT_TRUE(graphTabSaid.contains(QStringLiteral("follows its import into shop.json.tldb"))) << graphTabSaid.toStdString();

    ASSERT_TRUE(waitIdle(window));
    ASSERT_FALSE(window.hasFailed()) << window.lastError().toStdString();
    EXPECT_FALSE(window.showsFileInMemory());
    ASSERT_TRUE(window.session()->isOpen());
    EXPECT_EQ(window.session()->path(), db);
    EXPECT_TRUE(window.windowTitle().startsWith("shop.json.tldb")) << window.windowTitle().toStdString();
    EXPECT_EQ(model->totalCount(), 2000);
    ASSERT_TRUE(waterfall->request());
    EXPECT_EQ(waterfall->request()->name, selected);  // the selection kept
    EXPECT_TRUE(waterfall->request()->analysed);      // now the database's analysed detail
    EXPECT_EQ(shown.back().name, selected);
    EXPECT_TRUE(shown.back().sessionOpen);
    const auto id = requestByName(*window.session()->store(), selected);
    ASSERT_TRUE(id);
    EXPECT_EQ(panel->currentRequest(), *id);
}

// File › Import Traces… with the files chosen: a file that is no trace is refused, named, before anything is
// asked and without a command-line flag in the words; with a database open the window asks whether to add to it
// or make a new one (here: add), then the period; the folder is remembered for the next import.
TEST(MainWindow, ImportChecksTheFilesFirstAsksWhereAndRemembersTheFolder) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString first = dir.filePath("first.json"), second = dir.filePath("second.json"), garbage = dir.filePath("notes.txt");
    writeJaeger(first, 2);
    writeJaeger(second, 3);
    {
        // The second file's traces are others (u0.. where the first has t0..).
        QFile file(second);
        ASSERT_TRUE(file.open(QIODevice::ReadOnly));
        QByteArray text = file.readAll().replace("\":\"t", "\":\"u");
        file.close();
        ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(text);
    }
    {
        std::ofstream out(garbage.toStdString());
        out << "nothing to see here\n";
    }
    QSettings().remove("import/folder");
    app::MainWindow window;
    window.resize(1200, 800);
    window.show();
    auto* panel = window.findChild<widgets::RequestTablePanel*>();
    auto* model = qobject_cast<widgets::RequestTableModel*>(panel->view()->model());
    ASSERT_TRUE(model);
    ASSERT_TRUE(window.openPath(first));
    ASSERT_TRUE(waitIdle(window));
    ASSERT_EQ(model->totalCount(), 2);

    // The refusal names the file, in the window's words (no command-line flag).
    window.setErrorsToStderr(true);
    EXPECT_FALSE(window.importChosenFiles({garbage}));
    EXPECT_TRUE(window.hasFailed());
    const QString refusal = window.lastError();
    EXPECT_TRUE(refusal.contains(QStringLiteral("notes.txt"))) << refusal.toStdString();
    EXPECT_TRUE(refusal.contains(QStringLiteral("not a trace file"))) << refusal.toStdString();
    EXPECT_FALSE(refusal.contains(QStringLiteral("--format"))) << refusal.toStdString();
    EXPECT_EQ(QSettings().value("import/folder").toString(), QFileInfo(garbage).absolutePath());

    // Add to the open database: the question, then the period.
    QString asked;
    app::MainWindow::ImportQuestions questions;
    questions.addOrNew = [&](const QString& database, int files) {
        asked = database;
        EXPECT_EQ(files, 1);
        return 1;
    };
    questions.newDatabase = [&](const QString&) {
        ADD_FAILURE() << "no new database was asked for";
        return QString();
    };
    questions.period = [&](const QString& suggested) -> std::optional<QString> {
        EXPECT_EQ(suggested, QStringLiteral("second"));
        return QStringLiteral("later");
    };
    window.setImportQuestions(questions);
    EXPECT_FALSE(window.importChosenFiles({garbage}));  // refused before any question
    EXPECT_TRUE(asked.isEmpty());
    EXPECT_TRUE(window.importChosenFiles({second}));
    ASSERT_TRUE(waitIdle(window));
    EXPECT_EQ(asked, first + ".tldb");
    EXPECT_TRUE(window.lastError() == refusal) << "nothing failed since: " << window.lastError().toStdString();
    EXPECT_EQ(model->totalCount(), 5);
    auto store = TraceStore::open((first + ".tldb").toStdString(), TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store);
    EXPECT_EQ(requestsInPeriod(*store.value(), "later").size(), 3u);
}

// --import of a pipe whose writer keeps it open (`tail -f log | tracelight --import - db`): closing the window
// cancels the import at once, and the new database goes. The import waited in a read of the pipe that no cancel
// could end, and the app never exited: QApplication waits for its workers (here: the window's end does).
TEST(MainWindow, AnImportFromAPipeThatStaysOpenEndsWithTheWindow) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const std::string head = "request,host,task,event,ts_us\nr1,h,t,A,1\n";
    ASSERT_EQ(::write(fds[1], head.data(), head.size()), static_cast<ssize_t>(head.size()));
    const QString db = dir.filePath("piped.tldb");
    {
        app::MainWindow window;
        window.setErrorsToStderr(true);
        window.startImport({QStringLiteral("/dev/fd/%1").arg(fds[0])}, db, QStringLiteral("piped"));
        QTest::qWait(300);
        EXPECT_TRUE(window.isLoading());
    }
    const bool ended = QThreadPool::globalInstance()->waitForDone(2000);
    ::close(fds[1]);  // (had it not ended, it does now: the test fails rather than hangs)
    QThreadPool::globalInstance()->waitForDone();
    ::close(fds[0]);
    EXPECT_TRUE(ended) << "the import still waited on the pipe 2 s after its window closed";
    EXPECT_FALSE(QFileInfo::exists(db));
}

// With no database open the window offers the ways in (Open…, Import Traces…, Open the Sample) instead of an
// empty table; opening a database shows the table and the tabs.
TEST(MainWindow, AnEmptyWindowOffersOpenImportAndTheSample) {
    app::MainWindow window;
    window.resize(1280, 860);
    window.show();
    auto* welcome = window.findChild<app::WelcomePage*>();
    ASSERT_TRUE(welcome);
    EXPECT_TRUE(welcome->isVisible());
    EXPECT_TRUE(welcome->openButton()->isVisible());
    EXPECT_TRUE(welcome->importButton()->isVisible());
    EXPECT_EQ(welcome->sampleButton()->isVisible(), !app::bundledSamplePath().isEmpty());
    EXPECT_FALSE(window.findChild<widgets::RequestTablePanel*>()->isVisible());
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string db = makeDatabase(dir, "welcome", 20, false);
    ASSERT_TRUE(window.openDatabase(QString::fromStdString(db)));
    ASSERT_TRUE(waitIdle(window));
    EXPECT_FALSE(welcome->isVisible());
    EXPECT_TRUE(window.findChild<widgets::RequestTablePanel*>()->isVisible());
}
