#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <QApplication>
#include <QComboBox>
#include <QThread>
#include <atomic>
#include <QFileInfo>
#include <QTableWidget>
#include <QTemporaryDir>
#include <qcustomplot.h>

#include "aggregates/AggregatesView.h"
#include "plots/BreakdownPlot.h"
#include "plots/CdfPlot.h"
#include "common/PlotExport.h"
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

TEST(CdfPlot, ShareAboveTheCutOff) {
    CdfPlot cdf;
    cdf.resize(600, 400);
    std::vector<float> values;
    for (int i = 1; i <= 100; ++i) values.push_back(1000.f * float(i));  // 1..100 ms
    double reported = -1;
    QObject::connect(&cdf, &CdfPlot::cutOffMoved, [&](double, double share) { reported = share; });
    cdf.setSeries(QStringLiteral("x"), {{QStringLiteral("s"), values}});
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
    EXPECT_EQ(view.breakdownPlot()->plot()->plottableCount(), 5);
    for (int page = 0; page < 5; ++page) {
        view.showPage(page);
        QImage image(view.size(), QImage::Format_ARGB32);
        view.render(&image);
    }
    view.setWhatIfResult(std::vector<TimeNs>(2000, 1000000), QStringLiteral("faster"));
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
    EXPECT_GE(reads.load(), 1);
    EXPECT_EQ(readsOnGuiThread.load(), 0);
    // Stratifying by the attribute reuses the value read once (the cache), again off the GUI thread.
    view.showPage(0);
    const int before = reads.load();
    ASSERT_EQ(view.stratifyBy()->count(), 2);
    view.stratifyBy()->setCurrentIndex(1);
    ASSERT_TRUE(view.waitForResults());
    EXPECT_EQ(reads.load(), before);
    EXPECT_EQ(readsOnGuiThread.load(), 0);
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
