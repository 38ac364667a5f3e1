#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QThread>
#include <atomic>
#include <QFileInfo>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <qcustomplot.h>

#include "aggregates/AggregatesView.h"
#include "plots/BreakdownPlot.h"
#include "plots/CdfPlot.h"
#include "common/PlotExport.h"
#include "common/Palette.h"
#include "common/TimeFormat.h"
#include "plots/SlackScatter.h"
#include "widgets/ViewFixtures.h"

using namespace tracelight;
using namespace tracelight::widgets;

using test::makeAggregates;

TEST(BreakdownPlot, StacksSummedAndCriticalBarsPerCategory) {
    BreakdownPlot plot;
    plot.resize(800, 500);
    auto a = makeAggregates(1000);
    plot.setBreakdowns({{QStringLiteral("all"), breakdown(*a)}});
    // server and network twice (summed, critical), blind once (critical only).
    EXPECT_EQ(plot.plot()->plottableCount(), 5);
    plot.setPercent(true);
    double total = 0;
    for (int i = 0; i < plot.plot()->plottableCount(); ++i) {
        auto* bars = qobject_cast<QCPBars*>(plot.plot()->plottable(i));
        ASSERT_TRUE(bars);
        for (auto it = bars->data()->begin(); it != bars->data()->end(); ++it)
            if (it->key > 0) total += it->value;  // the critical-path bar
    }
    EXPECT_NEAR(total, 100.0, 1e-6);
    EXPECT_TRUE(plot.csv().startsWith(QStringLiteral("group,requests,category")));
}

// The axis says milliseconds: the critical bars add up to the mean latency in ms (they showed microseconds).
TEST(BreakdownPlot, BarsAreInMillisecondsAsTheAxisSays) {
    BreakdownPlot plot;
    plot.resize(800, 500);
    auto a = makeAggregates(1000);
    const Breakdown b = breakdown(*a);
    plot.setBreakdowns({{QStringLiteral("all"), b}});
    EXPECT_TRUE(plot.plot()->yAxis->label().contains(QStringLiteral("(ms)")));
    double critical = 0;
    for (int i = 0; i < plot.plot()->plottableCount(); ++i) {
        auto* bars = qobject_cast<QCPBars*>(plot.plot()->plottable(i));
        ASSERT_TRUE(bars);
        for (auto it = bars->data()->begin(); it != bars->data()->end(); ++it)
            if (it->key > 0) critical += it->value;
    }
    EXPECT_NEAR(critical, b.meanLatencyNs / 1e6, 1e-6 * b.meanLatencyNs / 1e6);
}

TEST(SlackScatter, SwitchesToAHeatMapWhenDenseAndBrushesRows) {
    SlackScatter scatter;
    scatter.resize(800, 500);
    scatter.setHeatMapThreshold(5000);
    scatter.setData(makeAggregates(1000), 0);
    EXPECT_FALSE(scatter.heatMap());
    EXPECT_EQ(scatter.plot()->graphCount(), 5);  // one per slack colour
    // server time 10..19 ms: 10 of every 100 requests.
    EXPECT_EQ(scatter.rowsIn(9.5, 19.5, 0, 1e9).size(), 100u);
    const int near = scatter.rowNear(42.0, 52.0);
    ASSERT_GE(near, 0);
    EXPECT_EQ(near % 100, 42);
    scatter.setData(makeAggregates(20000), 0);
    EXPECT_TRUE(scatter.heatMap());
    EXPECT_EQ(scatter.plot()->graphCount(), 0);
    EXPECT_EQ(scatter.rowsIn(9.5, 19.5, 0, 1e9).size(), 2000u);
}

