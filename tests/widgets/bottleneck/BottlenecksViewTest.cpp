// The Bottlenecks tab over a generated database: its ranked table (shares adding up to 1, sortable), the
// bars and the pie, the trend's buckets, a click on the latency scatter opening a request of the data, a
// period and a stratum, and the message for an empty selection. BOTTLENECKS_PNG=F.png (with BOTTLENECKS_DB
// naming any analysed database, else the generated one) saves the view as a picture for the README.
#include <gtest/gtest.h>

#include <QDateTime>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimeZone>
#include <limits>

#include <QApplication>
#include <sqlite3.h>
#include <random>
#include <QComboBox>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include "StoreAccess.h"
#include "bottleneck/BottleneckCharts.h"
#include "bottleneck/BottleneckPie.h"
#include "bottleneck/BottlenecksView.h"
#include "bottleneck/BurstView.h"
#include "bottleneck/MultiRequestWaterfall.h"
#include "tracelight/analysis/TraceData.h"
#include "tracelight/bottleneck/BurstTimelines.h"
#include "tracelight/bottleneck/BurstWindows.h"
#include "core/GeneratedPeriods.h"
#include "tracelight/store/HostActivityStore.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include "../ServedViews.h"

using namespace tracelight;

namespace {

bool waitReady(widgets::BottlenecksView& v) { return QTest::qWaitFor([&] { return !v.isComputing(); }, 120000); }

double shareSum(const QTableWidget* table) {
    double sum = 0;
    for (int r = 0; r < table->rowCount(); ++r) sum += table->item(r, widgets::BottlenecksView::ShareColumn)->data(Qt::UserRole).toDouble();
    return sum;
}

} // namespace

TEST(BottlenecksView, TableChartsTrendAndScatterClick) {
    QTemporaryDir dir;
    const std::string db = dir.filePath("b.tldb").toStdString();
    auto analysis = test::analysedPeriods(db, 300, 6.0);
    widgets::BottlenecksView view;
    view.resize(1400, 850);
    view.show();
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis, {"baseline", "problem"}, {});
    ASSERT_TRUE(waitReady(view));
    ASSERT_NE(view.trend(), nullptr) << view.statusText().toStdString();
    EXPECT_TRUE(view.statusText().contains("600 requests")) << view.statusText().toStdString();

    // The table: one row per type, the largest share first, shares adding up to 1, how-to-fix filled.
    QTableWidget* table = view.table();
    ASSERT_EQ(table->rowCount(), static_cast<int>(view.trend()->all.types.size()));
    ASSERT_GE(table->rowCount(), 3);
    EXPECT_NEAR(shareSum(table), 1.0, 1e-9);
    for (int r = 1; r < table->rowCount(); ++r)
        EXPECT_GE(table->item(r - 1, 1)->data(Qt::UserRole).toDouble(), table->item(r, 1)->data(Qt::UserRole).toDouble()) << r;
    EXPECT_EQ(table->item(0, 0)->text().toStdString(), view.trend()->all.types.front().name);
    for (int r = 0; r < table->rowCount(); ++r) EXPECT_FALSE(table->item(r, widgets::BottlenecksView::HowToFixColumn)->text().isEmpty()) << r;
    // Sorting by name and back by the number (not the text: "9.5 %" below "10 %").
    table->sortByColumn(widgets::BottlenecksView::MeanColumn, Qt::AscendingOrder);
    for (int r = 1; r < table->rowCount(); ++r)
        EXPECT_LE(table->item(r - 1, 2)->data(Qt::UserRole).toDouble(), table->item(r, 2)->data(Qt::UserRole).toDouble()) << r;

    // Bars and pie: one per type; the trend: at least four buckets, one stacked series per type.
    EXPECT_EQ(view.sharePlot()->plottableCount(), table->rowCount());
    EXPECT_EQ(static_cast<int>(view.pie()->slices().size()), table->rowCount());
    ASSERT_GE(view.trend()->buckets.size(), 4u);
    EXPECT_EQ(view.trendPlot()->plottableCount(), table->rowCount());
    EXPECT_GT(view.trendPlot()->plottable(0)->interface1D()->dataCount(), 3);

    // A click on a point of the scatter opens that request, one of the data's.
    QCustomPlot* scatter = view.scatterPlot();
    ASSERT_EQ(scatter->plottableCount(), 1);
    ASSERT_EQ(scatter->plottable(0)->interface1D()->dataCount(), 600);
    const BottleneckTrend& trend = *view.trend();
    const std::size_t slowest = static_cast<std::size_t>(std::max_element(trend.latencyNs.begin(), trend.latencyNs.end()) - trend.latencyNs.begin());
    const QPoint at(static_cast<int>(std::lround(scatter->xAxis->coordToPixel(double(trend.startNs[slowest]) / 1e9))),
                    static_cast<int>(std::lround(scatter->yAxis->coordToPixel(double(trend.latencyNs[slowest]) / 1e6))));
    QSignalSpy activated(&view, &widgets::BottlenecksView::requestActivated);
    QTest::mouseClick(scatter, Qt::LeftButton, {}, at);
    ASSERT_EQ(activated.count(), 1);
    const auto id = activated.at(0).at(0).value<RequestId>();
    // The request drawn under the click (the two generated periods share start times, so points can coincide).
    std::size_t clicked = trend.rows.size();
    for (std::size_t i = 0; i < trend.rows.size(); ++i)
        if (analysis->data.requestIds[trend.rows[i]].value == id.value) clicked = i;
    ASSERT_LT(clicked, trend.rows.size());
    EXPECT_NEAR(scatter->xAxis->coordToPixel(double(trend.startNs[clicked]) / 1e9), at.x(), 1.5);
    EXPECT_NEAR(scatter->yAxis->coordToPixel(double(trend.latencyNs[clicked]) / 1e6), at.y(), 1.5);
    // Far from every point nothing opens.
    QTest::mouseClick(scatter, Qt::LeftButton, {}, QPoint(scatter->axisRect()->left() + 2, scatter->axisRect()->top() + 2));
    EXPECT_EQ(activated.count(), 1);

    // One period: half the requests; shares still add up to 1.
    view.setPeriod("problem");
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.statusText().contains("300 requests")) << view.statusText().toStdString();
    EXPECT_NEAR(shareSum(view.table()), 1.0, 1e-9);
}

