#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <QSettings>
#include <QSpinBox>
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
#include <QToolTip>
#include <QAbstractItemView>
#include <QHelpEvent>
#include <qcustomplot.h>

#include "aggregates/AggregatesView.h"
#include "plots/BreakdownPlot.h"
#include "plots/DurationTicker.h"
#include "plots/CdfPlot.h"
#include "common/PlotExport.h"
#include "common/Palette.h"
#include "common/TimeFormat.h"
#include "plots/SlackScatter.h"
#include "widgets/ServedViews.h"
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
TEST(BreakdownPlot, BarsAreInTheAxissMilliseconds) {
    BreakdownPlot plot;
    plot.resize(800, 500);
    auto a = makeAggregates(1000);
    const Breakdown b = breakdown(*a);
    plot.setBreakdowns({{QStringLiteral("all"), b}});
    EXPECT_TRUE(plot.plot()->yAxis->ticker().dynamicCast<widgets::DurationTicker>());  // ms coordinates, labelled with units
    double critical = 0;
    for (int i = 0; i < plot.plot()->plottableCount(); ++i) {
        auto* bars = qobject_cast<QCPBars*>(plot.plot()->plottable(i));
        ASSERT_TRUE(bars);
        for (auto it = bars->data()->begin(); it != bars->data()->end(); ++it)
            if (it->key > 0) critical += it->value;
    }
    EXPECT_NEAR(critical, b.meanLatencyNs / 1e6, 1e-6 * b.meanLatencyNs / 1e6);
}

// Requests of tens of seconds (the GenAI trace's 44 s) read in seconds on the ticks, not as "175000" ms; short
// ones in milliseconds.
TEST(BreakdownPlot, TicksCarryTheUnitThatFits) {
    auto ticks = [](double meanNs) {
        BreakdownPlot plot;
        plot.resize(800, 500);
        auto a = makeAggregates(1000);
        Breakdown b = breakdown(*a);
        const double scale = meanNs / b.meanLatencyNs;
        b.meanLatencyNs *= scale;
        for (auto& c : b.categories) c.criticalNs *= scale, c.summedNs *= scale;
        plot.setBreakdowns({{QStringLiteral("all"), b}});
        plot.plot()->replot();
        QVector<double> at;
        QVector<QString> labels;
        plot.plot()->yAxis->ticker()->generate(plot.plot()->yAxis->range(), QLocale(), 'g', 6, at, nullptr, &labels);
        return labels;
    };
    const QVector<QString> seconds = ticks(20e9);
    ASSERT_GT(seconds.size(), 2);
    for (const QString& label : seconds) EXPECT_TRUE(label.endsWith(QStringLiteral(" s"))) << label.toStdString();
    const QVector<QString> millis = ticks(20e6);
    ASSERT_GT(millis.size(), 2);
    EXPECT_TRUE(millis.last().endsWith(QStringLiteral(" ms"))) << millis.last().toStdString();
}

