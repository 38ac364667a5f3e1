// The Compare tab: two periods compared on a worker, the ranked entries with the A/A figure, the chosen
// entry's red edges and requests, live re-ranking, CSV export, and a clear message for every bad choice.
#include <gtest/gtest.h>

#include <QMenu>
#include <QSignalSpy>
#include <QTreeWidgetItem>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHelpEvent>
#include <QToolTip>
#include <QDir>
#include <QDoubleSpinBox>
#include <QSettings>
#include <QSpinBox>
#include <QSortFilterProxyModel>
#include <QFile>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>

#include "core/GeneratedPeriods.h"
#include "core/OnlineBoutiqueStore.h"
#include "compare/AaOverTimeView.h"
#include "compare/CompareEntryModel.h"
#include "compare/CompareWorkspace.h"
#include "compare/SuspectsView.h"
#include "compare/FlowGraphView.h"
#include "compare/PeriodTimeline.h"
#include "compare/RegressionTreeView.h"
#include "compare/TrainScheduleView.h"
#include "waterfall/WaterfallView.h"
#include "widgets/waterfall/LayoutStarts.h"
#include "generator/StorageGenerator.h"
#include <QListWidget>
#include "plots/CdfPlot.h"
#include <qcustomplot.h>
#include "common/PlotExport.h"
#include "common/QtText.h"
#include <QScrollArea>
#include <QScrollBar>
#include <QLabel>
#include <QMouseEvent>
#include <QTabWidget>
#include "generator/PageLoadGenerator.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include "../ServedViews.h"

using namespace tracelight;