// The Latency choice: the slowest 10 % of the period's 300 requests are 30, none faster than the rest's slowest;
// a range typed in works the same; a bad one is named in the status line. Compare with: the before column, the
// change and the A/A beside each type, and the status line's verdict.
TEST(BottlenecksView, LatencySliceAndBeforeAfter) {
    QTemporaryDir dir;
    const std::string db = dir.filePath("l.tldb").toStdString();
    auto analysis = test::analysedPeriods(db, 300, 6.0);
    widgets::BottlenecksView view;
    view.resize(1400, 850);
    view.show();
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis, {"baseline", "problem"}, {});
    ASSERT_TRUE(waitReady(view));
    view.setPeriod("problem");
    ASSERT_TRUE(waitReady(view));
    ASSERT_NE(view.trend(), nullptr);
    const std::vector<TimeNs> all = view.trend()->latencyNs;
    ASSERT_EQ(all.size(), 300u);

    view.setLatencyPercentile("90..100");
    ASSERT_TRUE(waitReady(view));
    ASSERT_NE(view.trend(), nullptr) << view.statusText().toStdString();
    EXPECT_EQ(view.trend()->all.requests, 30);
    EXPECT_TRUE(view.statusText().contains("latency percentiles 90..100: 30 of 300 requests")) << view.statusText().toStdString();
    std::vector<TimeNs> sorted = all;
    std::sort(sorted.rbegin(), sorted.rend());
    for (TimeNs l : view.trend()->latencyNs) EXPECT_GE(l, sorted[29]);
    EXPECT_NEAR(shareSum(view.table()), 1.0, 1e-9);
    EXPECT_TRUE(view.table()->isColumnHidden(widgets::BottlenecksView::ChangeColumn));

    view.setLatencyPercentile("25..75");  // typed: not one of the listed choices
    ASSERT_TRUE(waitReady(view));
    ASSERT_NE(view.trend(), nullptr) << view.statusText().toStdString();
    EXPECT_EQ(view.trend()->all.requests, 150);
    view.setLatencyPercentile("95..90");
    ASSERT_TRUE(waitReady(view));
    EXPECT_EQ(view.trend(), nullptr);
    EXPECT_TRUE(view.statusText().contains("LO must be below HI")) << view.statusText().toStdString();

    // Before and after: the problem's requests against the baseline's.
    view.setLatencyPercentile("");
    ASSERT_TRUE(waitReady(view));
    view.setCompareWith("baseline");
    ASSERT_TRUE(waitReady(view));
    ASSERT_NE(view.comparison(), nullptr) << view.statusText().toStdString();
    EXPECT_EQ(view.comparison()->changes.baseRequests, 300);
    EXPECT_GE(view.comparison()->changes.significantTypes, 1);
    EXPECT_FALSE(view.table()->isColumnHidden(widgets::BottlenecksView::ChangeColumn));
    EXPECT_TRUE(view.statusText().contains("changed significantly")) << view.statusText().toStdString();
    EXPECT_TRUE(view.statusText().contains("A/A")) << view.statusText().toStdString();
    // The table's change column is each type's problem mean minus its baseline mean.
    QTableWidget* table = view.table();
    for (int r = 0; r < table->rowCount(); ++r) {
        const std::string name = table->item(r, widgets::BottlenecksView::TypeColumn)->text().toStdString();
        for (const auto& c : view.comparison()->changes.types)
            if (c.name == name) {
                EXPECT_NEAR(table->item(r, widgets::BottlenecksView::ChangeColumn)->data(Qt::UserRole).toDouble(), c.problemMeanNs - c.baseMeanNs, 1e-6)
                    << name;
            }
    }
    if (const QByteArray png = qgetenv("BEFORE_AFTER_PNG"); !png.isEmpty()) { ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png))); }
    view.setCompareWith("");
    ASSERT_TRUE(waitReady(view));
    EXPECT_EQ(view.comparison(), nullptr);
    EXPECT_TRUE(view.table()->isColumnHidden(widgets::BottlenecksView::ChangeColumn));
}