// A tick says its value exactly: with a step of 250 ms, 1.25 s is "1.25 s", not "1.3 s" (the Online Boutique
// breakdown's axis read 1.0, 1.3, 1.5 s).
TEST(DurationTicker, TicksShowTheDigitsOfTheirStep) {
    DurationTicker ticker;
    QVector<double> at;
    QVector<QString> labels;
    ticker.setTickCount(8);
    ticker.generate(QCPRange(0, 2000), QLocale(), 'g', 6, at, nullptr, &labels);  // milliseconds
    ASSERT_TRUE(at.contains(1250.0)) << "expected a step of 250 ms";
    EXPECT_EQ(labels[at.indexOf(1250.0)], QStringLiteral("1.25 s"));
    EXPECT_EQ(labels[at.indexOf(1500.0)], QStringLiteral("1.50 s"));  // the same decimals on every tick
    EXPECT_EQ(labels[at.indexOf(750.0)], QStringLiteral("750 ms"));
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

// A distribution of one or two values is a step, not a curve: the plot says so (the GenAI trace's one request
// drew lines along the top edge and nothing else).
TEST(CdfPlot, SaysWhenTooFewValuesMakeADistribution) {
    CdfPlot cdf;
    cdf.resize(600, 400);
    cdf.setSeries(QStringLiteral("x"), std::vector<CdfSeries>{makeCdfSeries(QStringLiteral("a"), {1000.0f}), makeCdfSeries(QStringLiteral("b"), {2000.0f})});
    EXPECT_TRUE(cdf.noteText().contains(QStringLiteral("1 value"))) << cdf.noteText().toStdString();
    std::vector<float> many;
    for (int i = 0; i < 50; ++i) many.push_back(float(i));
    cdf.setSeries(QStringLiteral("x"), std::vector<CdfSeries>{makeCdfSeries(QStringLiteral("a"), many)});
    EXPECT_TRUE(cdf.noteText().isEmpty()) << cdf.noteText().toStdString();
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
    auto session = test::served(view);
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
        auto session = test::served(view);
        view.resize(1000, 600);
        std::vector<std::string> users(a->requests(), "u");
        view.setAggregates(a, {QStringLiteral("user")}, [&](const QString&) { return users; },
                           [](std::uint32_t t) { return QStringLiteral("type %1").arg(t); });
        view.showPage(3);
        ASSERT_TRUE(view.waitForResults());
        view.slackCategory()->setCurrentIndex(view.slackCategory()->findText(QStringLiteral("server")));  // the one without slack
        view.waitForResults();
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
    auto session = test::served(view);
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
    auto session = test::served(view);
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
    auto session = test::served(view);
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

// ---- the Aggregates tab on span data (issue 40) ---------------------------------------------------------

namespace {
// The size the Aggregates tab has in a 1280x860 main window (the request table above it).
constexpr QSize kTabSize(1280, 560);

// Span data as the Online Boutique gives it: a root service whose time is the whole request (its slack zero),
// with the most critical time, and `services` - 1 services under it, each later one with less critical time.
// Only service-03's slack varies from request to request.
std::shared_ptr<RequestAggregates> spanAggregates(std::size_t n, std::size_t services) {
    auto a = std::make_shared<RequestAggregates>();
    a->categories.push_back("frontend");
    for (std::size_t k = 1; k < services; ++k) a->categories.push_back((k < 10 ? "service-0" : "service-") + std::to_string(k));
    for (std::size_t c = 0; c < services; ++c) a->typeCategory.push_back(static_cast<int>(c));
    for (std::size_t r = 0; r < n; ++r) {
        a->ids.emplace_back(static_cast<std::uint32_t>(r + 1));
        std::vector<TimeNs> critical(services), span(services), slack(services);
        TimeNs below = 0;
        const TimeNs varying = TimeNs(r % 13) * 10000;  // service-03's time varies, and the latency with it
        for (std::size_t k = 1; k < services; ++k) {
            critical[k] = TimeNs(services - k) * 100000;  // 100 µs steps
            span[k] = critical[k] + 50000 + (k == 3 ? varying : 0);
            slack[k] = k == 3 ? TimeNs(r % 10) * 1000000 : 1000000;
            below += critical[k];
        }
        const TimeNs latency = below + 1000000 + TimeNs(r % 7) * 1000000 + varying;
        critical[0] = latency - below;
        span[0] = latency;
        slack[0] = 0;
        a->latencyNs.push_back(latency);
        a->blindNs.push_back(0);
        a->pathBegin.push_back(a->pathType.size());
        for (std::size_t c = 0; c < services; ++c) {
            a->summedNs.push_back(c == 0 ? latency : span[c]);
            a->criticalNs.push_back(critical[c]);
            a->spanNs.push_back(span[c]);
            a->slackNs.push_back(slack[c]);
            a->pathType.push_back(static_cast<std::uint32_t>(c));
            a->pathNs.push_back(critical[c]);
        }
    }
    a->pathBegin.push_back(a->pathType.size());
    a->typesByCriticalTime = typesByCriticalTime(*a);
    return a;
}

QString typeName(std::uint32_t t) { return QStringLiteral("type %1").arg(t); }

// The view as a user meets it: shown at the tab's size, every study in.
void showView(AggregatesView& view, std::shared_ptr<RequestAggregates> a, std::function<QString(std::uint32_t)> names = typeName) {
    view.resize(kTabSize);
    view.setAggregates(std::move(a), {}, {}, std::move(names));
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.waitForResults();
}

// What a hover shows: the tooltip after a help event at pos.
QString toolTipAt(QWidget* widget, QPoint pos) {
    QToolTip::hideText();  // it hides after a delay
    EXPECT_TRUE(QTest::qWaitFor([] { return !QToolTip::isVisible(); }, 2000));
    QHelpEvent help(QEvent::ToolTip, pos, widget->mapToGlobal(pos));
    QApplication::sendEvent(widget, &help);
    return QToolTip::isVisible() ? QToolTip::text() : QString();
}

std::vector<QCPBars*> barsOf(QCustomPlot* plot) {
    std::vector<QCPBars*> out;
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto* bars = qobject_cast<QCPBars*>(plot->plottable(i))) out.push_back(bars);
    return out;
}

// The middle of a stacked bar's segment at `key`, in pixels.
QPoint barCentre(QCPBars* bars, double key) {
    double base = 0;
    auto valueAt = [key](QCPBars* b) {
        for (auto it = b->data()->begin(); it != b->data()->end(); ++it)
            if (std::abs(it->key - key) < 1e-9) return it->value;
        return 0.0;
    };
    for (QCPBars* below = bars->barBelow(); below; below = below->barBelow()) base += valueAt(below);
    const double value = valueAt(bars);
    return QPoint(qRound(bars->keyAxis()->coordToPixel(key)), qRound(bars->valueAxis()->coordToPixel(base + value / 2)));
}
} // namespace

// 23 services drew in near-identical hash colours: ten colours at most, by critical time, the rest one grey "other".
TEST(AggregatesView, TenColoursAtMostAndTheRestIsOther) {
    AggregatesView view;
    auto session = test::served(view);
    showView(view, spanAggregates(500, 23));
    QCustomPlot* plot = view.breakdownPlot()->plot();
    QSet<QString> names, colours;
    for (QCPBars* bars : barsOf(plot)) {
        names << bars->name();
        colours << bars->brush().color().name();
    }
    // Ten categories of their own (frontend and service-01..09 have the most critical time), then "other".
    EXPECT_EQ(names.size(), 11) << names.values().join(QLatin1Char(' ')).toStdString();
    EXPECT_TRUE(names.contains(QStringLiteral("other")));
    EXPECT_TRUE(names.contains(QStringLiteral("frontend")));
    EXPECT_TRUE(names.contains(QStringLiteral("service-09")));
    EXPECT_FALSE(names.contains(QStringLiteral("service-10")));
    EXPECT_LE(colours.size(), 22);  // each entry in two shades at most
    QSet<QString> critical;
    for (QCPBars* bars : barsOf(plot)) {
        bool right = false;
        for (auto it = bars->data()->begin(); it != bars->data()->end(); ++it) right = it->key > 0;
        if (!right) continue;
        critical << bars->brush().color().name();
        if (bars->name() == QLatin1String("other")) EXPECT_EQ(bars->brush().color().hslSaturation(), 0) << "other is grey";
    }
    EXPECT_EQ(critical.size(), 11) << "ten distinct colours and grey";
    // The share CDFs: the categories with the most critical time, in their bars' colours.
    ASSERT_GE(view.shareCdf()->plot()->graphCount(), 1);
    EXPECT_TRUE(view.shareCdf()->plot()->graph(0)->name().startsWith(QStringLiteral("frontend")));
}

// The paler (summed delay) shades were not in the legend: one entry per category shows both of its shades.
TEST(AggregatesView, OneLegendCoversBothBarsAndKeepsOffTheData) {
    AggregatesView view;
    auto session = test::served(view);
    showView(view, spanAggregates(500, 23));
    BreakdownPlot* breakdown = view.breakdownPlot();
    const auto entries = breakdown->legendEntries();
    EXPECT_EQ(entries.size(), 11u);
    for (QCPBars* bars : barsOf(breakdown->plot())) {
        bool found = false;
        for (const auto& e : entries)
            if (e.name == bars->name())
                found = e.summed == bars->brush().color() || e.critical == bars->brush().color();
        EXPECT_TRUE(found) << bars->name().toStdString() << " " << bars->brush().color().name().toStdString();
    }
    int explained = 0;
    QCPLegend* legend = breakdown->plot()->legend;
    for (int i = 0; i < legend->elementCount(); ++i)
        if (auto* text = qobject_cast<QCPTextElement*>(legend->elementAt(i))) explained += text->text().contains(QStringLiteral("paler"));
    EXPECT_EQ(explained, 1);
    // No legend on any page covers its plot's data, and none is cut off.
    for (int page = 0; page < 5; ++page) {
        view.showPage(page);
        QApplication::processEvents();
        for (QCustomPlot* plot : view.findChildren<QCustomPlot*>()) {
            if (!plot->isVisible() || !plot->legend->visible() || plot->legend->itemCount() == 0) continue;
            plot->replot();
            const QRect legendRect = plot->legend->outerRect();
            EXPECT_FALSE(legendRect.intersects(plot->axisRect()->rect()))
                << "page " << page << ": " << suggestedPlotFileName(plot).toStdString();
            EXPECT_TRUE(plot->rect().contains(legendRect)) << "page " << page << ": " << suggestedPlotFileName(plot).toStdString();
        }
    }
}

// Nothing said what a bar or a point was: hovering one tells its category, value with units and share.
TEST(AggregatesView, TooltipsOnBarsAndPoints) {
    AggregatesView view;
    auto session = test::served(view);
    showView(view, spanAggregates(500, 6));
    QCustomPlot* plot = view.breakdownPlot()->plot();
    plot->replot();
    QCPBars* frontend = nullptr;
    for (QCPBars* bars : barsOf(plot))
        if (bars->name() == QLatin1String("frontend") && bars->data()->begin()->key > 0) frontend = bars;
    ASSERT_TRUE(frontend);
    const QString bar = toolTipAt(plot, barCentre(frontend, frontend->data()->begin()->key));
    EXPECT_TRUE(bar.contains(QStringLiteral("frontend"))) << bar.toStdString();
    EXPECT_TRUE(bar.contains(QStringLiteral(" ms"))) << bar.toStdString();
    EXPECT_TRUE(bar.contains(QStringLiteral("%"))) << bar.toStdString();
    EXPECT_TRUE(toolTipAt(plot, QPoint(plot->axisRect()->left() + 2, plot->axisRect()->top() + 2)).isEmpty()) << "no bar there";

    view.showPage(2);
    QApplication::processEvents();
    SlackScatter* scatter = view.scatter();
    scatter->plot()->replot();
    const QString category = view.scatterCategory()->currentText();
    const std::size_t c = static_cast<std::size_t>(view.scatterCategory()->currentData().toInt());
    auto a = spanAggregates(500, 6);
    const QPoint point(qRound(scatter->plot()->xAxis->coordToPixel(nsToMs(a->span(0, c)))),
                       qRound(scatter->plot()->yAxis->coordToPixel(nsToMs(a->latencyNs[0]))));
    const QString tip = toolTipAt(scatter->plot(), point);
    EXPECT_TRUE(tip.contains(category)) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("slack"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral(" ms"))) << tip.toStdString();

    view.showPage(3);
    QApplication::processEvents();
    QCustomPlot* buckets = view.slackBucketPlot();
    buckets->replot();
    ASSERT_FALSE(barsOf(buckets).empty());
    const QString bucket = toolTipAt(buckets, barCentre(barsOf(buckets).front(), 0));
    EXPECT_TRUE(bucket.contains(QStringLiteral("correlation"))) << bucket.toStdString();
    EXPECT_TRUE(bucket.contains(QStringLiteral("requests"))) << bucket.toStdString();
}