// Issue 11: binning a large scatter ran on the GUI thread; above the background threshold it runs on a worker.
TEST(SlackScatter, LargeInputsAreBinnedOnAWorker) {
    SlackScatter scatter;
    scatter.resize(800, 500);
    scatter.setHeatMapThreshold(5000);
    scatter.setBackgroundThreshold(1000);
    QSignalSpy drawn(&scatter, &SlackScatter::drawn);
    scatter.setData(makeAggregates(20000), 0);
    EXPECT_TRUE(scatter.isComputing());
    EXPECT_EQ(drawn.count(), 0);
    ASSERT_TRUE(drawn.wait(60000));
    EXPECT_FALSE(scatter.isComputing());
    EXPECT_TRUE(scatter.heatMap());
    EXPECT_EQ(scatter.plot()->plottableCount(), 1);  // the colour map
    scatter.setData(makeAggregates(500), 0);          // small: drawn at once
    EXPECT_FALSE(scatter.isComputing());
    EXPECT_EQ(scatter.plot()->graphCount(), 5);
}

// makeCdfSeries (run on a worker by the views) sorts and thins; the plot only draws what it is given.
TEST(CdfPlot, SeriesMadeAheadAreDrawnAsGiven) {
    std::vector<float> values;
    for (int i = 100000; i > 0; --i) values.push_back(float(i));  // descending: makeCdfSeries sorts
    const CdfSeries s = makeCdfSeries(QStringLiteral("s"), std::move(values));
    EXPECT_TRUE(std::is_sorted(s.values.begin(), s.values.end()));
    EXPECT_LE(s.x.size(), 2002);
    EXPECT_NEAR(s.p50, 50.0, 0.01);  // µs drawn in ms
    CdfPlot cdf;
    cdf.resize(600, 400);
    cdf.setSeries(QStringLiteral("x"), std::vector<CdfSeries>{s});
    ASSERT_EQ(cdf.plot()->graphCount(), 1);
    EXPECT_EQ(cdf.plot()->graph(0)->data()->size(), s.x.size());
    EXPECT_DOUBLE_EQ(cdf.shareAbove(50.0), 0.5);
}

TEST(CdfPlot, ShareAboveTheCutOff) {
    CdfPlot cdf;
    cdf.resize(600, 400);
    std::vector<float> values;
    for (int i = 1; i <= 100; ++i) values.push_back(1000.f * float(i));  // 1..100 ms
    double reported = -1;
    QObject::connect(&cdf, &CdfPlot::cutOffMoved, [&](double, double share) { reported = share; });
    cdf.setSeries(QStringLiteral("x"), std::vector<std::pair<QString, std::vector<float>>>{{QStringLiteral("s"), values}});
    cdf.setCutOff(80);
    EXPECT_DOUBLE_EQ(reported, 0.20);
    EXPECT_DOUBLE_EQ(cdf.shareAbove(0), 1.0);
}

TEST(PlotExport, SavesPngSvgAndPdf) {
    QTemporaryDir dir;
    BreakdownPlot plot;
    plot.resize(640, 400);
    auto a = makeAggregates(100);
    plot.setBreakdowns({{QStringLiteral("all"), breakdown(*a)}});
    for (const char* name : {"p.png", "p.svg", "p.pdf"}) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        EXPECT_TRUE(savePlot(plot.plot(), path)) << name;
        EXPECT_GT(QFileInfo(path).size(), 500) << name;
    }
}