TEST(BottlenecksView, SliceByAStratumAndEmptyMessages) {
    QTemporaryDir dir;
    const std::string db = dir.filePath("s.tldb").toStdString();
    auto analysis = test::analysedPeriods(db, 200, 1.0, 1);
    widgets::BottlenecksView view;
    view.resize(1200, 800);
    view.show();

    // Not analysed (no analysis given): a clear message, nothing drawn.
    auto session = test::serveFrom(view, db);
    view.setDatabase(nullptr, {}, {});
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.statusText().contains("analysed database")) << view.statusText().toStdString();
    EXPECT_EQ(view.table()->rowCount(), 0);

    // A stratum no request has (the generated events carry no browser): a message naming it, nothing drawn.
    view.setDatabase(analysis, {"baseline"}, {"browser"});
    ASSERT_TRUE(waitReady(view));
    ASSERT_NE(view.trend(), nullptr);
    view.setSliceBy("browser", "no-such-browser");
    ASSERT_TRUE(waitReady(view));
    EXPECT_EQ(view.trend(), nullptr);
    EXPECT_TRUE(view.statusText().contains("No analysed request")) << view.statusText().toStdString();
    EXPECT_EQ(view.table()->rowCount(), 0);
}

// A slice shown whole (no single stratum chosen): its strata side by side, one bar per stratum whose types'
// shares add up to 100 %, where the pie was; one stratum chosen: the pie again.
TEST(BottlenecksView, StrataSideBySide) {
    QTemporaryDir dir;
    const std::string db = dir.filePath("strata.tldb").toStdString();
    auto analysis = test::analysedPeriods(db, 150, 1.0, 1);
    {
        // A browser per request (the generated events carry none): every third Firefox.
        auto store = TraceStore::open(db, TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(store) << store.message();
        sqlite3* sql = test::StoreAccess::db(*store.value());
        ASSERT_EQ(sqlite3_exec(sql,
                               "INSERT INTO labels(id, text) VALUES(900001, 'browser'), (900002, 'Chrome'), (900003, 'Firefox');"
                               "INSERT INTO request_attrs(request_id, key_id, value_id) "
                               "SELECT id, 900001, CASE WHEN id % 3 = 0 THEN 900003 ELSE 900002 END FROM requests;",
                               nullptr, nullptr, nullptr),
                  SQLITE_OK)
            << sqlite3_errmsg(sql);
    }
    widgets::BottlenecksView view;
    view.resize(1400, 850);
    view.show();
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis, {"baseline"}, {"browser"});
    ASSERT_TRUE(waitReady(view));
    EXPECT_FALSE(view.strataPlot()->isVisible());
    view.setSliceBy("browser");
    ASSERT_TRUE(waitReady(view));
    ASSERT_TRUE(view.strataPlot()->isVisible());
    EXPECT_FALSE(view.pie()->isVisible());
    QCustomPlot* plot = view.strataPlot();
    ASSERT_GE(plot->plottableCount(), 2);
    // Per stratum (key 0 and 1), the stacked shares add up to 100 %.
    for (double key : {0.0, 1.0}) {
        double sum = 0;
        for (int i = 0; i < plot->plottableCount(); ++i) {
            auto* bars = qobject_cast<QCPBars*>(plot->plottable(i));
            ASSERT_TRUE(bars);
            for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
                if (it->key == key) sum += it->value;
        }
        EXPECT_NEAR(sum, 100.0, 1e-6) << "stratum " << key;
    }
    if (const QByteArray png = qgetenv("STRATA_PNG"); !png.isEmpty()) { ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png))); }
    view.setSliceBy("browser", "Firefox");
    ASSERT_TRUE(waitReady(view));
    EXPECT_FALSE(view.strataPlot()->isVisible());
    EXPECT_TRUE(view.pie()->isVisible());
    EXPECT_TRUE(view.statusText().contains("50 requests")) << view.statusText().toStdString();
}