// At 1280x860 captions and axis titles were cut ("hare of requests…"): every one fits where it is drawn.
TEST(AggregatesView, NothingClippedAtTheTabsSize) {
    AggregatesView view;
    auto session = test::served(view);
    showView(view, spanAggregates(500, 23));
    for (int page = 0; page < 5; ++page) {
        view.showPage(page);
        QApplication::processEvents();
        view.waitForResults();
        for (QCustomPlot* plot : view.findChildren<QCustomPlot*>()) {
            if (!plot->isVisible()) continue;
            plot->replot();
            const QString name = suggestedPlotFileName(plot);
            QCPAxisRect* rect = plot->axisRect();
            for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
                if (axis->label().isEmpty()) continue;
                const QFontMetrics metrics(axis->labelFont());
                int widest = 0;
                for (const QString& line : axis->label().split(QLatin1Char('\n'))) widest = std::max(widest, metrics.horizontalAdvance(line));
                const int length = axis == plot->xAxis ? rect->width() : rect->height();
                EXPECT_LE(widest, length) << "page " << page << " " << name.toStdString() << ": " << axis->label().toStdString();
            }
            // Text ticks (the bars' captions): each fits the room between its neighbours.
            if (auto ticker = plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>(); ticker && ticker->ticks().size() > 1) {
                const QFontMetrics metrics(plot->xAxis->tickLabelFont());
                const double room = plot->xAxis->coordToPixel(1) - plot->xAxis->coordToPixel(0);
                for (const QString& label : ticker->ticks())
                    for (const QString& line : label.split(QLatin1Char('\n')))
                        EXPECT_LE(metrics.horizontalAdvance(line), room) << "page " << page << " " << name.toStdString() << ": " << line.toStdString();
            }
        }
        // Captions: a label that does not wrap gets its whole width, inside the view.
        for (QLabel* label : view.findChildren<QLabel*>()) {
            if (!label->isVisible() || label->text().isEmpty()) continue;
            const QRect inView(label->mapTo(&view, QPoint(0, 0)), label->size());
            EXPECT_TRUE(view.rect().contains(inView)) << "page " << page << ": " << label->text().toStdString();
            if (!label->wordWrap()) EXPECT_GE(label->width(), label->sizeHint().width()) << "page " << page << ": " << label->text().toStdString();
        }
    }
    EXPECT_TRUE(view.breakdownPlot()->plot()->yAxis->ticker().dynamicCast<widgets::DurationTicker>());  // each tick says its unit
    EXPECT_TRUE(view.shareCdf()->plot()->xAxis->label().contains(QStringLiteral("(%)")));
}

