// The Bottlenecks tab over a generated database: its ranked table (shares adding up to 1, sortable), the
// bars and the pie, the trend's buckets, a click on the latency scatter opening a request of the data, a
// period and a stratum, and the message for an empty selection. BOTTLENECKS_PNG=F.png (with BOTTLENECKS_DB
// naming any analysed database, else the generated one) saves the view as a picture for the README.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include "bottleneck/BottleneckPie.h"
#include "bottleneck/BottlenecksView.h"
#include "core/GeneratedPeriods.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

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
    view.setDatabase(QString::fromStdString(db), analysis, {"baseline", "problem"}, {});
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

TEST(BottlenecksView, SliceByAStratumAndEmptyMessages) {
    QTemporaryDir dir;
    const std::string db = dir.filePath("s.tldb").toStdString();
    auto analysis = test::analysedPeriods(db, 200, 1.0, 1);
    widgets::BottlenecksView view;
    view.resize(1200, 800);
    view.show();

    // Not analysed (no analysis given): a clear message, nothing drawn.
    view.setDatabase(QString::fromStdString(db), nullptr, {}, {});
    ASSERT_TRUE(waitReady(view));
    EXPECT_TRUE(view.statusText().contains("analysed database")) << view.statusText().toStdString();
    EXPECT_EQ(view.table()->rowCount(), 0);

    // A stratum no request has (the generated events carry no browser): a message naming it, nothing drawn.
    view.setDatabase(QString::fromStdString(db), analysis, {"baseline"}, {"browser"});
    ASSERT_TRUE(waitReady(view));
    ASSERT_NE(view.trend(), nullptr);
    view.setSliceBy("browser", "no-such-browser");
    ASSERT_TRUE(waitReady(view));
    EXPECT_EQ(view.trend(), nullptr);
    EXPECT_TRUE(view.statusText().contains("No analysed request")) << view.statusText().toStdString();
    EXPECT_EQ(view.table()->rowCount(), 0);
}

// Not a check: BOTTLENECKS_PNG=out.png [BOTTLENECKS_DB=any.tldb] [BOTTLENECKS_SLICE=ATTR[=VALUE]] renders the
// view for the README.
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
        for (const auto& key : store.value()->attributeKeys()) keys << QString::fromStdString(key);
    }
    widgets::BottlenecksView view;
    view.resize(qEnvironmentVariableIntValue("BOTTLENECKS_WIDTH") > 0 ? qEnvironmentVariableIntValue("BOTTLENECKS_WIDTH") : 1500,
                qEnvironmentVariableIntValue("BOTTLENECKS_HEIGHT") > 0 ? qEnvironmentVariableIntValue("BOTTLENECKS_HEIGHT") : 900);
    view.show();
    view.setDatabase(QString::fromStdString(db), analysis, periods, keys);
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