// Requests that all start within one millisecond (one request, say) make one bucket: the time axis still
// reads as distinct times, not one label repeated at every tick.
TEST(BottlenecksView, TrendOfOneInstantHasDistinctTimeLabels) {
    BottleneckTrend trend;
    trend.bucketing = {1000000, "1 ms"};
    const TimeNs start = TimeNs(1700000000) * 1000000000 + 400000000;  // 2023-11-14 22:13:20.400 UTC
    trend.bucketStartNs = {start};
    BottleneckSummary bucket;
    bucket.requests = 1;
    bucket.types.push_back({"frontend", "", 5000000, 5e6, 1.0, 0});
    trend.buckets = {bucket};
    trend.all = bucket;
    QCustomPlot plot;
    plot.resize(700, 300);
    widgets::drawContributionTrend(&plot, trend, widgets::bottleneckTypeColours(trend.all));
    plot.replot();
    const QVector<QString> labels = plot.xAxis->tickVectorLabels();
    ASSERT_GE(labels.size(), 2);
    for (int i = 1; i < labels.size(); ++i) EXPECT_NE(labels[i].toStdString(), labels[i - 1].toStdString());
    EXPECT_LE(plot.xAxis->range().lower, double(start / 1000000000) + 0.4);  // the bucket is in view
    EXPECT_GE(plot.xAxis->range().upper, double(start / 1000000000) + 0.401);
    // The latency scatter beside it: two requests a millisecond apart.
    trend.rows = {0, 1};
    trend.startNs = {start, start + 1000000};
    trend.latencyNs = {5000000, 6000000};
    QCustomPlot scatter;
    scatter.resize(700, 300);
    widgets::drawLatencyScatter(&scatter, trend);
    scatter.replot();
    const QVector<QString> scatterLabels = scatter.xAxis->tickVectorLabels();
    ASSERT_GE(scatterLabels.size(), 2);
    for (int i = 1; i < scatterLabels.size(); ++i) EXPECT_NE(scatterLabels[i].toStdString(), scatterLabels[i - 1].toStdString());
}

// Not a check: BOTTLENECKS_PNG=out.png [BOTTLENECKS_DB=any.tldb] [BOTTLENECKS_SLICE=ATTR[=VALUE]] renders the
// view for the README.
// The share written at each bar's end stays inside the chart however narrow it is laid out ("62.3 %" was
// cut to "62.3" at the width the Bottlenecks tab gives it in a 1280-pixel window).
TEST(BottleneckCharts, ShareLabelsFitAtTheBarsEnds) {
    BottleneckSummary summary;
    summary.requests = 10;
    for (auto [name, share] : std::vector<std::pair<std::string, double>>{{"frontend → currencyservice", 0.623}, {"productcatalogservice", 0.2}, {"gaps", 0.177}})
        summary.types.push_back({name, "", 0, 0, share, 0});
    for (int width : {300, 420, 900}) {
        QCustomPlot plot;
        plot.resize(width, 220);
        plot.show();
        widgets::drawShareBars(&plot, summary, widgets::bottleneckTypeColours(summary), 6);
        QFontMetrics metrics(plot.font());
        for (int i = 0; i < plot.itemCount(); ++i) {
            auto* label = qobject_cast<QCPItemText*>(plot.item(i));
            if (!label) continue;
            const double right = label->position->pixelPosition().x() + metrics.horizontalAdvance(label->text());
            EXPECT_LE(right, plot.axisRect()->right() + 4) << width << " px: " << label->text().toStdString();
        }
    }
}

