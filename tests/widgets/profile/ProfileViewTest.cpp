// The Profile tab over a database: the profile of a period computed on a worker, and its diff against
// another period, where the slowed segment leads the table of significant changes.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFile>
#include <QMenu>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidgetItem>
#include <qcustomplot.h>

#include "compare/SuspectsView.h"
#include "core/GeneratedPeriods.h"
#include "core/OnlineBoutiqueStore.h"
#include "profile/FlameGraphView.h"
#include "profile/FrameHistogram.h"
#include "profile/FrameTables.h"
#include "profile/ProfileView.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/profile/ProfileAaTable.h"
#include "tracelight/store/Periods.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include "../ServedViews.h"

using namespace tracelight;

namespace {

std::shared_ptr<const InMemoryAnalysis> analysedTwoPeriods(const QTemporaryDir& dir, std::string& db) {
    db = dir.filePath("p.tldb").toStdString();
    return test::analysedPeriods(db, 600, 6.0);
}

bool waitReady(widgets::ProfileView& v) { return QTest::qWaitFor([&] { return !v.isComputing(); }, 120000); }

// Online Boutique's normal minute and its currencyservice delay, imported into db and analysed.
Result<std::shared_ptr<const InMemoryAnalysis>> currencyDelayAnalysis(const std::string& db) {
    if (!test::currencyDelayStore(db)) return Status::error(db + ": cannot make the Online Boutique store");
    auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    if (!store) return store.status();
    auto analysis = loadAnalysis(*store.value());
    if (!analysis) return analysis.status();
    return std::make_shared<const InMemoryAnalysis>(std::move(analysis.value()));
}

} // namespace

TEST(ProfileView, ProfileThenDiffPutsTheSlowedSegmentFirst) {
    QTemporaryDir dir;
    std::string db;
    auto analysis = analysedTwoPeriods(dir, db);
    widgets::ProfileView view;
    view.resize(1300, 600);
    view.show();
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis, {"baseline", "problem"});
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.statusText().contains("1,200 requests")) << view.statusText().toStdString();
    EXPECT_FALSE(view.flameGraph()->isDiff());
    EXPECT_FALSE(view.changeTable()->isVisible());

    view.setPeriod("problem");
    view.setDiffBase("baseline");
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.flameGraph()->isDiff());
    ASSERT_GT(view.changeTable()->rowCount(), 0) << view.statusText().toStdString();
    EXPECT_EQ(view.changeTable()->item(0, 0)->text(), QStringLiteral("CACHE_MISS->CACHE_REPLY"));
    EXPECT_TRUE(view.changeTable()->item(0, 0)->toolTip().startsWith("cache › fetch-feed › ")) << view.changeTable()->item(0, 0)->toolTip().toStdString();
    EXPECT_TRUE(view.statusText().contains("significant frames")) << view.statusText().toStdString();
    if (const QByteArray png = qgetenv("PROFILE_DIFF_PNG"); !png.isEmpty()) { ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png))); }

    // The same period on both sides is refused with a reason.
    view.setDiffBase("problem");
    EXPECT_TRUE(view.statusText().contains("same period")) << view.statusText().toStdString();
}

// The tables beside the flame graph, its right-click menu and its exports: top frames sorted by self time,
// a row's sandwich, a slowest request opened from a frame, the flame orientation, pprof from the view.
// Long period names (an import names its period after the file) and the long messages they make do not widen
// the view past a 1280-pixel window: the status wraps, the period boxes keep their width.
TEST(ProfileView, LongPeriodNamesDoNotWidenTheWindow) {
    QTemporaryDir dir;
    std::string db;
    auto analysis = analysedTwoPeriods(dir, db);
    widgets::ProfileView view;
    view.show();
    const QString a = QString("TraceTimelineViewer__genaiTestTrace_%1").arg(QString(60, 'a'));
    const QString b = QString("TraceTimelineViewer__genaiTestTrace_%1").arg(QString(60, 'b'));
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis, {a, b});
    ASSERT_TRUE(waitReady(view));
    EXPECT_FALSE(view.statusText().isEmpty());
    EXPECT_LT(view.minimumSizeHint().width(), 1100) << view.statusText().toStdString();
}