// On span data the slack views started on the root service: a diagonal and 0 µs of slack. They start on the
// category whose slack says something; a category that cannot says why instead of drawing.
TEST(AggregatesView, SlackViewsStartOnACategoryWithSlackAndSayWhyARootHasNone) {
    AggregatesView view;
    auto session = test::served(view);
    showView(view, spanAggregates(1000, 6));
    EXPECT_NE(view.scatterCategory()->currentText(), QStringLiteral("frontend"));
    EXPECT_NE(view.slackCategory()->currentText(), QStringLiteral("frontend"));
    EXPECT_TRUE(view.scatter()->notice().isEmpty()) << view.scatter()->notice().toStdString();
    EXPECT_TRUE(view.slackNotice().isEmpty()) << view.slackNotice().toStdString();
    ASSERT_GE(view.slackCdf()->plot()->graphCount(), 1);
    EXPECT_GT(view.slackCdf()->plot()->graph(0)->data()->at(view.slackCdf()->plot()->graph(0)->data()->size() - 1)->key, 0.0);

    view.showPage(2);
    view.scatterCategory()->setCurrentIndex(view.scatterCategory()->findText(QStringLiteral("frontend")));
    view.waitForResults();
    EXPECT_TRUE(view.scatter()->notice().contains(QStringLiteral("frontend"))) << view.scatter()->notice().toStdString();
    EXPECT_FALSE(view.scatter()->plot()->isVisible()) << "no misleading diagonal";
    view.showPage(3);
    view.slackCategory()->setCurrentIndex(view.slackCategory()->findText(QStringLiteral("frontend")));
    view.waitForResults();
    EXPECT_TRUE(view.slackNotice().contains(QStringLiteral("frontend"))) << view.slackNotice().toStdString();
    EXPECT_FALSE(view.slackCdf()->isVisible());
    // Back to a category with slack: the plots return.
    view.slackCategory()->setCurrentIndex(view.slackCategory()->findText(QStringLiteral("service-03")));
    view.waitForResults();
    EXPECT_TRUE(view.slackNotice().isEmpty());
    EXPECT_TRUE(view.slackCdf()->isVisible());

    // Synchronous calls only: no category has slack, and the notice says so rather than blaming the category.
    auto none = spanAggregates(200, 4);
    std::fill(none->slackNs.begin(), none->slackNs.end(), 0);
    AggregatesView calls;
    auto callsSession = test::served(calls);
    showView(calls, none);
    EXPECT_TRUE(calls.slackNotice().startsWith(QStringLiteral("No category has slack"))) << calls.slackNotice().toStdString();
    EXPECT_TRUE(calls.scatter()->notice().isEmpty()) << "the scatter still says how a category's time goes with latency";
    EXPECT_NE(calls.scatterCategory()->currentText(), QStringLiteral("frontend"));
}