// Two periods a day apart, in hourly buckets: the time axes' labels ("08-22 06:00") must not run into each other
// however narrow the chart (the trend shares its width with its legend).
TEST(BottleneckCharts, TimeLabelsDoNotOverlap) {
    constexpr TimeNs hour = 3600LL * 1000000000;
    const TimeNs start = 1661146800LL * 1000000000;  // 2022-08-22 05:40 UTC
    BottleneckTrend trend;
    trend.all.requests = 4;
    trend.all.types.push_back({"frontend", "", 0, 0, 1.0, 0});
    trend.bucketing.sizeNs = hour;
    for (int h = 0; h <= 36; ++h) {
        trend.bucketStartNs.push_back(start + h * hour);
        BottleneckSummary bucket;
        if (h == 0 || h == 36) bucket = trend.all;
        trend.buckets.push_back(bucket);
    }
    constexpr TimeNs tenMinutes = 600LL * 1000000000;
    for (TimeNs at : {start, start + tenMinutes, start + 36 * hour, start + 36 * hour + tenMinutes}) {
        trend.rows.push_back(static_cast<std::uint32_t>(trend.rows.size()));
        trend.startNs.push_back(at);
        trend.latencyNs.push_back(100000000);
    }
    for (int width : {380, 520, 900}) {
        QCustomPlot bars, points;
        for (QCustomPlot* plot : {&bars, &points}) {
            plot->resize(width, 240);
            plot->show();
        }
        widgets::drawContributionTrend(&bars, trend, widgets::bottleneckTypeColours(trend.all));
        widgets::drawLatencyScatter(&points, trend);
        for (QCustomPlot* plot : {&bars, &points}) {
            plot->replot();
            QCPAxis* axis = plot->xAxis;
            const QFontMetrics metrics(axis->tickLabelFont());
            double previousRight = -1e9;
            const QVector<double> at = axis->tickVector();
            const QVector<QString> labels = axis->tickVectorLabels();
            ASSERT_EQ(at.size(), labels.size());
            for (int i = 0; i < at.size(); ++i) {
                if (!axis->range().contains(at[i])) continue;
                const double middle = axis->coordToPixel(at[i]), half = metrics.horizontalAdvance(labels[i]) / 2.0;
                EXPECT_GT(middle - half, previousRight) << width << " px: '" << labels[i].toStdString() << "' runs into the label before it";
                previousRight = middle + half;
            }
        }
    }
}

TEST(BottlenecksView, RenderForTheReadme) {
    const QByteArray png = qgetenv("BOTTLENECKS_PNG");
    if (png.isEmpty()) GTEST_SKIP() << "set BOTTLENECKS_PNG (and BOTTLENECKS_DB) to render";
    QTemporaryDir dir;
    std::string db = qEnvironmentVariable("BOTTLENECKS_DB").toStdString();
    std::shared_ptr<const InMemoryAnalysis> analysis;
    QStringList periods, keys;
    if (db.empty()) {
        db = dir.filePath("r.tldb").toStdString();
        analysis = test::analysedPeriods(db, 600, 6.0);
    } else {
        auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
        ASSERT_TRUE(store) << store.message();
        auto loaded = loadAnalysis(*store.value());
        ASSERT_TRUE(loaded) << loaded.message();
        analysis = std::make_shared<const InMemoryAnalysis>(std::move(loaded.value()));
        for (const auto& key : attributeKeys(*store.value())) keys << QString::fromStdString(key);
    }
    widgets::BottlenecksView view;
    view.resize(qEnvironmentVariableIntValue("BOTTLENECKS_WIDTH") > 0 ? qEnvironmentVariableIntValue("BOTTLENECKS_WIDTH") : 1500,
                qEnvironmentVariableIntValue("BOTTLENECKS_HEIGHT") > 0 ? qEnvironmentVariableIntValue("BOTTLENECKS_HEIGHT") : 900);
    view.show();
    auto session = test::serveFrom(view, db);
    view.setDatabase(analysis, periods, keys);
    ASSERT_TRUE(waitReady(view));
    // BOTTLENECKS_SLICE=ATTR or ATTR=VALUE: one stratum of that attribute.
    if (const QString slice = qEnvironmentVariable("BOTTLENECKS_SLICE"); !slice.isEmpty()) {
        view.setSliceBy(slice.section('=', 0, 0), slice.section('=', 1));
        ASSERT_TRUE(waitReady(view));
        EXPECT_GT(view.strataChooser()->count(), 1);
    }
    ASSERT_NE(view.trend(), nullptr) << view.statusText().toStdString();
    ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png)));
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// ---- the Bursts tab (issue 14: step through burst windows, each window's requests drawn together) ----