// One request is "1 request", not "1 requests" (a single Jaeger trace's profile said so).
TEST(ProfileView, OneRequestIsCountedInTheSingular) {
    QTemporaryDir dir;
    std::string db;
    auto analysis = analysedTwoPeriods(dir, db);
    widgets::ProfileView view;
    view.show();
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis, {"baseline", "problem"});
    ASSERT_TRUE(waitReady(view));
    view.setSelection({analysis->data.requestIds.front()});
    view.chooseSelection();
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.statusText().startsWith("1 request · ")) << view.statusText().toStdString();
}

TEST(ProfileView, TopFramesSandwichMenuAndExports) {
    QTemporaryDir dir;
    std::string db;
    auto analysis = analysedTwoPeriods(dir, db);
    widgets::ProfileView view;
    view.resize(1300, 700);
    view.show();
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis, {"baseline", "problem"});
    ASSERT_TRUE(waitReady(view));

    widgets::TopFramesTable* top = view.topFrames();
    ASSERT_GT(top->rowCount(), 3);
    for (int r = 1; r < top->rowCount(); ++r)
        EXPECT_GE(top->item(r - 1, 1)->data(Qt::UserRole).toDouble(), top->item(r, 1)->data(Qt::UserRole).toDouble()) << r;
    // Sorting by total puts the largest total first (a number, not the text "9 ms" before "10 ms").
    top->sortByColumn(2, Qt::DescendingOrder);
    double previous = top->item(0, 2)->data(Qt::UserRole).toDouble();
    for (int r = 1; r < top->rowCount(); ++r) {
        const double v = top->item(r, 2)->data(Qt::UserRole).toDouble();
        EXPECT_GE(previous, v) << r;
        previous = v;
    }

    // A segment's sandwich: the tasks that run it call it, their times adding up to its total; it calls nothing.
    view.showSandwich(QStringLiteral("CACHE_MISS->CACHE_REPLY"));
    EXPECT_EQ(view.tables()->currentWidget(), view.sandwichView());
    const QTableWidget* callers = view.sandwichView()->callers();
    ASSERT_GE(callers->rowCount(), 1);
    bool feed = false;
    double callerSum = 0;
    for (int r = 0; r < callers->rowCount(); ++r) {
        feed |= callers->item(r, 0)->text() == QStringLiteral("fetch-feed");
        callerSum += callers->item(r, 2)->data(Qt::UserRole).toDouble();
    }
    EXPECT_TRUE(feed);
    double middle = 0;
    for (int r = 0; r < top->rowCount(); ++r)
        if (top->item(r, 0)->text() == QStringLiteral("CACHE_MISS->CACHE_REPLY")) middle = top->item(r, 2)->data(Qt::UserRole).toDouble();
    EXPECT_NEAR(callerSum, middle, 1e-6 * middle);
    EXPECT_EQ(view.sandwichView()->callees()->rowCount(), 0);
    if (const QByteArray png = qgetenv("PROFILE_TABLES_PNG"); !png.isEmpty()) { ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png))); }

    // Right-click on a frame: zoom, sandwich, and the slowest requests where it was critical, one of which
    // is opened in the waterfall (requestActivated).
    const auto* flame = view.flameGraph();
    int frame = -1;
    for (int x = 5; x < flame->width() && frame < 0; x += 20) frame = flame->frameAt(QPoint(x, 2 + 20 + 5));  // first row under "all"
    ASSERT_GE(frame, 0);
    auto menu = view.frameMenu(frame);
    ASSERT_TRUE(menu);
    QMenu* slowest = nullptr;
    for (QAction* a : menu->actions())
        if (a->menu() && a->text().startsWith("Open a slowest request")) slowest = a->menu();
    ASSERT_TRUE(slowest);
    ASSERT_FALSE(slowest->actions().isEmpty());
    std::vector<RequestId> opened;
    QObject::connect(&view, &widgets::ProfileView::requestActivated, [&](RequestId id) { opened.push_back(id); });
    slowest->actions().front()->trigger();
    ASSERT_EQ(opened.size(), 1u);
    const RequestId id = opened.front();
    EXPECT_NE(std::find(analysis->data.requestIds.begin(), analysis->data.requestIds.end(), id), analysis->data.requestIds.end());

    // Flame orientation: the root ("all") row is at the bottom.
    view.flameGraph()->setOrientation(widgets::FlameGraphView::Orientation::Flame);
    EXPECT_EQ(flame->frameAt(QPoint(10, flame->height() - 2 - 10)), -2);
    EXPECT_NE(flame->frameAt(QPoint(10, 2 + 10)), -2);

    // pprof from the view: a gzip file.
    const QString pprof = dir.filePath("p.pb.gz");
    ASSERT_TRUE(view.exportProfile(pprof));
    QFile f(pprof);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QByteArray head = f.read(2);
    EXPECT_EQ(head, QByteArray("\x1f\x8b", 2));
}