// The what-if list opened full-screen with 200 long span names: a normal combo, names elided in the middle,
// the whole name on hover.
TEST(AggregatesView, WhatIfTargetsFitAndShowTheirWholeNameOnHover) {
    auto longName = [](std::uint32_t t) {
        return QStringLiteral("frontend: hipstershop.ProductCatalogService/GetProduct → productcatalogservice "
                              "(grpc.server, span kind server) #%1")
            .arg(t);
    };
    auto a = spanAggregates(300, 6);
    // 200 segment types with critical time, as a large span trace offers.
    a->typeCategory.resize(250, 1);
    for (std::size_t r = 0; r < a->requests(); ++r)
        for (std::uint64_t k = a->pathBegin[r]; k < a->pathBegin[r + 1]; ++k) a->pathType[k] = static_cast<std::uint32_t>((r + k) % 250);
    a->typesByCriticalTime = typesByCriticalTime(*a);
    AggregatesView view;
    auto session = test::served(view);
    showView(view, a, longName);
    view.showPage(4);
    QApplication::processEvents();
    QComboBox* targets = view.whatIfTarget();
    ASSERT_GT(targets->count(), 150);
    EXPECT_LE(targets->width(), view.width() / 2) << "a normal-size combo";
    const int last = targets->count() - 1;
    const QString full = targets->itemData(last, Qt::ToolTipRole).toString();
    EXPECT_TRUE(full.startsWith(QStringLiteral("frontend: hipstershop"))) << full.toStdString();
    EXPECT_TRUE(full.contains(QStringLiteral("span kind server)")));
    const QString shown = targets->itemText(last);
    EXPECT_LT(shown.size(), full.size());
    EXPECT_TRUE(shown.contains(QStringLiteral("…"))) << shown.toStdString();
    EXPECT_TRUE(shown.startsWith(QStringLiteral("frontend"))) << "elided in the middle: " << shown.toStdString();
    EXPECT_TRUE(shown.endsWith(full.right(3))) << "elided in the middle: " << shown.toStdString();
    targets->setCurrentIndex(last);
    EXPECT_EQ(targets->toolTip(), full);
    targets->showPopup();
    QWidget* popup = targets->view()->window();
    ASSERT_TRUE(popup->isVisible());
    EXPECT_LE(popup->height(), view.height() / 2 + 40) << "not full-screen";
    EXPECT_LE(popup->width(), std::max(targets->width(), 640)) << "not full-screen";
    targets->hidePopup();
}