namespace {

// Requests started only while (mask & wall_ms) == mask (0x3c0: 64 ms windows every 1,024 ms), two tasks
// each (web, then db inside it), on true clocks.
std::shared_ptr<const InMemoryAnalysis> burstyAnalysis(std::uint64_t mask, int requests) {
    constexpr std::int64_t kEpochMs = 1'793'491'200'000;
    TraceDataBuilder b;
    enum : std::uint32_t { Web = 1, Db, S, E, Q, R, WebHost, DbHost };
    for (auto [id, text] : {std::pair{Web, "web"}, {Db, "db"}, {S, "S"}, {E, "E"}, {Q, "Q"}, {R, "R"}, {WebHost, "web-1"}, {DbHost, "db-1"}})
        b.setLabel(id, text);
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<std::int64_t> when(0, 60'000);
    std::vector<std::int64_t> starts;
    while (static_cast<int>(starts.size()) < requests) {
        const std::int64_t ms = kEpochMs + when(rng);
        if ((static_cast<std::uint64_t>(ms) & mask) == mask) starts.push_back(ms);
    }
    std::sort(starts.begin(), starts.end());
    for (int i = 0; i < requests; ++i) {
        const TimeNs t = starts[static_cast<std::size_t>(i)] * 1'000'000 + 100'000;
        b.beginRequest(RequestId(static_cast<std::uint32_t>(i + 1)));
        b.addEvent(Web, S, WebHost, t);
        b.addEvent(Web, E, WebHost, t + 3'000'000);
        b.addEvent(Db, Q, DbHost, t + 1'000'000);
        b.addEvent(Db, R, DbHost, t + 2'000'000);
    }
    auto analysis = analyzeInMemory(b.finish(), AnalysisOptions{});
    return analysis ? std::make_shared<const InMemoryAnalysis>(std::move(analysis.value())) : nullptr;
}

bool waitBursts(widgets::BurstView& v) { return QTest::qWaitFor([&] { return !v.isComputing(); }, 60000); }

} // namespace

// New data drops what was asked of the old: a window's timelines cancelled with its database (the session cancels
// every lane when another opens) leave the view waiting for nothing once data without windows arrives.
TEST(BurstView, NewDataDropsWhatWasAskedOfTheOld) {
    widgets::BurstView view;
    auto session = test::served(view);
    view.setDatabase(burstyAnalysis(0x3C0, 120), {});
    ASSERT_TRUE(waitBursts(view));
    view.showWindow(1);  // its timelines asked for ...
    session->cancelDatabaseWork();  // ... and cancelled, as opening another database does
    view.setDatabase(burstyAnalysis(0, 80), {});  // no windows: nothing more is asked
    EXPECT_TRUE(waitBursts(view));
}

TEST(BurstView, StepsThroughTheWindowsAndOpensARequest) {
    auto analysis = burstyAnalysis(0x3C0, 120);
    ASSERT_TRUE(analysis);
    const BurstWindows truth = burstWindows(requestStartsNs(*analysis));
    ASSERT_EQ(truth.mask, 0x3C0u);
    widgets::BurstView view;
    auto session = test::served(view);
    view.resize(1200, 600);
    view.show();
    view.setDatabase(analysis, [](RequestId id) { return QStringLiteral("r%1").arg(id.value); });
    ASSERT_TRUE(waitBursts(view));
    EXPECT_TRUE(view.summaryText().contains("Mask 0x3c0 (inferred)")) << view.summaryText().toStdString();
    ASSERT_EQ(view.windowCount(), static_cast<int>(truth.windows.size()));
    EXPECT_EQ(view.currentWindow(), 0);
    EXPECT_EQ(view.waterfall()->rowCount(), static_cast<int>(truth.windows[0].requests.size()));
    // Next (and Page Down), then back; the rows follow the window.
    QTest::keyClick(&view, Qt::Key_PageDown);
    ASSERT_TRUE(waitBursts(view));
    EXPECT_EQ(view.currentWindow(), 1);
    EXPECT_EQ(view.waterfall()->rowCount(), static_cast<int>(truth.windows[1].requests.size()));
    view.showWindow(1000);  // clamped
    ASSERT_TRUE(waitBursts(view));
    EXPECT_EQ(view.currentWindow(), view.windowCount() - 1);
    // A click on the first row opens that request: the window's earliest.
    view.showWindow(0);
    ASSERT_TRUE(waitBursts(view));
    QSignalSpy opened(&view, &widgets::BurstView::requestActivated);
    QTest::mouseClick(view.waterfall(), Qt::LeftButton, {}, QPoint(400, 40));
    ASSERT_EQ(opened.count(), 1);
    const std::uint32_t firstRow = *std::min_element(truth.windows[0].requests.begin(), truth.windows[0].requests.end());
    EXPECT_EQ(opened.front().front().value<RequestId>(), analysis->data.requestIds[firstRow]);
    if (const QByteArray png = qgetenv("BURSTS_PNG"); !png.isEmpty()) { ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png))); }
    // View › Local Clocks: the same window's rows again, each on its hosts' own clocks; and back.
    view.setLocalClocks(true);
    ASSERT_TRUE(waitBursts(view));
    EXPECT_TRUE(view.localClocks());
    EXPECT_EQ(view.currentWindow(), 0);
    if (const QByteArray png = qgetenv("BURSTS_LOCAL_PNG"); !png.isEmpty()) { ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png))); }
    EXPECT_EQ(view.waterfall()->rowCount(), static_cast<int>(truth.windows[0].requests.size()));
    view.setLocalClocks(false);
    ASSERT_TRUE(waitBursts(view));
    EXPECT_EQ(view.waterfall()->rowCount(), static_cast<int>(truth.windows[0].requests.size()));
    // A mask typed in regroups; a bad one is refused with a message; starts at random are not bursty.
    view.setMask(QStringLiteral("zz"));
    EXPECT_TRUE(view.summaryText().contains("Bad mask 'zz'")) << view.summaryText().toStdString();
    view.setMask(QStringLiteral("0x1C0"));
    ASSERT_TRUE(waitBursts(view));
    EXPECT_TRUE(view.summaryText().contains("Mask 0x1c0 (given)")) << view.summaryText().toStdString();
    view.setDatabase(burstyAnalysis(0, 80), {});  // mask 0: every millisecond traced
    view.setMask(QString());
    ASSERT_TRUE(waitBursts(view));
    EXPECT_EQ(view.windowCount(), 0);
    EXPECT_TRUE(view.summaryText().contains("not traced in coordinated bursts")) << view.summaryText().toStdString();
    view.setDatabase(burstyAnalysis(0, 1), {});  // one request: "1 request", not "1 requests"
    ASSERT_TRUE(waitBursts(view));
    EXPECT_TRUE(view.summaryText().startsWith("1 request: ")) << view.summaryText().toStdString();
    // The reason and the way out are said once, in the drawing's place, not again in the summary.
    EXPECT_TRUE(view.waterfall()->message().contains("Type a mask")) << view.waterfall()->message().toStdString();
    EXPECT_FALSE(view.summaryText().contains("Type a mask")) << view.summaryText().toStdString();
}