// The other sources of the profile's requests: the outliers, the request table's selection, and an
// attribute filter on top of any of them.
TEST(ProfileView, OutliersSelectionAndWhere) {
    QTemporaryDir dir;
    std::string db;
    auto analysis = analysedTwoPeriods(dir, db);
    auto aggregates = computeAggregates(*analysis, CategoryRules::defaults());
    ASSERT_TRUE(aggregates);
    const auto outliers = outlierRows(aggregates.value()).size();  // about 5 % of 1,200
    ASSERT_GT(outliers, 50u);
    ASSERT_LT(outliers, 70u);
    widgets::ProfileView view;
    view.resize(1300, 600);
    view.show();
    view.setAggregates(std::make_shared<const RequestAggregates>(std::move(aggregates.value())));
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis, {"baseline", "problem"});
    ASSERT_TRUE(waitReady(view));
    ASSERT_TRUE(view.statusText().contains("1,200 requests")) << view.statusText().toStdString();

    view.chooseOutliers();
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.statusText().startsWith(QStringLiteral("%1 requests").arg(outliers))) << view.statusText().toStdString();

    const auto& ids = analysis->data.requestIds;
    view.setSelection({ids[3], ids[10], ids[500], ids[1100]});
    view.chooseSelection();
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.statusText().startsWith("4 requests")) << view.statusText().toStdString();
    view.setSelection({});
    view.chooseSelection();
    EXPECT_TRUE(view.statusText().contains("No request is selected")) << view.statusText().toStdString();

    // These page loads carry no attributes: a filter on one is refused, naming it, not drawn empty.
    // (A filter that matches some: cli.smoke's profile --where.)
    view.setPeriod(QString());
    ASSERT_TRUE(waitReady(view));
    view.setWhere(QStringLiteral("connection=3g"));
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.statusText().contains("no request has the attribute 'connection'")) << view.statusText().toStdString();
    view.setWhere(QStringLiteral("connection"));  // not a predicate: a one-line reason
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.statusText().startsWith("Where:")) << view.statusText().toStdString();
}