TEST(AggregatesView, FillsEveryPageFromCoreResults) {
    AggregatesView view;
    view.resize(1200, 700);
    auto a = makeAggregates(2000);
    std::vector<std::string> users(2000);
    for (std::size_t r = 0; r < users.size(); ++r) users[r] = "u" + std::to_string(r % 50);
    view.setAggregates(a, {QStringLiteral("user")}, [&](const QString&) { return users; },
                       [](std::uint32_t t) { return QStringLiteral("type %1").arg(t); });
    view.waitForResults();
    EXPECT_EQ(view.outlierTable()->rowCount(), 2);
    EXPECT_EQ(view.outlierTable()->item(0, 0)->text(), QStringLiteral("type 0"));  // the server makes the slow ones slow
    // What-if targets: the categories, then the types by critical time (server 99 s in all, network 20 s).
    QStringList targets;
    for (int i = 0; i < view.whatIfTarget()->count(); ++i) targets << view.whatIfTarget()->itemText(i);
    EXPECT_EQ(targets, (QStringList{QStringLiteral("category server"), QStringLiteral("category network"), QStringLiteral("type 0"),
                                    QStringLiteral("type 1")}));
    EXPECT_EQ(view.breakdownPlot()->plot()->plottableCount(), 5);
    for (int page = 0; page < 5; ++page) {
        view.showPage(page);
        QImage image(view.size(), QImage::Format_ARGB32);
        view.render(&image);
    }
    view.setWhatIfResult(std::vector<TimeNs>(2000, 1000000), QStringLiteral("faster"));
    EXPECT_TRUE(view.isComputing()) << "the what-if latencies are sorted on a worker";
    ASSERT_TRUE(view.waitForResults());
    EXPECT_EQ(view.whatIfPlot()->plot()->graphCount(), 2);
}

TEST(AggregatesView, SlackStudiesWithNoSlackBucketLeft) {
    // The category is absent from every request (kNoSlack) or there are no requests at all: no
    // bucket remains, and the page must still draw (it once took the minimum of an empty list).
    auto absent = makeAggregates(50);
    for (std::size_t r = 0; r < absent->requests(); ++r) absent->slackNs[r * absent->width()] = RequestAggregates::kNoSlack;
    for (const auto& a : {absent, makeAggregates(0)}) {
        AggregatesView view;
        view.resize(1000, 600);
        std::vector<std::string> users(a->requests(), "u");
        view.setAggregates(a, {QStringLiteral("user")}, [&](const QString&) { return users; },
                           [](std::uint32_t t) { return QStringLiteral("type %1").arg(t); });
        view.showPage(3);
        ASSERT_TRUE(view.waitForResults());
        QImage image(view.size(), QImage::Format_ARGB32);
        view.render(&image);
        QCustomPlot* buckets = view.slackBucketPlot();
        ASSERT_EQ(buckets->plottableCount(), 1);
        auto* bars = qobject_cast<QCPBars*>(buckets->plottable(0));
        ASSERT_TRUE(bars);
        EXPECT_EQ(bars->data()->size(), 0);
        EXPECT_TRUE(std::isfinite(buckets->yAxis->range().lower));
        EXPECT_LE(buckets->yAxis->range().lower, 0.0);
        EXPECT_DOUBLE_EQ(buckets->yAxis->range().upper, 1.0);
    }
}

TEST(AggregatesView, StudiesRunOffTheGuiThread) {
    // Issue 10: breakdown, outliers, slack buckets, prediction and the attribute reads ran on the GUI thread.
    // Now setAggregates returns at once; the attribute is read on a worker, and the results arrive later.
    AggregatesView view;
    view.resize(1200, 700);
    auto a = makeAggregates(3000);
    std::vector<std::string> users(3000);
    for (std::size_t r = 0; r < users.size(); ++r) users[r] = "u" + std::to_string(r % 40);
    std::atomic<int> reads{0}, readsOnGuiThread{0};
    QThread* gui = QThread::currentThread();
    view.setAggregates(a, {QStringLiteral("user")},
                       [&](const QString&) {
                           ++reads;
                           if (QThread::currentThread() == gui) ++readsOnGuiThread;
                           return users;
                       },
                       [](std::uint32_t t) { return QStringLiteral("type %1").arg(t); });
    EXPECT_TRUE(view.isComputing());
    EXPECT_EQ(view.outlierTable()->rowCount(), 0);  // not drawn yet: nothing was computed here
    ASSERT_TRUE(view.waitForResults());
    EXPECT_FALSE(view.isComputing());
    EXPECT_EQ(view.outlierTable()->rowCount(), 2);
    EXPECT_EQ(view.breakdownPlot()->plot()->plottableCount(), 5);
    // Issue 14: the A/A figure beside the breakdown, first of two halves of every request.
    EXPECT_TRUE(view.breakdownAa()->text().contains("two random halves")) << view.breakdownAa()->text().toStdString();
    EXPECT_TRUE(view.breakdownAa()->text().contains("at p95")) << view.breakdownAa()->text().toStdString();
    EXPECT_GE(reads.load(), 1);
    EXPECT_EQ(readsOnGuiThread.load(), 0);
    // Stratifying by the attribute reuses the value read once (the cache), again off the GUI thread.
    view.showPage(0);
    const int before = reads.load();
    ASSERT_EQ(view.stratifyBy()->count(), 2);
    view.stratifyBy()->setCurrentIndex(1);
    ASSERT_TRUE(view.waitForResults());
    EXPECT_EQ(reads.load(), before);
    // Stratified: groups as small as the smallest stratum (40 users over 3,000 requests: 75 each).
    EXPECT_TRUE(view.breakdownAa()->text().contains("groups of 75 requests (the smallest stratum)"))
        << view.breakdownAa()->text().toStdString();
    EXPECT_EQ(readsOnGuiThread.load(), 0);
}