// The outliers listed zero-length spans as "0.00 % vs 0.00 %": a row says something or is left out, and the
// line above the table says how many were.
TEST(AggregatesView, OutliersListNoRowOfNothingAgainstNothing) {
    auto a = makeAggregates(2000);
    // Two more segment types on every critical path: one of zero length, one of a nanosecond.
    a->typeCategory = {0, 1, 1, 1};
    std::vector<std::uint32_t> types;
    std::vector<TimeNs> times;
    for (std::size_t r = 0; r < a->requests(); ++r) {
        const auto k = a->pathBegin[r];
        types.insert(types.end(), {a->pathType[k], a->pathType[k + 1], 2, 3});
        times.insert(times.end(), {a->pathNs[k], a->pathNs[k + 1], 0, 1});
        a->pathBegin[r] = 4 * r;
    }
    a->pathBegin.back() = 4 * a->requests();
    a->pathType = types;
    a->pathNs = times;
    AggregatesView view;
    auto session = test::served(view);
    showView(view, a);
    QTableWidget* table = view.outlierTable();
    ASSERT_GE(table->rowCount(), 2);
    auto nothing = [](const QString& share) {
        bool ok = false;
        const double v = QString(share).remove(QStringLiteral(" %")).toDouble(&ok);
        return share.startsWith(QLatin1Char('<')) || (ok && v == 0);
    };
    for (int row = 0; row < table->rowCount(); ++row)
        EXPECT_FALSE(nothing(table->item(row, 1)->text()) && nothing(table->item(row, 2)->text()))
            << table->item(row, 0)->text().toStdString() << ": " << table->item(row, 1)->text().toStdString() << " vs "
            << table->item(row, 2)->text().toStdString();
    QStringList listed;
    for (int row = 0; row < table->rowCount(); ++row) listed << table->item(row, 0)->text();
    EXPECT_TRUE(listed.contains(QStringLiteral("type 0")));
    EXPECT_FALSE(listed.contains(QStringLiteral("type 2")));
    EXPECT_FALSE(listed.contains(QStringLiteral("type 3")));
    EXPECT_TRUE(view.outlierSummary()->text().contains(QStringLiteral("left out"))) << view.outlierSummary()->text().toStdString();
}