// A picture of any database's diff, for the README: PROFILE_DIFF_DB, _BASE, _TARGET, _OUT.
TEST(ProfileView, RendersADiffOfAnyDatabase) {
    const QByteArray file = qgetenv("PROFILE_DIFF_DB");
    if (file.isEmpty()) GTEST_SKIP() << "set PROFILE_DIFF_DB, PROFILE_DIFF_BASE, PROFILE_DIFF_TARGET and PROFILE_DIFF_OUT";
    auto store = TraceStore::open(file.toStdString(), TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store);
    auto analysis = loadAnalysis(*store.value());
    ASSERT_TRUE(analysis);
    QStringList periods;
    auto info = store.value()->info();  // kept: the loop must not walk a temporary's member
    ASSERT_TRUE(info);
    for (const auto& p : info->periods) periods << QString::fromStdString(p.name);
    widgets::ProfileView view;
    view.resize(1280, 860);  // the docs' screenshot size
    view.show();
    auto session = test::serveFrom(view, file.toStdString());
    view.setDatabase(std::make_shared<const InMemoryAnalysis>(std::move(analysis.value())), periods);
    view.setPeriod(QString::fromLocal8Bit(qgetenv("PROFILE_DIFF_TARGET")));
    view.setDiffBase(QString::fromLocal8Bit(qgetenv("PROFILE_DIFF_BASE")));
    ASSERT_TRUE(waitReady(view));
    ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(qgetenv("PROFILE_DIFF_OUT"))));
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// Issue 39: a diff of span data opens with the suspects (Online Boutique's currencyservice delay against the
// normal minute: currencyservice first); choosing a line of evidence searches the flame graph for its key.
TEST(ProfileView, ADiffOfSpanDataOpensWithTheSuspects) {
    if (!test::haveOnlineBoutique()) GTEST_SKIP() << "no " << test::kOnlineBoutique;
    QTemporaryDir dir;
    const std::string db = dir.filePath("ob.tldb").toStdString();
    auto analysis = currencyDelayAnalysis(db);
    ASSERT_TRUE(analysis) << analysis.message();
    widgets::ProfileView view;
    view.resize(1280, 700);
    view.show();
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis.value(), {"normal", "fault"});
    view.showDiff("normal", "fault", QString());
    ASSERT_TRUE(waitReady(view));
    ASSERT_TRUE(view.flameGraph()->isDiff());
    EXPECT_EQ(view.tables()->currentWidget(), view.suspectsView());
    ASSERT_GT(view.suspectsView()->suspectCount(), 0);
    QTreeWidgetItem* first = view.suspectsView()->topLevelItem(0);
    EXPECT_EQ(first->text(0), QStringLiteral("1. currencyservice"));
    ASSERT_GT(first->childCount(), 0);
    emit view.suspectsView()->itemActivated(first->child(0), 0);
    EXPECT_GT(view.flameGraph()->matchedShare(), 0.5) << view.statusText().toStdString();  // the delayed hop: most of the latency
    if (const QByteArray png = qgetenv("PROFILE_SUSPECTS_PNG"); !png.isEmpty()) { ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png))); }
}