// Issue 11: task colours came from the order tasks were first drawn, so they changed between sessions.
TEST(Palette, ATaskColourComesFromItsNameAlone) {
    // Asked after other names (as a session that drew other tasks first), a name keeps the colour its hash gives.
    for (const char* other : {"zeta", "eta", "theta", "iota", "kappa"}) palette::forTask(QString::fromLatin1(other));
    EXPECT_EQ(palette::forTask(QStringLiteral("frontend")).name(), QStringLiteral("#90b3c5"));
    EXPECT_EQ(palette::forTask(QStringLiteral("cartservice")).name(), QStringLiteral("#80b1d3"));
    EXPECT_EQ(palette::forTask(QStringLiteral("frontend")), palette::forTask(QStringLiteral("frontend")));
    EXPECT_NE(palette::forTask(QStringLiteral("frontend")), palette::forTask(QStringLiteral("cartservice")));
}

TEST(TimeFormat, RangeEndsReadDifferentlyWhenTheyDiffer) {
    EXPECT_EQ(formatDurationRangeNs(0, 40000), QStringLiteral("0.0–40.0 µs"));
    EXPECT_EQ(formatDurationRangeNs(12000, 19000), QStringLiteral("12.0–19.0 µs"));
    EXPECT_EQ(formatDurationRangeNs(2000000, 2000400), QStringLiteral("2.0000–2.0004 ms"));
    EXPECT_EQ(formatDurationRangeNs(0, 0), QStringLiteral("0 µs"));
    EXPECT_EQ(formatDurationRangeNs(1500000000, 2500000000), QStringLiteral("1.5–2.5 s"));
}

namespace {
QStringList tickLabels(QCustomPlot* plot) {
    auto ticker = plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QStringList labels;
    if (ticker)
        for (auto it = ticker->ticks().begin(); it != ticker->ticks().end(); ++it) labels << it.value();
    return labels;
}
} // namespace