// Outliers on slack: the category whose slack the slowest requests lost comes with its two medians; one with no
// slack in either set is counted, not listed.
TEST(AggregatesView, OutliersShowEachCategorysSlackAgainstTheRest) {
    auto a = makeAggregates(2000);  // server: time r % 100 ms and slack 100 - r % 100 ms; network: never any slack
    AggregatesView view;
    auto session = test::served(view);
    showView(view, a);
    view.showPage(1);
    QTableWidget* table = view.outlierSlackTable();
    ASSERT_EQ(table->rowCount(), 1);
    EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("server"));
    const Outliers o = outliers(*a, 0.05);
    ASSERT_FALSE(o.slack.empty());
    EXPECT_EQ(table->item(0, 1)->text(), QStringLiteral("%1 ms").arg(o.slack.front().outlierMedianNs / 1e6, 0, 'f', 2));
    EXPECT_EQ(table->item(0, 2)->text(), QStringLiteral("%1 ms").arg(o.slack.front().restMedianNs / 1e6, 0, 'f', 2));
    EXPECT_LT(o.slack.front().outlierMedianNs, o.slack.front().restMedianNs);
    EXPECT_TRUE(view.findChildren<QLabel*>().size() > 0);
    bool counted = false;
    for (QLabel* label : view.findChildren<QLabel*>()) counted = counted || label->text().contains(QStringLiteral("One category with no slack"));
    EXPECT_TRUE(counted);
    if (const QByteArray png = qgetenv("OUTLIER_SLACK_PNG"); !png.isEmpty()) ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png)));
}

// A numeric attribute is stratified in as many quantiles as chosen, and the choice is remembered.
TEST(AggregatesView, NumericStrataInTheQuantilesChosen) {
    QSettings().remove(QStringLiteral("aggregates/quantiles"));
    auto a = makeAggregates(2000);
    std::vector<std::string> bytes;
    for (std::size_t r = 0; r < a->requests(); ++r) bytes.push_back(std::to_string(1000 + r));
    {
        AggregatesView view;
        auto session = test::served(view);
        view.resize(1280, 700);
        view.setAggregates(a, {QStringLiteral("bytes")}, [&](const QString&) { return bytes; },
                           [](std::uint32_t t) { return QStringLiteral("type %1").arg(t); });
        view.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
        ASSERT_TRUE(view.waitForResults());
        view.stratifyBy()->setCurrentIndex(1);
        ASSERT_TRUE(view.waitForResults());
        const QString quartiles = view.breakdownPlot()->csv();
        view.quantiles()->setValue(5);
        ASSERT_TRUE(view.waitForResults());
        const QString quintiles = view.breakdownPlot()->csv();
        EXPECT_NE(quartiles, quintiles);
        EXPECT_TRUE(quintiles.contains(QStringLiteral("05: ["))) << quintiles.left(400).toStdString();
        EXPECT_FALSE(quintiles.contains(QStringLiteral("06: [")));
        EXPECT_FALSE(quartiles.contains(QStringLiteral("05: [")));
    }
    EXPECT_EQ(QSettings().value(QStringLiteral("aggregates/quantiles")).toInt(), 5);
    QSettings().remove(QStringLiteral("aggregates/quantiles"));
}