// Critical path tracing's per-frame latency histogram: zooming into a frame of a diff shows the base's and
// the target's histograms of its critical time, bar for bar the profile's counts.
TEST(ProfileView, AZoomedFrameShowsItsHistogramInBothPeriods) {
    if (!test::haveOnlineBoutique()) GTEST_SKIP() << "no " << test::kOnlineBoutique;
    QTemporaryDir dir;
    const std::string db = dir.filePath("ob.tldb").toStdString();
    auto analysis = currencyDelayAnalysis(db);
    ASSERT_TRUE(analysis) << analysis.message();
    widgets::ProfileView view;
    view.resize(1280, 860);
    view.show();
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis.value(), {"normal", "fault"});
    view.showDiff("normal", "fault", QString());
    ASSERT_TRUE(waitReady(view));
    const ProfileSet* set = nullptr;
    int hop = -1;
    for (std::size_t f = 0; f < view.profile()->frames.size(); ++f)
        if (view.profile()->frames[f].name == "frontend → currencyservice") {
            hop = static_cast<int>(f);
            break;
        }
    set = view.profile().get();
    ASSERT_GE(hop, 0);
    view.flameGraph()->zoomTo(hop);
    widgets::FrameHistogram* histogram = view.frameHistogram();
    ASSERT_EQ(histogram->plot()->plottableCount(), 2);  // base and target
    EXPECT_TRUE(histogram->captionText().contains("frontend → currencyservice")) << histogram->captionText().toStdString();
    for (int k = 0; k < 2; ++k) {
        auto* bars = qobject_cast<QCPBars*>(histogram->plot()->plottable(k));
        ASSERT_NE(bars, nullptr);
        const std::size_t group = k == 0 ? 0 : 1;
        double shown = 0;
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
            EXPECT_EQ(it->value, set->groups[group].frames[static_cast<std::size_t>(hop)].histogram[static_cast<std::size_t>(it->key)]);
            shown += it->value;
        }
        EXPECT_EQ(shown, double(set->groups[group].frames[static_cast<std::size_t>(hop)].criticalRequests));
    }
    // The delay moved the hop's mass to longer bins: the target's mean bin lies past the base's.
    auto meanBin = [&](std::size_t g) {
        double n = 0, sum = 0;
        for (int b = 0; b < kProfileHistogramBins; ++b) {
            n += set->groups[g].frames[static_cast<std::size_t>(hop)].histogram[static_cast<std::size_t>(b)];
            sum += b * double(set->groups[g].frames[static_cast<std::size_t>(hop)].histogram[static_cast<std::size_t>(b)]);
        }
        return sum / n;
    };
    EXPECT_GT(meanBin(1), meanBin(0) + 1);
    view.tables()->setCurrentWidget(histogram);
    if (const QByteArray png = qgetenv("PROFILE_HISTOGRAM_PNG"); !png.isEmpty()) { ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png))); }
}

// Critical path tracing's Table 3 beside a diff: the frames chance alone moves past each threshold between two random
// profiles of the base, at the sample sizes that fit, as the core's table over the same requests gives them.
TEST(ProfileView, ADiffShowsTheAaTableOfItsBase) {
    QTemporaryDir dir;
    std::string db;
    auto analysis = analysedTwoPeriods(dir, db);
    widgets::ProfileView view;
    view.resize(1280, 860);
    view.show();
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis, {"baseline", "problem"});
    ASSERT_TRUE(waitReady(view));
    EXPECT_EQ(view.tables()->indexOf(view.aaTable()->parentWidget()), -1);  // no diff, no A/A table
    view.setPeriod("problem");
    view.setDiffBase("baseline");
    ASSERT_TRUE(waitReady(view));
    ASSERT_GE(view.tables()->indexOf(view.aaTable()->parentWidget()), 0);
    QTableWidget* table = view.aaTable();
    ASSERT_EQ(table->rowCount(), 1);  // 600 base requests: profiles of 100
    ASSERT_EQ(table->columnCount(), 3);  // past 1, 5 and 10 ms
    auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store);
    AaTableOptions options;
    options.sizes = defaultAaSizes(600);
    options.thresholdsNs = {1'000'000, 5'000'000, 10'000'000};
    ProfileOptions profileOptions;
    profileOptions.rules = loadCategoryRules(*store.value());
    auto paths = loadCachedCriticalPaths(*store.value(), analysis->data);
    ASSERT_TRUE(paths);
    profileOptions.paths = &paths.value();
    const auto rows = periodRows(*store.value(), analysis->data.requestIds, "baseline");
    auto cells = aaFalsePositiveTable(*analysis, store.value().get(), rows, options, profileOptions);
    ASSERT_TRUE(cells) << cells.message();
    ASSERT_EQ(cells->size(), 3u);
    for (int c = 0; c < 3; ++c) {
        const AaTableCell& cell = cells.value()[static_cast<std::size_t>(c)];
        EXPECT_TRUE(table->item(0, c)->text().startsWith(QString::number(cell.meanFrames, 'f', 2))) << table->item(0, c)->text().toStdString();
    }
    view.tables()->setCurrentWidget(view.aaTable()->parentWidget());
    if (const QByteArray png = qgetenv("PROFILE_AA_PNG"); !png.isEmpty()) { ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png))); }
}