// With host activity in the database, each window's line says how much of it fell in the window and the summary
// in how many windows: a gc inside the first window, a compaction between windows.
TEST(BurstView, CountsTheHostActivityInEachWindow) {
    auto analysis = burstyAnalysis(0x3C0, 120);
    ASSERT_TRUE(analysis);
    const BurstWindows truth = burstWindows(requestStartsNs(*analysis));
    ASSERT_GE(truth.windows.size(), 2u);
    QTemporaryDir dir;
    const std::string db = (dir.path() + "/activity.tldb").toStdString();
    {
        auto store = TraceStore::open(db, TraceStore::Mode::Create);
        ASSERT_TRUE(store) << store.message();
        const TimeNs first = truth.windows[0].startMs * 1'000'000, gap = truth.windows[0].endMs * 1'000'000 + 100'000'000;
        const std::vector<HostActivityInput> records{{"web-1", first + 10'000'000, first + 22'000'000, "gc", {}, {}},
                                                     {"db-1", gap, gap + 50'000'000, "compaction", {}, {}}};
        ASSERT_TRUE(addHostActivity(*store.value(), records));
    }
    widgets::BurstView view;
    auto session = test::serveFrom(view, db);
    view.resize(1200, 600);
    view.setDatabase(analysis, {});
    ASSERT_TRUE(waitBursts(view));
    EXPECT_TRUE(view.summaryText().contains("host activity in 1 of them (1 record)")) << view.summaryText().toStdString();
    EXPECT_TRUE(view.windowText().contains("host activity: 1 record on 1 host, 12")) << view.windowText().toStdString();
    EXPECT_TRUE(view.windowText().contains("(gc 12")) << view.windowText().toStdString();
    view.showWindow(1);
    ASSERT_TRUE(waitBursts(view));
    EXPECT_TRUE(view.windowText().contains("no host activity")) << view.windowText().toStdString();
    // Host activity that cannot be read is said with its reason, never shown as none.
    {
        auto store = TraceStore::open(db, TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(store) << store.message();
        ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*store.value()), "DROP TABLE host_activity", nullptr, nullptr, nullptr), SQLITE_OK);
    }
    view.setMask(QStringLiteral("0x3C0"));
    ASSERT_TRUE(waitBursts(view));
    EXPECT_TRUE(view.summaryText().contains("host activity could not be read: cannot read host activity")) << view.summaryText().toStdString();
    EXPECT_TRUE(view.windowText().contains("host activity unknown")) << view.windowText().toStdString();
    EXPECT_FALSE(view.windowText().contains("no host activity")) << view.windowText().toStdString();
}