namespace {

struct Fixture {
    QTemporaryDir dir;
    std::string db;
    std::shared_ptr<const InMemoryAnalysis> analysis;
};

// A baseline and a problem period whose feed cache-miss fill is 6x slower, imported and analysed.
std::unique_ptr<Fixture> twoPeriods(int periods = 2) {
    auto f = std::make_unique<Fixture>();
    f->db = f->dir.filePath("cmp.tldb").toStdString();
    f->analysis = test::analysedPeriods(f->db, 800, 6.0, periods);
    return f;
}

bool waitReady(widgets::CompareWorkspace& w) { return QTest::qWaitFor([&] { return !w.isComputing(); }, 120000); }

// The storage generator's baseline and problem periods under `change`, imported and analysed into `db`.
void writeStorageDb(const QTemporaryDir& dir, const std::string& db, samples::StorageChange change, std::int64_t requests) {
    samples::StorageOptions o;
    o.seed = 5;
    o.requests = requests;
    o.change = change;
    const samples::StorageGenerator g(o);
    auto store = TraceStore::open(db, TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    for (auto period : {samples::StoragePeriod::Baseline, samples::StoragePeriod::Problem}) {
        std::string csv = samples::StorageGenerator::csvHeader();
        for (std::int64_t i = 0; i < o.requests; ++i) g.appendCsv(g.generate(period, i), csv);
        const std::string path = dir.filePath(QString::fromLatin1(samples::storagePeriodName(period).data()) + ".csv").toStdString();
        std::ofstream(path) << csv;
        ImportOptions options;
        options.inputs = {path};
        options.period = std::string(samples::storagePeriodName(period));
        ASSERT_TRUE(importTraces(*store.value(), options));
    }
    ASSERT_TRUE(analyzeStore(*store.value(), AnalysisOptions{}));
}

std::shared_ptr<const InMemoryAnalysis> loadAnalysed(const std::string& db) {
    auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    if (!store) return nullptr;
    auto analysis = loadAnalysis(*store.value());
    return analysis ? std::make_shared<const InMemoryAnalysis>(std::move(analysis.value())) : nullptr;
}

// The workspace shown on a storage database's two periods and compared at `threshold`; the session serving it.
auto compareStorage(widgets::CompareWorkspace& w, const std::string& db, std::shared_ptr<const InMemoryAnalysis> analysis, double threshold) {
    w.show();
    auto session = test::serveFrom(w, db);
    w.setDatabase(std::move(analysis), {"baseline", "problem"});
    w.findChild<QDoubleSpinBox*>("threshold")->setValue(threshold);
    w.setPeriods("baseline", "problem");
    return session;
}

} // namespace

TEST(CompareWorkspace, RanksTheSlowedSegmentFirstWithItsRedEdgeAndTheAaFigure) {
    auto f = twoPeriods();
    widgets::CompareWorkspace w;
    w.resize(1300, 700);
    w.show();
    auto session = test::serveFrom(w, f->db);
    w.setDatabase(f->analysis, {"baseline", "problem"});
    w.setPeriods("baseline", "problem");
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(w.comparison()) << w.summaryText().toStdString();
    EXPECT_TRUE(w.summaryText().contains("A/A")) << w.summaryText().toStdString();
    auto* model = qobject_cast<widgets::CompareEntryModel*>(
        qobject_cast<QSortFilterProxyModel*>(w.entryTable()->model())->sourceModel());
    ASSERT_TRUE(model);
    ASSERT_GT(model->rowCount(), 0);
    const CompareEntry* top = model->entryAt(0);
    ASSERT_EQ(top->kind, CompareEntry::Kind::ResponseTime);
    ASSERT_FALSE(top->changedEdges.empty());
    // The detail of the selected (first) entry names the slowed edge in red, gives every edge's latency on both
    // sides, and lists its requests.
    QTreeWidget* detail = w.detail();
    ASSERT_GE(detail->topLevelItemCount(), 5);
    // Its kind as the table names it, not the JSON's "response_time".
    EXPECT_TRUE(detail->topLevelItem(0)->text(0).endsWith("(response time)")) << detail->topLevelItem(0)->text(0).toStdString();
    const QTreeWidgetItem* red = detail->topLevelItem(1);
    ASSERT_GT(red->childCount(), 0);
    EXPECT_EQ(red->child(0)->text(0), QStringLiteral("fetch-feed:CACHE_MISS → fetch-feed:CACHE_REPLY"));
    const QTreeWidgetItem* edges = detail->topLevelItem(3);
    EXPECT_TRUE(edges->text(0).startsWith("Edge latencies")) << edges->text(0).toStdString();
    ASSERT_GT(edges->childCount(), 0);
    EXPECT_EQ(edges->child(0)->text(0), red->child(0)->text(0)) << "the largest change in mean first";
    const QTreeWidgetItem* requests = detail->topLevelItem(4);
    EXPECT_GT(requests->childCount(), 0);

    // Activating a request emits it for the waterfall.
    RequestId activated;
    QObject::connect(&w, &widgets::CompareWorkspace::requestActivated, [&](RequestId id) { activated = id; });
    emit detail->itemActivated(requests->child(0), 0);
    EXPECT_TRUE(activated.isValid());

    // Re-ranking with an impossible threshold keeps the categories and drops every structural entry.
    const auto* categories = w.comparison()->categories.get();
    w.findChild<QDoubleSpinBox*>("threshold")->setValue(1e8);
    ASSERT_TRUE(waitReady(w));
    EXPECT_EQ(w.comparison()->categories.get(), categories);
    for (const auto& e : w.comparison()->comparison.entries) EXPECT_NE(e.kind, CompareEntry::Kind::Structural);

    // CSV: a header and one line per entry.
    const QString csv = QDir(QString::fromStdString(f->dir.path().toStdString())).filePath("entries.csv");
    ASSERT_TRUE(w.exportCsv(csv));
    QFile file(csv);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
    EXPECT_EQ(lines.size(), model->rowCount() + 1);
    EXPECT_TRUE(lines.first().startsWith("rank,kind,category"));

    if (const QByteArray png = qgetenv("COMPARE_PNG"); !png.isEmpty()) {
        w.setWindowTitle("Compare");
        ASSERT_TRUE(w.grab().save(QString::fromLocal8Bit(png)));
    }
}

// Over time: both periods (the same minute of traffic here) cut into time buckets; the view draws the core's
// per-bucket differences (the baseline's A/A and the problem period against it) and the load stacked by type,
// with labelled axes and a legend; more buckets are asked for again.
TEST(CompareWorkspace, DrawsBothPeriodsOverTimeWithTheBaselinesAa) {
    auto f = twoPeriods();
    widgets::CompareWorkspace w;
    w.resize(1280, 760);
    w.show();
    auto session = test::serveFrom(w, f->db);
    w.setDatabase(f->analysis, {"baseline", "problem"});
    w.setPeriods("baseline", "problem");
    ASSERT_TRUE(waitReady(w));
    widgets::AaOverTimeView* view = w.overTime();
    ASSERT_TRUE(view->result());
    const PeriodsOverTime& r = *view->result();
    ASSERT_EQ(r.versus.buckets.size(), 12u);
    ASSERT_EQ(r.aa.buckets.size(), 12u);
    std::int64_t requests = 0;
    for (const auto& b : r.versus.buckets) {
        requests += b.requests;
        EXPECT_EQ(b.requestsA + b.requestsB, b.requests);
        EXPECT_EQ(b.percentiles.size(), 4u);  // both periods in every bucket: the same minute
    }
    EXPECT_EQ(requests, 1600);
    // The points drawn are the core's: p95 by default, log2(B / A), one per bucket and series.
    QCustomPlot* plot = view->plot();
    ASSERT_EQ(plot->graphCount(), 2);
    EXPECT_EQ(view->percentile(), 95);
    for (int g = 0; g < 2; ++g) {
        const auto& buckets = g == 0 ? r.aa.buckets : r.versus.buckets;
        ASSERT_EQ(plot->graph(g)->dataCount(), 12);
        for (int k = 0; k < 12; ++k)
            EXPECT_NEAR(plot->graph(g)->data()->at(k)->value, std::log2(1 + buckets[static_cast<std::size_t>(k)].percentiles[2].relativeDiff), 1e-9);
    }
    EXPECT_FALSE(plot->axisRect(0)->axis(QCPAxis::atLeft)->label().isEmpty());
    EXPECT_TRUE(plot->axisRect(1)->axis(QCPAxis::atLeft)->label().contains("requests/s"));
    EXPECT_TRUE(plot->axisRect(1)->axis(QCPAxis::atBottom)->label().contains("(s"));
    EXPECT_GE(plot->legend->itemCount(), 3);  // the two differences and at least one request type's load
    EXPECT_EQ(view->csv().count('\n'), 13);
    if (const QByteArray png = qgetenv("COMPARE_OVERTIME_PNG"); !png.isEmpty()) {
        w.entryViews()->setCurrentWidget(view);
        ASSERT_TRUE(w.grab().save(QString::fromLocal8Bit(png)));
    }
    view->findChild<QSpinBox*>("overTimeBuckets")->setValue(5);
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(view->result());
    EXPECT_EQ(view->result()->versus.buckets.size(), 5u);
    EXPECT_EQ(plot->graph(1)->dataCount(), 5);
}

// The chosen entry's flow graphs: laid out on a worker, one structure on both sides of a response-time
// entry (its category in both periods), the slowed segment marked, the diff with every node; a
// double-click opens the side's representative request.
TEST(CompareWorkspace, DrawsTheEntrysFlowGraphsSideBySideAndAsADiff) {
    auto f = twoPeriods();
    widgets::CompareWorkspace w;
    w.resize(1400, 800);
    w.show();
    auto session = test::serveFrom(w, f->db);
    w.setDatabase(f->analysis, {"baseline", "problem"});
    w.setPeriods("baseline", "problem");
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(w.comparison());
    w.entryViews()->setCurrentIndex(2);
    ASSERT_TRUE(waitReady(w));
    EXPECT_GT(w.firstGraph()->drawnNodes(), 3);
    EXPECT_EQ(w.firstGraph()->drawnNodes(), w.secondGraph()->drawnNodes());  // one category: one structure
    EXPECT_EQ(w.diffGraph()->drawnNodes(), w.firstGraph()->drawnNodes());
    EXPECT_TRUE(w.graphTitles()->text().contains("problem period")) << w.graphTitles()->text().toStdString();
    EXPECT_TRUE(w.graphTitles()->text().contains("baseline period")) << w.graphTitles()->text().toStdString();
    RequestId opened;
    QObject::connect(&w, &widgets::CompareWorkspace::requestActivated, [&](RequestId id) { opened = id; });
    QTest::mouseDClick(w.firstGraph(), Qt::LeftButton);
    EXPECT_TRUE(opened.isValid());
    // Swim lanes of the two representatives on one time axis: zooming one moves the other.
    ASSERT_TRUE(w.firstLanes()->request() && w.secondLanes()->request());
    EXPECT_EQ(w.firstLanes()->request()->id, opened);
    EXPECT_DOUBLE_EQ(w.firstLanes()->visibleToUs(), w.secondLanes()->visibleToUs());
    w.firstLanes()->setVisibleRange(10, 500);
    EXPECT_DOUBLE_EQ(w.secondLanes()->visibleFromUs(), 10);
    EXPECT_DOUBLE_EQ(w.secondLanes()->visibleToUs(), 500);
    // The same two requests as train schedules: a station per host the request visited, every segment a leg,
    // the critical ones marked, both on the longer request's time axis.
    for (auto [train, lanes] : {std::pair{w.firstTrain(), w.firstLanes()}, std::pair{w.secondTrain(), w.secondLanes()}}) {
        const RequestDetail& d = *lanes->request();
        const TrainSchedule& t = train->schedule();
        std::set<std::string> visited;
        for (std::size_t i = 0; i < d.dag.segments.size(); ++i) {
            visited.insert(d.hosts[d.segmentStartHost[i]]);
            visited.insert(d.hosts[d.segmentEndHost[i]]);
        }
        EXPECT_EQ(std::set<std::string>(t.components.begin(), t.components.end()), visited);
        ASSERT_FALSE(t.legs.empty());
        EXPECT_LE(t.legs.size(), d.dag.segments.size()) << "a stay is one leg, never more than its segments";
        TimeNs legTime = 0, segmentTime = 0, criticalLegs = 0;
        for (const TrainLeg& leg : t.legs) {
            legTime += leg.endNs - leg.startNs;
            criticalLegs += leg.critical ? leg.endNs - leg.startNs : 0;
        }
        for (const auto& seg : d.dag.segments) segmentTime += seg.durationNs();
        EXPECT_EQ(legTime, segmentTime) << "the legs cover the segments' time, no more, no less";
        TimeNs criticalTime = 0;
        for (std::size_t i = 0; i < d.dag.segments.size(); ++i) criticalTime += d.critical[i] ? d.dag.segments[i].durationNs() : 0;
        EXPECT_EQ(criticalLegs, criticalTime);
        EXPECT_GE(train->stationY(t.components.size() - 1), train->stationY(0));
    }
    EXPECT_DOUBLE_EQ(w.firstTrain()->spanUs(), w.secondTrain()->spanUs());
    EXPECT_DOUBLE_EQ(w.firstTrain()->spanUs(), std::max(double(w.firstTrain()->schedule().latencyNs), double(w.secondTrain()->schedule().latencyNs)) / 1000.0);
    // View › Local Clocks: both lanes laid out on each host's own clock, on one time axis still; and back.
    w.setLocalClocks(true);
    for (const widgets::WaterfallView* lanes : {w.firstLanes(), w.secondLanes()}) {
        EXPECT_TRUE(lanes->localClocks());
        EXPECT_EQ(test::startsUs(lanes->layout(), *lanes->request()), test::startsUs(widgets::WaterfallLayout::build(*lanes->request(), true), *lanes->request()));
    }
    EXPECT_DOUBLE_EQ(w.firstLanes()->visibleToUs(), w.secondLanes()->visibleToUs());
    w.setLocalClocks(false);
    EXPECT_FALSE(w.firstLanes()->localClocks() || w.secondLanes()->localClocks());
    EXPECT_EQ(test::startsUs(w.firstLanes()->layout(), *w.firstLanes()->request()),
              test::startsUs(widgets::WaterfallLayout::build(*w.firstLanes()->request(), false), *w.firstLanes()->request()));
    // The periods' views: a C² curve per period, a timeline point per request.
    ASSERT_EQ(w.c2Plot()->plot()->graphCount(), 2);
    EXPECT_GT(w.c2Plot()->plot()->graph(0)->dataCount(), 0);
    EXPECT_GT(w.c2Plot()->plot()->graph(1)->dataCount(), 0);
    ASSERT_EQ(w.timeline()->plot()->graphCount(), 2);
    EXPECT_EQ(w.timeline()->plot()->graph(0)->dataCount(), 800);
    EXPECT_EQ(w.timeline()->plot()->graph(1)->dataCount(), 800);
    EXPECT_EQ(w.timeline()->csv().count('\n'), 1601);
    // View › Local Clocks moves the timeline: each point at its request's start on its hosts' recorded clocks,
    // since its period's earliest; and back.
    const RequestCategories& cats = *w.comparison()->categories;
    auto keys = [&](int g) {
        std::vector<double> k;
        for (auto it = w.timeline()->plot()->graph(g)->data()->constBegin(); it != w.timeline()->plot()->graph(g)->data()->constEnd(); ++it)
            k.push_back(it->key);
        return k;
    };
    auto arrivals = [&](const std::vector<std::uint32_t>& entries, const std::vector<TimeNs>& starts) {
        TimeNs first = std::numeric_limits<TimeNs>::max();
        for (auto e : entries) first = std::min(first, starts[e]);
        std::vector<double> x;
        for (auto e : entries) x.push_back(double(starts[e] - first) / 1e9);
        std::sort(x.begin(), x.end());
        return x;
    };
    const std::vector<double> corrected = keys(0);
    EXPECT_EQ(corrected, arrivals(w.comparison()->baselineEntries, cats.startNs));
    w.setLocalClocks(true);
    EXPECT_TRUE(w.timeline()->localClocks());
    ASSERT_EQ(w.timeline()->plot()->graphCount(), 2);
    EXPECT_EQ(keys(0), arrivals(w.comparison()->baselineEntries, cats.localStartNs));
    EXPECT_EQ(keys(1), arrivals(w.comparison()->problemEntries, cats.localStartNs));
    EXPECT_NE(keys(0), corrected) << "the generated hosts' clocks are apart";
    EXPECT_TRUE(w.timeline()->plot()->xAxis->label().contains("own clock")) << w.timeline()->plot()->xAxis->label().toStdString();
    w.setLocalClocks(false);
    EXPECT_EQ(keys(0), corrected);
    EXPECT_EQ(keys(1), arrivals(w.comparison()->problemEntries, cats.startNs));
    EXPECT_FALSE(w.timeline()->plot()->xAxis->label().contains("own clock"));
    const QString png = QDir(QString::fromStdString(f->dir.path().toStdString())).filePath("diff.svg");
    EXPECT_TRUE(widgets::saveWidgetPicture(w.diffGraph(), png));
    EXPECT_GT(QFile(png).size(), 1000);
}

// The Tree tab: the C4.5 tree of the chosen entry over the requests' attributes, and the paper's loop —
// untick an attribute and the tree grows again without it. Storage requests carry op, size and client.
TEST(CompareWorkspace, GrowsTheEntrysTreeAndAgainWithoutAnAttribute) {
    QTemporaryDir dir;
    const std::string db = dir.filePath("storage.tldb").toStdString();
    writeStorageDb(dir, db, samples::StorageChange::MetadataOtherNode, 800);
    auto analysis = loadAnalysed(db);
    ASSERT_TRUE(analysis);
    widgets::CompareWorkspace w;
    w.resize(1400, 800);
    auto session = compareStorage(w, db, analysis, 10);  // 800 requests a period: smaller structural shifts
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(w.comparison()) << w.summaryText().toStdString();
    ASSERT_FALSE(w.comparison()->comparison.entries.empty()) << w.summaryText().toStdString();
    ASSERT_GT(w.treeAttributes()->count(), 0);
    QStringList names;
    for (int i = 0; i < w.treeAttributes()->count(); ++i) names << w.treeAttributes()->item(i)->text();
    EXPECT_TRUE(names.contains("op")) << names.join(',').toStdString();
    const int before = w.treeView()->drawnNodes();
    EXPECT_GE(before, 1);
    // Untick every attribute but one: the tree can test only that one now.
    for (int i = 0; i < w.treeAttributes()->count(); ++i)
        if (w.treeAttributes()->item(i)->text() != "client") w.treeAttributes()->item(i)->setCheckState(Qt::Unchecked);
    ASSERT_TRUE(waitReady(w));
    for (int i = 0; i < w.treeAttributes()->count(); ++i)
        EXPECT_EQ(w.treeAttributes()->item(i)->checkState() == Qt::Checked, w.treeAttributes()->item(i)->text() == "client");
    EXPECT_GE(w.treeView()->drawnNodes(), 1);
}

// Spectroscope lets the developer pick the mutation and the candidate precursor: Compared with lists the entry's
// candidates, closest first; the one picked is drawn side by side (its median baseline request in the swim
// lanes), grows the tree, is marked in the Detail, and is remembered for that entry. The Detail's edge latencies
// give each side's mean ± standard deviation. COMPARE_PRECURSOR_PNG: a picture of the tab with the pick.
TEST(CompareWorkspace, ComparesTheEntryWithTheCandidatePrecursorPicked) {
    QTemporaryDir dir;
    const std::string db = dir.filePath("storage.tldb").toStdString();
    writeStorageDb(dir, db, samples::StorageChange::MetadataOtherNode, 1500);
    auto analysis = loadAnalysed(db);
    ASSERT_TRUE(analysis);
    QSettings().remove("compare/precursors");
    int rank = 0;
    std::uint32_t pickedId = 0;
    {
        widgets::CompareWorkspace w;
        w.resize(1280, 860);
        auto session = compareStorage(w, db, analysis, CompareOptions{}.threshold);
        ASSERT_TRUE(waitReady(w));
        ASSERT_TRUE(w.comparison()) << w.summaryText().toStdString();
        const Comparison& cmp = w.comparison()->comparison;
        for (std::size_t k = 0; k < cmp.entries.size() && !rank; ++k)
            if (cmp.entries[k].kind == CompareEntry::Kind::Structural && cmp.entries[k].precursors.size() >= 2) rank = static_cast<int>(k + 1);
        ASSERT_GT(rank, 0) << "no structural entry with two candidates";
        const CompareEntry& entry = cmp.entries[static_cast<std::size_t>(rank - 1)];
        w.entryTable()->selectRow(rank - 1);
        ASSERT_TRUE(waitReady(w));
        QComboBox* chooser = w.precursorChooser();
        ASSERT_TRUE(chooser->isEnabled());
        ASSERT_EQ(chooser->count(), static_cast<int>(entry.precursors.size()));
        for (int i = 0; i < chooser->count(); ++i)
            EXPECT_EQ(chooser->itemData(i).toUInt(), cmp.categories[entry.precursors[static_cast<std::size_t>(i)].category].id);
        EXPECT_EQ(chooser->currentIndex(), 0);
        const ComparedCategory& picked = cmp.categories[entry.precursors[1].category];
        pickedId = picked.id;
        EXPECT_FALSE(w.graphTitles()->text().contains(QStringLiteral("category %1, baseline").arg(picked.id)));
        chooser->setCurrentIndex(1);
        emit chooser->activated(1);
        ASSERT_TRUE(waitReady(w));
        EXPECT_TRUE(w.graphTitles()->text().contains(QStringLiteral("category %1, baseline").arg(picked.id))) << w.graphTitles()->text().toStdString();
        ASSERT_TRUE(w.secondLanes()->request());
        bool inPicked = false;
        for (auto e : picked.baselineEntries) inPicked = inPicked || w.comparison()->requestIds[e] == w.secondLanes()->request()->id;
        EXPECT_TRUE(inPicked) << "the swim lanes show the picked precursor's representative";
        // The Detail: the picked candidate marked, and the edge latencies of both sides with their spread.
        QTreeWidgetItem *candidates = nullptr, *edges = nullptr;
        for (int i = 0; i < w.detail()->topLevelItemCount(); ++i) {
            QTreeWidgetItem* item = w.detail()->topLevelItem(i);
            if (item->text(0).startsWith("Candidate precursors")) candidates = item;
            if (item->text(0).startsWith("Edge latencies")) edges = item;
        }
        ASSERT_TRUE(candidates && edges);
        ASSERT_EQ(candidates->childCount(), chooser->count());
        EXPECT_FALSE(candidates->child(0)->text(1).contains("compared"));
        EXPECT_TRUE(candidates->child(1)->text(1).contains("compared")) << candidates->child(1)->text(1).toStdString();
        EXPECT_TRUE(candidates->child(1)->font(0).bold());
        ASSERT_GT(edges->childCount(), 3);
        EXPECT_TRUE(edges->child(0)->text(1).contains(QStringLiteral("±"))) << edges->child(0)->text(1).toStdString();
        // The tree grew against the picked precursor's requests.
        EXPECT_GE(w.treeView()->drawnNodes(), 1);
        if (const QByteArray png = qgetenv("COMPARE_PRECURSOR_PNG"); !png.isEmpty()) {
            w.entryViews()->setCurrentIndex(2);
            QTest::qWait(50);
            ASSERT_TRUE(w.grab().save(QString::fromLocal8Bit(png)));
            w.entryViews()->setCurrentIndex(1);
            QTest::qWait(50);
            ASSERT_TRUE(w.grab().save(QString::fromLocal8Bit(png).replace(".png", "-detail.png")));
        }
    }
    // Remembered: the same entry of the same periods opens on the candidate picked.
    widgets::CompareWorkspace again;
    again.resize(1280, 860);
    again.show();
    auto session = test::serveFrom(again, db);
    again.setDatabase(analysis, {"baseline", "problem"});
    again.setPeriods("baseline", "problem");
    ASSERT_TRUE(waitReady(again));
    again.entryTable()->selectRow(rank - 1);
    ASSERT_TRUE(waitReady(again));
    EXPECT_EQ(again.precursorChooser()->currentData().toUInt(), pickedId);
    EXPECT_TRUE(again.graphTitles()->text().contains(QStringLiteral("category %1, baseline").arg(pickedId)));
    // A response-time entry has no precursor to pick.
    const Comparison& cmp = again.comparison()->comparison;
    for (std::size_t k = 0; k < cmp.entries.size(); ++k)
        if (cmp.entries[k].kind == CompareEntry::Kind::ResponseTime) {
            again.entryTable()->selectRow(static_cast<int>(k));
            ASSERT_TRUE(waitReady(again));
            EXPECT_FALSE(again.precursorChooser()->isEnabled());
            break;
        }
    QSettings().remove("compare/precursors");
}

// The category browser: every category of either period with its statistics, ranked or not; choosing one shows
// it in the entry's views (its problem requests against its baseline ones), and an entry chosen again replaces it.
TEST(CompareWorkspace, BrowsesAnyCategoryWithItsStatistics) {
    QTemporaryDir dir;
    const std::string db = dir.filePath("storage.tldb").toStdString();
    writeStorageDb(dir, db, samples::StorageChange::MetadataOtherNode, 1500);
    auto analysis = loadAnalysed(db);
    ASSERT_TRUE(analysis);
    widgets::CompareWorkspace w;
    w.resize(1280, 860);
    auto session = compareStorage(w, db, analysis, CompareOptions{}.threshold);
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(w.comparison());
    const Comparison& cmp = w.comparison()->comparison;
    QTreeWidget* list = w.categories();
    ASSERT_EQ(list->topLevelItemCount(), static_cast<int>(cmp.categories.size()));
    // A category no entry ranks, with requests in both periods, and one the problem period lost entirely.
    std::set<std::uint32_t> ranked;
    for (const auto& e : cmp.entries) ranked.insert(e.category);
    int unranked = -1, baselineOnly = -1;
    for (int row = 0; row < list->topLevelItemCount(); ++row) {
        const std::uint32_t i = list->topLevelItem(row)->data(0, Qt::UserRole).toUInt();
        const ComparedCategory& cc = cmp.categories[i];
        EXPECT_EQ(list->topLevelItem(row)->data(0, Qt::DisplayRole).toUInt(), cc.id);
        EXPECT_EQ(list->topLevelItem(row)->data(1, Qt::DisplayRole).toLongLong(), cc.baseline.count);
        EXPECT_EQ(list->topLevelItem(row)->data(2, Qt::DisplayRole).toLongLong(), cc.problem.count);
        if (cc.baseline.count > 1) { EXPECT_TRUE(list->topLevelItem(row)->text(3).contains(QStringLiteral("±"))); }
        if (!ranked.count(i) && cc.baseline.count > 0 && cc.problem.count > 0 && unranked < 0) unranked = row;
        if (cc.problem.count == 0 && baselineOnly < 0) baselineOnly = row;
    }
    ASSERT_GE(unranked, 0);
    w.entryViews()->setCurrentWidget(list);
    list->setCurrentItem(list->topLevelItem(unranked));
    ASSERT_TRUE(waitReady(w));
    const ComparedCategory& shown = cmp.categories[list->topLevelItem(unranked)->data(0, Qt::UserRole).toUInt()];
    EXPECT_TRUE(w.entryTable()->selectionModel()->selectedRows().isEmpty()) << "no entry stays selected";
    EXPECT_TRUE(w.graphTitles()->text().contains(QStringLiteral("category %1, problem period").arg(shown.id))) << w.graphTitles()->text().toStdString();
    EXPECT_TRUE(w.graphTitles()->text().contains(QStringLiteral("category %1, baseline period").arg(shown.id)));
    EXPECT_TRUE(w.detail()->topLevelItem(0)->text(0).contains(QStringLiteral("Category %1 (browsed)").arg(shown.id)))
        << w.detail()->topLevelItem(0)->text(0).toStdString();
    ASSERT_GT(w.detail()->topLevelItem(0)->childCount(), 0);
    EXPECT_TRUE(w.detail()->topLevelItem(0)->child(0)->text(1).contains(QStringLiteral("±")));
    EXPECT_FALSE(w.precursorChooser()->isEnabled());
    ASSERT_TRUE(w.firstLanes()->request() && w.secondLanes()->request());
    EXPECT_GT(w.firstGraph()->drawnNodes(), 3);
    if (baselineOnly >= 0) {
        list->setCurrentItem(list->topLevelItem(baselineOnly));
        ASSERT_TRUE(waitReady(w));
        EXPECT_EQ(w.firstGraph()->drawnNodes(), 0);
        EXPECT_GT(w.secondGraph()->drawnNodes(), 3);
        EXPECT_TRUE(w.graphTitles()->text().contains("no problem-period requests")) << w.graphTitles()->text().toStdString();
    }
    if (const QByteArray png = qgetenv("COMPARE_CATEGORIES_PNG"); !png.isEmpty()) {
        ASSERT_TRUE(w.grab().save(QString::fromLocal8Bit(png)));
    }
    // An entry chosen again replaces the category.
    w.entryTable()->selectRow(0);
    ASSERT_TRUE(waitReady(w));
    EXPECT_EQ(list->currentItem(), nullptr);
    EXPECT_FALSE(w.detail()->topLevelItem(0)->text(0).contains("browsed"));
}

// Pictures of any database's entry graphs, for the README: COMPARE_DB, COMPARE_BASE, COMPARE_PROBLEM,
// COMPARE_ENTRY (rank, from 1) and COMPARE_OUT (a prefix: -side.png, -diff.png).
// The structural threshold the user chose is remembered; the default is not, so an older version's
// remembered default (50) does not hide today's (10), and a later default reaches users who never chose.
TEST(CompareWorkspace, RemembersOnlyAThresholdTheUserChose) {
    QSettings settings;
    settings.setValue("compare/threshold", 50);  // what the previous version saved on every run
    settings.remove("compare/smThreshold");
    auto f = twoPeriods();
    {
        widgets::CompareWorkspace w;
        EXPECT_EQ(w.findChild<QDoubleSpinBox*>("threshold")->value(), CompareOptions{}.threshold);
        auto session = test::serveFrom(w, f->db);
        w.setDatabase(f->analysis, {"baseline", "problem"});
        w.setPeriods("baseline", "problem");
        ASSERT_TRUE(waitReady(w));
        EXPECT_FALSE(QSettings().contains("compare/smThreshold"));  // the default is not written down
        w.findChild<QDoubleSpinBox*>("threshold")->setValue(30);
        ASSERT_TRUE(waitReady(w));
    }
    EXPECT_EQ(QSettings().value("compare/smThreshold").toInt(), 30);
    widgets::CompareWorkspace again;
    EXPECT_EQ(again.findChild<QDoubleSpinBox*>("threshold")->value(), 30);
    QSettings().remove("compare/smThreshold");
    QSettings().remove("compare/threshold");
}

TEST(CompareWorkspace, RendersTheFlowGraphsOfAnyDatabase) {
    const QByteArray file = qgetenv("COMPARE_DB");
    if (file.isEmpty()) GTEST_SKIP() << "set COMPARE_DB, COMPARE_BASE, COMPARE_PROBLEM, COMPARE_ENTRY and COMPARE_OUT";
    auto store = TraceStore::open(file.toStdString(), TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store);
    auto analysis = loadAnalysis(*store.value());
    ASSERT_TRUE(analysis);
    widgets::CompareWorkspace w;
    w.resize(1280, 860);  // the docs' screenshot size
    w.show();
    const QString base = QString::fromLocal8Bit(qgetenv("COMPARE_BASE")), problem = QString::fromLocal8Bit(qgetenv("COMPARE_PROBLEM"));
    auto session = test::serveFrom(w, file.toStdString());
    w.setDatabase(std::make_shared<const InMemoryAnalysis>(std::move(analysis.value())), {base, problem});
    w.findChild<QDoubleSpinBox*>("threshold")->setValue(CompareOptions{}.threshold);  // the default, whatever a test run left remembered
    w.setPeriods(base, problem);
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(w.comparison()) << w.summaryText().toStdString();
    w.entryTable()->selectRow(std::max(0, qEnvironmentVariableIntValue("COMPARE_ENTRY") - 1));
    ASSERT_TRUE(waitReady(w));
    const QString out = QString::fromLocal8Bit(qgetenv("COMPARE_OUT"));
    w.entryViews()->setCurrentIndex(2);
    QTest::qWait(50);
    ASSERT_TRUE(w.grab().save(out + "-side.png"));
    w.entryViews()->setCurrentIndex(3);
    QTest::qWait(50);
    ASSERT_TRUE(w.grab().save(out + "-diff.png"));
    w.entryViews()->setCurrentIndex(4);
    QTest::qWait(50);
    ASSERT_TRUE(w.grab().save(out + "-c2.png"));
    w.entryViews()->setCurrentIndex(5);
    QTest::qWait(50);
    ASSERT_TRUE(w.grab().save(out + "-timeline.png"));
    w.entryViews()->setCurrentWidget(w.overTime());
    QTest::qWait(50);
    ASSERT_TRUE(w.grab().save(out + "-overtime.png"));
    w.entryViews()->setCurrentIndex(7);
    QTest::qWait(50);
    ASSERT_TRUE(w.grab().save(out + "-lanes.png"));
    w.setLocalClocks(true);  // View › Local Clocks: the lanes and the timeline on each host's own clock
    QTest::qWait(50);
    ASSERT_TRUE(w.grab().save(out + "-lanes-local.png"));
    w.entryViews()->setCurrentIndex(5);
    QTest::qWait(50);
    ASSERT_TRUE(w.grab().save(out + "-timeline-local.png"));
    w.setLocalClocks(false);
    w.entryViews()->setCurrentIndex(8);
    QTest::qWait(50);
    ASSERT_TRUE(w.grab().save(out + "-tree.png"));
}

// A period named after a long file (an import takes the file's name) does not widen the workspace past a
// 1280-pixel window: the period boxes keep their width and say the whole name on hover.
TEST(CompareWorkspace, LongPeriodNamesDoNotWidenTheWindow) {
    auto f = twoPeriods(1);
    widgets::CompareWorkspace w;
    w.show();
    const QString a = QString("TraceTimelineViewer__genaiTestTrace_%1").arg(QString(14, 'a'));
    const QString b = QString("TraceTimelineViewer__genaiTestTrace_%1").arg(QString(14, 'b'));
    auto session = test::serveFrom(w, f->db);
    w.setDatabase(f->analysis, {a, b});
    EXPECT_LT(w.minimumSizeHint().width(), 1200);  // the main window's frame and margins take the rest
    bool named = false;
    for (auto* box : w.findChildren<QComboBox*>()) {
        if (box->currentText() != a) continue;
        QHelpEvent hover(QEvent::ToolTip, QPoint(5, 5), box->mapToGlobal(QPoint(5, 5)));
        QApplication::sendEvent(box, &hover);
        named = QToolTip::text().contains(a) && QToolTip::text().contains("non-problem period");
    }
    EXPECT_TRUE(named) << QToolTip::text().toStdString();
}

TEST(CompareWorkspace, SaysWhyWhenThereIsNothingToCompare) {
    auto f = twoPeriods(1);
    widgets::CompareWorkspace w;
    w.show();
    auto session = test::serveFrom(w, f->db);
    w.setDatabase(f->analysis, {"baseline"});
    EXPECT_TRUE(w.summaryText().contains("one period")) << w.summaryText().toStdString();
    EXPECT_TRUE(w.summaryText().contains("File › Import Traces")) << "where a second period comes from, in the app's terms";
    EXPECT_FALSE(w.comparison());
    w.setDatabase(f->analysis, {});
    EXPECT_TRUE(w.summaryText().contains("no periods")) << w.summaryText().toStdString();
    EXPECT_FALSE(w.summaryText().contains("--period")) << "a command-line flag in the app: " << w.summaryText().toStdString();
    // A period the database does not hold: the core's one-line message.
    w.setDatabase(f->analysis, {"baseline", "gone"});
    w.setPeriods("baseline", "gone");
    ASSERT_TRUE(waitReady(w));
    EXPECT_TRUE(w.summaryText().contains("no period 'gone'")) << w.summaryText().toStdString();
    EXPECT_FALSE(w.comparison());
    w.setPeriods("baseline", "baseline");
    EXPECT_TRUE(w.summaryText().contains("same period")) << w.summaryText().toStdString();
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    // Remembered settings go to a file of this process's own: CTest runs tests side by side, and one
    // test's remembered threshold must not reach another's (seen: RemembersOnlyAThresholdTheUserChose).
    QTemporaryDir config;
    qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
    QApplication app(argc, argv);
    app.setOrganizationName("tracelight-tests");
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

namespace {
// The Online Boutique currencyservice delay (normal minute against the fault minutes) in a database in dir,
// compared in w (served by session), shown; false after a failed expectation.
bool compareCurrencyDelay(widgets::CompareWorkspace& w, const QTemporaryDir& dir, std::unique_ptr<app::Session>& session) {
    const std::string db = dir.filePath("ob.tldb").toStdString();
    if (!test::currencyDelayStore(db)) return false;
    auto store = std::move(TraceStore::open(db, TraceStore::Mode::ReadOnly).value());
    auto analysis = loadAnalysis(*store);
    EXPECT_TRUE(analysis);
    if (!analysis) return false;
    w.show();
    session = test::serveFrom(w, db);
    w.setDatabase(std::make_shared<const InMemoryAnalysis>(std::move(analysis.value())), {"normal", "fault"});
    w.setPeriods("normal", "fault");
    return waitReady(w);
}
} // namespace

// Span data: the summary names the suspects, the injected service first (Online Boutique's currencyservice
// network delay against the normal minute); an event log has none and says nothing of them.
TEST(CompareWorkspace, TheSummaryNamesTheSuspectsOfSpanData) {
    if (!test::haveOnlineBoutique()) GTEST_SKIP() << "no " << test::kOnlineBoutique;
    QTemporaryDir dir;
    widgets::CompareWorkspace w;
    w.resize(1280, 860);
    std::unique_ptr<app::Session> session;
    ASSERT_TRUE(compareCurrencyDelay(w, dir, session));
    ASSERT_TRUE(w.comparison()) << w.summaryText().toStdString();
    ASSERT_FALSE(w.comparison()->suspects.empty());
    EXPECT_EQ(w.comparison()->suspects.front().service, "currencyservice");
    EXPECT_TRUE(w.summaryText().contains("Suspects")) << w.summaryText().toStdString();
    EXPECT_TRUE(w.summaryText().contains("1. <b>currencyservice</b>")) << w.summaryText().toStdString();
    // The tab opens on the Suspects page: each suspect with its evidence beneath; choosing a line of evidence
    // asks for the profile diff of the two periods, searched for its key.
    EXPECT_EQ(w.entryViews()->currentWidget(), w.suspects());
    ASSERT_EQ(w.suspects()->topLevelItemCount(), static_cast<int>(w.comparison()->suspects.size()));
    QTreeWidgetItem* first = w.suspects()->topLevelItem(0);
    EXPECT_EQ(first->text(0), QStringLiteral("1. currencyservice"));
    ASSERT_EQ(first->childCount(), static_cast<int>(w.comparison()->suspects.front().evidence.size()));
    QSignalSpy activated(&w, &widgets::CompareWorkspace::suspectActivated);
    emit w.suspects()->itemActivated(first->child(0), 0);
    ASSERT_EQ(activated.count(), 1);
    EXPECT_EQ(activated.at(0).at(0).toString(), QStringLiteral("normal"));
    EXPECT_EQ(activated.at(0).at(1).toString(), QStringLiteral("fault"));
    EXPECT_EQ(activated.at(0).at(2).toString(), QString::fromStdString(w.comparison()->suspects.front().evidence.front().key));
    // Its menu opens the problem requests with the most time in it, the slowest first.
    const SuspectEvidence& strongest = w.comparison()->suspects.front().evidence.front();
    ASSERT_FALSE(strongest.examples.empty());
    auto menu = w.suspects()->requestMenu(first->child(0));
    ASSERT_TRUE(menu);
    QList<QAction*> opens;
    for (QAction* a : menu->actions())
        if (!a->isSeparator()) opens << a;
    ASSERT_EQ(opens.size(), static_cast<int>(strongest.examples.size()));
    QSignalSpy opened(&w, &widgets::CompareWorkspace::requestActivated);
    opens.front()->trigger();
    ASSERT_EQ(opened.count(), 1);
    EXPECT_EQ(opened.at(0).at(0).value<RequestId>(), strongest.examples.front());

    auto f = twoPeriods();
    widgets::CompareWorkspace events;
    auto eventsSession = test::serveFrom(events, f->db);
    events.setDatabase(f->analysis, {"baseline", "problem"});
    events.setPeriods("baseline", "problem");
    ASSERT_TRUE(waitReady(events));
    ASSERT_TRUE(events.comparison());
    EXPECT_TRUE(events.comparison()->suspects.empty());
    EXPECT_FALSE(events.summaryText().contains("Suspects"));
    EXPECT_NE(events.entryViews()->currentWidget(), events.suspects());
    ASSERT_EQ(events.suspects()->topLevelItemCount(), 1);  // the line that says why there is none
    EXPECT_TRUE(events.suspects()->topLevelItem(0)->text(0).startsWith("No suspect"));
}

// On span data the entries are named by their request type (the request list's operation and usual span count,
// not the shared "frontend:…Recv.:start"), the ranking column is in view at 1280 px, p-values never read "0",
// and Side by side opens with the first red-bordered node of each graph in view.
TEST(CompareWorkspace, SpanEntriesAreNamedAndTheirGraphsOpenOnWhatChanged) {
    EXPECT_EQ(widgets::formatProbability(0.0), QStringLiteral("< 1e-300"));
    EXPECT_EQ(widgets::formatProbability(3.6e-63), QStringLiteral("3.6e-63"));
    EXPECT_EQ(widgets::formatProbability(0.0134), QStringLiteral("0.0134"));
    if (!test::haveOnlineBoutique()) GTEST_SKIP() << "no " << test::kOnlineBoutique;
    QTemporaryDir dir;
    widgets::CompareWorkspace w;
    w.resize(1280, 560);
    std::unique_ptr<app::Session> session;
    ASSERT_TRUE(compareCurrencyDelay(w, dir, session));
    ASSERT_TRUE(w.comparison());
    auto* model = w.entryTable()->model();
    ASSERT_GT(model->rowCount(), 1);
    for (int r = 0; r < model->rowCount(); ++r) {
        const QString type = model->index(r, widgets::CompareEntryModel::RequestType).data(Qt::ToolTipRole).toString();
        EXPECT_TRUE(type.contains(QStringLiteral(" spans"))) << type.toStdString();
        EXPECT_FALSE(type.contains(QStringLiteral(":start"))) << type.toStdString();
    }
    QTableView* table = w.entryTable();
    const int right = table->columnViewportPosition(widgets::CompareEntryModel::Contribution) +
                      table->columnWidth(widgets::CompareEntryModel::Contribution);
    EXPECT_LE(right, table->viewport()->width()) << "the ranking column in view";
    // The request type, elided in the middle, ends at the pane's edge rather than being cut by it.
    const int typeRight = table->columnViewportPosition(widgets::CompareEntryModel::RequestType) +
                          table->columnWidth(widgets::CompareEntryModel::RequestType);
    EXPECT_LE(typeRight, table->viewport()->width()) << "the request type column cut at the edge";
    EXPECT_GE(table->columnWidth(widgets::CompareEntryModel::RequestType), 100);
    w.entryViews()->setCurrentIndex(2);  // Side by side
    ASSERT_TRUE(waitReady(w));
    QTest::qWait(100);
    for (widgets::FlowGraphView* graph : {w.firstGraph(), w.secondGraph()}) {
        auto* area = qobject_cast<QScrollArea*>(graph->parentWidget()->parentWidget());
        ASSERT_TRUE(area);
        bool redInView = false;
        const QRect visible(area->horizontalScrollBar()->value(), area->verticalScrollBar()->value(), area->viewport()->width(),
                            area->viewport()->height());
        for (std::size_t i = 0; i < static_cast<std::size_t>(graph->drawnNodes()) + 64; ++i)
            if (graph->isChangedNode(i) && visible.contains(graph->nodeCenter(i).toPoint())) redInView = true;
        EXPECT_TRUE(redInView);
    }
}


// The Paper toggle: Spectroscope's own statistics, with its threshold of 50 unless the user chose another;
// uncorrected tests find at least what the corrected ones do, and the A/A says what chance adds. It is
// remembered, and it and Benjamini-Hochberg exclude each other.
TEST(CompareWorkspace, ThePaperToggleUsesThePapersStatisticsAndThreshold) {
    QSettings().remove("compare/paper");
    QSettings().remove("compare/smThreshold");
    auto f = twoPeriods();
    {
        widgets::CompareWorkspace w;
        w.resize(1280, 700);
        w.show();
        auto session = test::serveFrom(w, f->db);
        w.setDatabase(f->analysis, {"baseline", "problem"});
        w.setPeriods("baseline", "problem");
        ASSERT_TRUE(waitReady(w));
        ASSERT_TRUE(w.comparison());
        const std::size_t corrected = w.comparison()->comparison.entries.size();
        w.paperStatistics()->setChecked(true);
        ASSERT_TRUE(waitReady(w));
        EXPECT_EQ(w.findChild<QDoubleSpinBox*>("threshold")->value(), CompareOptions::kPaperThreshold);
        for (QCheckBox* box : w.findChildren<QCheckBox*>())
            if (box->text().contains("Benjamini")) {
                EXPECT_FALSE(box->isEnabled());
            }
        ASSERT_TRUE(w.comparison());
        EXPECT_GE(w.comparison()->comparison.entries.size(), corrected);
        // The p column says what it holds: uncorrected, not adjusted over the categories.
        const QString pTip = w.entryTable()->model()->headerData(widgets::CompareEntryModel::PValue, Qt::Horizontal, Qt::ToolTipRole).toString();
        EXPECT_TRUE(pTip.contains("uncorrected")) << pTip.toStdString();
        EXPECT_FALSE(pTip.contains("Holm")) << pTip.toStdString();
        if (const QByteArray png = qgetenv("COMPARE_PAPER_PNG"); !png.isEmpty()) {
            ASSERT_TRUE(w.grab().save(QString::fromLocal8Bit(png)));
        }
    }
    widgets::CompareWorkspace again;
    EXPECT_TRUE(again.paperStatistics()->isChecked());
    again.paperStatistics()->setChecked(false);
    EXPECT_EQ(again.findChild<QDoubleSpinBox*>("threshold")->value(), CompareOptions{}.threshold);
    QSettings().remove("compare/paper");
}

// The Over time view's A/A by user: with an attribute chosen, the baseline's halves are its users' (every request
// of one client in the same half), as splitByUser makes them, and asked for again when the choice changes.
TEST(CompareWorkspace, OverTimeSplitsTheBaselinesUsersWhenAnAttributeIsChosen) {
    QTemporaryDir dir;
    const std::string db = dir.filePath("storage.tldb").toStdString();
    writeStorageDb(dir, db, samples::StorageChange::MetadataOtherNode, 800);
    auto analysis = loadAnalysed(db);
    ASSERT_TRUE(analysis);
    widgets::CompareWorkspace w;
    w.resize(1280, 860);
    w.setAttributeKeys({"client", "op"});
    auto session = compareStorage(w, db, analysis, 10);
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(w.comparison());
    auto* splitBy = w.overTime()->findChild<QComboBox*>(QStringLiteral("overTimeSplitBy"));
    ASSERT_TRUE(splitBy);
    ASSERT_EQ(splitBy->count(), 3);  // by request, client, op
    splitBy->setCurrentIndex(1);
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(w.overTime()->result());
    auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store);
    const PeriodComparison& pc = *w.comparison();
    const std::vector<std::string> clients = attributeValues(*store.value(), pc.requestIds, "client");
    std::vector<std::string> baseline;
    for (auto e : pc.baselineEntries) baseline.push_back(clients[e]);
    const UserSplit split = splitByUser(baseline, pc.options.aaSeed);
    std::int64_t a = 0, b = 0;
    for (const TimeBucket& t : w.overTime()->result()->aa.buckets) a += t.requestsA, b += t.requestsB;
    EXPECT_EQ(a, split.requestsA);
    EXPECT_EQ(b, split.requestsB);
    EXPECT_GT(split.usersA, 0);
    EXPECT_GT(split.usersB, 0);
}

// The data replaced under the tab (a reload, a live capture's refresh): the comparison runs again and the entry
// that was shown stays shown when it is still ranked, instead of the first one.
TEST(CompareWorkspace, TheEntryShownStaysShownWhenTheDataIsReplaced) {
    QTemporaryDir dir;
    const std::string db = dir.filePath("storage.tldb").toStdString();
    writeStorageDb(dir, db, samples::StorageChange::MetadataOtherNode, 1500);
    auto analysis = loadAnalysed(db);
    ASSERT_TRUE(analysis);
    widgets::CompareWorkspace w;
    w.resize(1280, 860);
    auto session = compareStorage(w, db, analysis, CompareOptions{}.threshold);
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(w.comparison());
    ASSERT_GE(w.entryTable()->model()->rowCount(), 3);
    w.entryTable()->selectRow(2);
    const auto shownKey = [&] {
        const QModelIndex current = w.entryTable()->currentIndex();
        const CompareEntry* e = current.isValid() ? &w.comparison()->comparison.entries[static_cast<std::size_t>(
                                                        qobject_cast<const QSortFilterProxyModel*>(w.entryTable()->model())->mapToSource(current).row())]
                                                  : nullptr;
        return e ? std::pair{e->kind, w.comparison()->comparison.categories[e->category].hash} : std::pair{CompareEntry::Kind::ResponseTime, std::uint64_t(0)};
    };
    const auto before = shownKey();
    ASSERT_NE(before.second, 0u);
    w.setDatabase(analysis, {"baseline", "problem"});  // as the window does after each analysis
    ASSERT_TRUE(waitReady(w));
    ASSERT_TRUE(w.comparison());
    EXPECT_EQ(shownKey(), before);
    EXPECT_NE(w.entryTable()->currentIndex().row(), 0);
}