// The Mystery Machine's Fig. 11: with a user attribute, each request's slack against the same user's previous one,
// every pair a point (as predictSlack pairs them), the cut-off a dashed line on each axis.
TEST(AggregatesView, SlackPredictionScatterHasAPointPerPairAndTheCutOff) {
    auto a = makeAggregates(2000, true);
    for (std::size_t r = 0; r < a->requests(); ++r) a->startNs.push_back(TimeNs(r) * 1'000'000);
    std::vector<std::string> users;
    for (std::size_t r = 0; r < a->requests(); ++r) users.push_back("u" + std::to_string(r % 40));
    AggregatesView view;
    auto session = test::served(view);
    view.resize(1280, 700);
    view.setAggregates(a, {QStringLiteral("user")}, [&](const QString&) { return users; },
                       [](std::uint32_t t) { return QStringLiteral("type %1").arg(t); });
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.showPage(3);
    ASSERT_TRUE(view.waitForResults());
    ASSERT_EQ(view.slackCategory()->currentText(), QStringLiteral("server"));  // the category with slack comes first
    QCustomPlot* plot = view.slackPredictionPlot();
    ASSERT_TRUE(plot->isVisible());
    ASSERT_EQ(plot->graphCount(), 1);
    const SlackPrediction expected = predictSlack(*a, 0, [&] {
        std::vector<TimeNs> slack;
        for (std::size_t r = 0; r < a->requests(); ++r) slack.push_back(a->slack(r, 0));
        std::sort(slack.begin(), slack.end());
        return slack[slack.size() / 2];  // the default cut-off: the median slack
    }(), users);
    EXPECT_EQ(plot->graph(0)->data()->size(), static_cast<int>(expected.slackPairs.size()));
    EXPECT_EQ(plot->itemCount(), 2);  // the cut-off on both axes
    EXPECT_TRUE(plot->xAxis->label().contains(QStringLiteral("previous request")));
    EXPECT_TRUE(plot->xAxis->label().contains(QStringLiteral("%L1 pairs").arg(expected.slackPairs.size()))) << plot->xAxis->label().toStdString();
    EXPECT_TRUE(plot->yAxis->label().contains(QStringLiteral("ms")));
    if (const QByteArray png = qgetenv("SLACK_PREDICTION_PNG"); !png.isEmpty()) ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png)));
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// The Mystery Machine validated slack with 20 equal-population buckets: the bucket count is a choice, the
// plot has one bar per bucket (labelled every few), and the choice is remembered.
TEST(AggregatesView, SlackBucketsAsManyAsChosenAndRemembered) {
    QSettings().remove(QStringLiteral("aggregates/slackBuckets"));
    auto a = makeAggregates(2000);
    for (std::size_t r = 0; r < a->requests(); ++r) a->slackNs[r * a->width()] = TimeNs(r % 200) * 100'000;
    {
        AggregatesView view;
        auto session = test::served(view);
        view.resize(1280, 700);
        std::vector<std::string> users(a->requests(), "u");
        view.setAggregates(a, {QStringLiteral("user")}, [&](const QString&) { return users; },
                           [](std::uint32_t t) { return QStringLiteral("type %1").arg(t); });
        view.showPage(3);
        ASSERT_TRUE(view.waitForResults());
        EXPECT_EQ(tickLabels(view.slackBucketPlot()).size(), 5);
        auto* buckets = view.findChild<QSpinBox*>(QStringLiteral("slackBuckets"));
        ASSERT_NE(buckets, nullptr);
        buckets->setValue(20);
        ASSERT_TRUE(view.waitForResults());
        auto* bars = qobject_cast<QCPBars*>(view.slackBucketPlot()->plottable(0));
        ASSERT_NE(bars, nullptr);
        EXPECT_EQ(bars->data()->size(), 20);
        // Labelled every few bars, so the labels never overlap.
        const QStringList labels = tickLabels(view.slackBucketPlot());
        EXPECT_GE(labels.size(), 4);
        EXPECT_LE(labels.size(), 7);
        if (const QByteArray png = qgetenv("SLACK_BUCKETS_PNG"); !png.isEmpty()) ASSERT_TRUE(view.grab().save(QString::fromLocal8Bit(png)));
    }
    EXPECT_EQ(QSettings().value(QStringLiteral("aggregates/slackBuckets")).toInt(), 20);
    QSettings().remove(QStringLiteral("aggregates/slackBuckets"));
}