// A long window (a mask with a high lowest bit, 32.8 s windows here): its header gives the end's full time of
// day, the axis spans the requests drawn rather than the whole window (which squeezed them into a sliver),
// and more rows than fit scroll.
TEST(BurstView, ALongWindowIsReadableAndScrolls) {
    auto analysis = burstyAnalysis(0, 300);
    ASSERT_TRUE(analysis);
    widgets::BurstView view;
    auto session = test::served(view);
    view.resize(1200, 500);
    view.show();
    view.setDatabase(analysis, [](RequestId id) { return QStringLiteral("r%1").arg(id.value); });
    view.setMask(QStringLiteral("0x8000"));
    ASSERT_TRUE(waitBursts(view));
    ASSERT_GT(view.windowCount(), 0);
    const BurstWindows truth = burstWindows(requestStartsNs(*analysis), 0x8000);
    const auto& w = truth.windows[0];
    ASSERT_GT(w.requests.size(), 30u);
    const QString end = QDateTime::fromMSecsSinceEpoch(w.endMs, QTimeZone::utc()).toString(QStringLiteral("HH:mm:ss.zzz"));
    // (This window crosses midnight, so the end carries its date as well.)
    EXPECT_TRUE(view.windowText().contains(QStringLiteral(" – 2026-11-01 ") + end)) << view.windowText().toStdString();
    // The axis: the drawn requests' extent, well inside the window.
    TimeNs first = std::numeric_limits<TimeNs>::max();
    for (auto r : w.requests) first = std::min(first, requestStartsNs(*analysis)[r]);
    EXPECT_EQ(view.waterfall()->axisStartNs(), first);
    EXPECT_GT(view.waterfall()->axisEndNs(), first);
    // The rows are taller than the view: the scroll area can reach the last one.
    auto* scroll = view.findChild<QScrollArea*>();
    ASSERT_NE(scroll, nullptr);
    QTest::qWait(50);
    EXPECT_GT(view.waterfall()->height(), scroll->viewport()->height());
    EXPECT_GT(scroll->verticalScrollBar()->maximum(), 0);
}