// Issue 11: two slack buckets were both labelled "0.0–0.0 ms"; breakdown bars and their CDF had different
// colours; every plot exported as plot.png.
TEST(AggregatesView, SlackBucketLabelsDifferAndColoursAndExportNamesAgree) {
    auto a = makeAggregates(1000);
    for (std::size_t r = 0; r < a->requests(); ++r)
        if (r % 100 < 50) a->slackNs[r * a->width()] = r % 100 < 45 ? 0 : TimeNs(r % 100) * 1000;  // 45 % zero, then µs
    AggregatesView view;
    view.resize(1300, 700);
    view.setExportContext(QStringLiteral("pageload"));
    std::vector<std::string> users(a->requests(), "u");
    view.setAggregates(a, {QStringLiteral("user")}, [&](const QString&) { return users; },
                       [](std::uint32_t t) { return QStringLiteral("type %1").arg(t); });
    view.showPage(3);
    ASSERT_TRUE(view.waitForResults());
    const QStringList labels = tickLabels(view.slackBucketPlot());
    ASSERT_EQ(labels.size(), 5);
    EXPECT_EQ(QSet<QString>(labels.begin(), labels.end()).size(), 5) << labels.join(QStringLiteral(" | ")).toStdString();
    for (const QString& label : labels) EXPECT_FALSE(label.contains(QStringLiteral("0.0–0.0"))) << label.toStdString();

    // Bars and CDF: one colour per category.
    auto* bars = view.breakdownPlot()->plot();
    CdfPlot* cdf = view.shareCdf();
    ASSERT_GE(cdf->plot()->graphCount(), 1);
    int compared = 0;

    for (int g = 0; g < cdf->plot()->graphCount(); ++g) {
        const QString name = cdf->plot()->graph(g)->name().section(QStringLiteral(" — "), 0, 0);
        QCPAbstractPlottable* critical = nullptr;  // the full-colour (critical-path) bar: the category's second
        for (int p = 0; p < bars->plottableCount(); ++p)
            if (bars->plottable(p)->name() == name) critical = bars->plottable(p);
        if (!critical) continue;
        EXPECT_EQ(critical->brush().color().name(), cdf->plot()->graph(g)->pen().color().name()) << name.toStdString();
        ++compared;
    }
    EXPECT_GE(compared, cdf->plot()->graphCount());
    // The legend explains the paler bars.
    bool explained = false;
    for (int i = 0; i < bars->legend->elementCount(); ++i)
        if (auto* text = qobject_cast<QCPTextElement*>(bars->legend->elementAt(i))) explained = text->text().contains(QStringLiteral("paler"));
    EXPECT_TRUE(explained);

    // Export names: from what each plot shows and the database, all different.
    QStringList names;
    for (QCustomPlot* plot : view.findChildren<QCustomPlot*>()) names << suggestedPlotFileName(plot);
    EXPECT_FALSE(names.contains(QStringLiteral("plot.png"))) << names.join(QLatin1Char(' ')).toStdString();
    EXPECT_EQ(QSet<QString>(names.begin(), names.end()).size(), names.size()) << names.join(QLatin1Char(' ')).toStdString();
    EXPECT_TRUE(names.contains(QStringLiteral("slack-buckets-server-pageload.png"))) << names.join(QLatin1Char(' ')).toStdString();
}

// Issue 11: the cut-off on the slack CDF jumped hundreds of ms per pixel (a linear axis up to the longest slack).
TEST(AggregatesView, SlackCutOffMovesByASmallShareOfItsValuePerPixel) {
    auto a = makeAggregates(2000, true);
    for (std::size_t r = 0; r < 20; ++r) a->slackNs[r * a->width()] = TimeNs(60) * 1000000000;  // a long tail: 60 s
    AggregatesView view;
    view.resize(1300, 700);
    std::vector<std::string> users(a->requests(), "u");
    view.setAggregates(a, {QStringLiteral("user")}, [&](const QString&) { return users; },
                       [](std::uint32_t t) { return QStringLiteral("type %1").arg(t); });
    view.showPage(3);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.isComputing(); }, 60000));
    CdfPlot* slack = view.slackCdf();
    slack->plot()->replot();
    const double cutoff = slack->cutOffMs();
    ASSERT_GT(cutoff, 1.0);
    const double px = slack->plot()->xAxis->coordToPixel(cutoff);
    const double step = slack->plot()->xAxis->pixelToCoord(px + 1) - cutoff;
    EXPECT_LT(step, 0.05 * cutoff) << "ms per pixel at the cut-off " << cutoff << " ms";
    EXPECT_GT(slack->width(), 400) << "the CDF gets room in the page";
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
