#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QThreadPool>
#include <atomic>

#include "common/JobRunner.h"
#include "models/RequestFilter.h"
#include "models/RequestTableModel.h"
#include "models/RequestTablePanel.h"

using namespace tracelight;
using tracelight::widgets::RequestTableModel;

namespace {
std::shared_ptr<const RequestTable> makeTable(int n) {
    auto t = std::make_shared<RequestTable>();
    t->periodNames = {"baseline", "problem"};
    for (int i = 0; i < n; ++i) {
        t->ids.emplace_back(static_cast<std::uint32_t>(i + 1));
        t->names.push_back("req-" + std::to_string(i + 1));
        t->periodIndex.push_back(static_cast<std::uint32_t>(i % 2));
        t->startNs.push_back(1700000000000000000 + i * TimeNs{1000000});
        t->latencyNs.push_back(TimeNs((i * 37) % 101) * 1000000);
        t->hostCount.push_back(static_cast<std::uint32_t>(2 + i % 3));
        t->eventCount.push_back(static_cast<std::uint32_t>(10 + i));
    }
    // Attributes: browser (Chrome on odd ids, Firefox on even ones) and, on every third request, region=eu.
    t->attrLabels = {"browser", "Chrome", "Firefox", "region", "eu"};
    t->attrBegin.push_back(0);
    for (int i = 0; i < n; ++i) {
        t->attrKey.push_back(0);
        t->attrValue.push_back((i + 1) % 2 ? 1 : 2);
        if (i % 3 == 0) {
            t->attrKey.push_back(3);
            t->attrValue.push_back(4);
        }
        t->attrBegin.push_back(static_cast<std::uint32_t>(t->attrKey.size()));
    }
    return t;
}
} // namespace

TEST(RequestTableModel, PassesModelTesterThroughResetAndSort) {
    RequestTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    int lookups = 0;
    model.setTable(makeTable(50), [&lookups](RequestId id) {
        ++lookups;
        return QStringLiteral("user=u%1").arg(id.value);
    });
    EXPECT_EQ(model.rowCount(), 50);
    EXPECT_EQ(model.columnCount(), RequestTableModel::ColumnCount);
    model.sort(RequestTableModel::Latency, Qt::DescendingOrder);
    for (int r = 1; r < model.rowCount(); ++r)
        EXPECT_GE(model.index(r - 1, RequestTableModel::Latency).data(RequestTableModel::SortRole).toDouble(),
                  model.index(r, RequestTableModel::Latency).data(RequestTableModel::SortRole).toDouble());
    EXPECT_EQ(model.index(0, RequestTableModel::Latency).data().toString(), QStringLiteral("100.0 ms"));
    model.setTable(makeTable(3), {});
    EXPECT_EQ(model.rowCount(), 3);
}

// Span requests show their service, the operation they are known by (with how it was chosen on hover), their
// spans and errors; an event log's request leaves those cells empty, and errors not counted read "–".
TEST(RequestTableModel, SpanRequestsShowServiceOperationSpansAndErrors) {
    auto t = std::const_pointer_cast<RequestTable>(makeTable(3));
    constexpr auto kNone = RequestTable::kNoLabel;
    t->hasSpans = true;
    t->spanLabels = {"frontend", "hipstershop.Frontend/Recv.", "currencyservice", "hipstershop.CurrencyService/Convert"};
    t->spanCount = {12, 0, 4};
    t->errorCount = {2, 0, -1};
    t->service = {0, kNone, 0};
    t->entryOperation = {1, kNone, 1};
    t->callService = {2, kNone, kNone};
    t->callOperation = {3, kNone, kNone};
    t->operation = {3, kNone, 1};
    RequestTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setTable(t, {});
    auto cell = [&](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role).toString(); };
    EXPECT_EQ(cell(0, RequestTableModel::Service), QStringLiteral("frontend"));
    EXPECT_EQ(cell(0, RequestTableModel::Operation), QStringLiteral("hipstershop.CurrencyService/Convert"));
    EXPECT_TRUE(cell(0, RequestTableModel::Operation, Qt::ToolTipRole).contains(QStringLiteral("hipstershop.Frontend/Recv.")))
        << cell(0, RequestTableModel::Operation, Qt::ToolTipRole).toStdString();
    EXPECT_EQ(cell(0, RequestTableModel::Spans), QStringLiteral("12"));
    EXPECT_EQ(cell(0, RequestTableModel::Errors), QStringLiteral("2"));
    for (int column : {RequestTableModel::Service, RequestTableModel::Operation, RequestTableModel::Spans, RequestTableModel::Errors})
        EXPECT_EQ(cell(1, column), QString()) << column;
    EXPECT_EQ(cell(2, RequestTableModel::Operation), QStringLiteral("hipstershop.Frontend/Recv."));
    EXPECT_EQ(cell(2, RequestTableModel::Errors), QStringLiteral("–"));
    EXPECT_EQ(model.headerData(RequestTableModel::Operation, Qt::Horizontal).toString(), QStringLiteral("Operation"));
    model.sort(RequestTableModel::Spans, Qt::DescendingOrder);
    EXPECT_EQ(cell(0, RequestTableModel::Spans), QStringLiteral("12"));
}

TEST(RequestTableModel, AttributesAreFetchedLazilyAndCached) {
    RequestTableModel model;
    int lookups = 0;
    model.setTable(makeTable(1000000 / 50), [&lookups](RequestId id) {
        ++lookups;
        return QStringLiteral("user=u%1").arg(id.value);
    });
    EXPECT_EQ(lookups, 0) << "nothing fetched before a row is shown";
    EXPECT_EQ(model.index(5, RequestTableModel::Attributes).data().toString(), QStringLiteral("user=u6"));
    EXPECT_EQ(model.index(5, RequestTableModel::Attributes).data().toString(), QStringLiteral("user=u6"));
    EXPECT_EQ(lookups, 1);
}

TEST(RequestTableModel, RowOfFollowsSortOrder) {
    RequestTableModel model;
    model.setTable(makeTable(20), {});
    model.sort(RequestTableModel::Name, Qt::DescendingOrder);
    EXPECT_EQ(model.requestAt(0), RequestId(20));
    EXPECT_EQ(model.rowOf(RequestId(20)), 0);
    EXPECT_EQ(model.rowOf(RequestId(1)), 19);
    EXPECT_EQ(model.index(0, RequestTableModel::Period).data().toString(), QStringLiteral("problem"));
}

namespace {
int countMatches(const RequestTable& table, const QString& text, QString* error) {
    const auto filter = widgets::RequestFilter::parse(text, error);
    if (!error->isEmpty()) return -1;
    const auto keep = filter.match(table, error);
    return static_cast<int>(std::count(keep.begin(), keep.end(), 1));
}

std::vector<RequestId> selectedRequests(widgets::RequestTablePanel& panel, RequestTableModel& model) {
    std::vector<RequestId> ids;
    for (const QModelIndex& index : panel.view()->selectionModel()->selectedRows()) ids.push_back(model.requestAt(index.row()));
    return ids;
}
} // namespace

TEST(RequestFilter, TermsAreAndedOverNameAttributesLatencyAndPeriod) {
    const auto table = makeTable(100);  // latency (i * 37) % 101 ms: 0..100 ms, each once for i < 100
    QString error;
    EXPECT_EQ(countMatches(*table, QStringLiteral("req-1"), &error), 12) << error.toStdString();  // req-1, req-10..19, req-100
    EXPECT_EQ(countMatches(*table, QStringLiteral("REQ-5"), &error), 11);
    EXPECT_EQ(countMatches(*table, QStringLiteral("browser=chrome"), &error), 50);
    EXPECT_EQ(countMatches(*table, QStringLiteral("browser!=Chrome"), &error), 50);
    EXPECT_EQ(countMatches(*table, QStringLiteral("region=eu"), &error), 34);
    EXPECT_EQ(countMatches(*table, QStringLiteral("latency>=50ms"), &error), 50);
    EXPECT_EQ(countMatches(*table, QStringLiteral("latency>50ms"), &error), 49);
    EXPECT_EQ(countMatches(*table, QStringLiteral("latency<0.01s"), &error), 10);
    EXPECT_EQ(countMatches(*table, QStringLiteral("10ms..19ms"), &error), 10);
    EXPECT_EQ(countMatches(*table, QStringLiteral("period:problem"), &error), 50);
    EXPECT_EQ(countMatches(*table, QStringLiteral("period:problem browser=Chrome"), &error), 0);  // odd ids are baseline
    int expected = 0;  // baseline rows are the odd ids, the Chrome ones
    for (std::size_t i = 0; i < table->size(); ++i) expected += table->ids[i].value % 2 == 1 && table->latencyNs[i] >= 50000000;
    EXPECT_EQ(countMatches(*table, QStringLiteral("period:baseline browser=Chrome latency>=50ms"), &error), expected);
    EXPECT_TRUE(error.isEmpty());
}

// A defined period over the batches: period:NAME and the Period column follow membership, not the batch.
TEST(RequestFilter, PeriodTermsFollowMembershipOfDefinedPeriods) {
    auto table = std::const_pointer_cast<RequestTable>(makeTable(10));
    table->periodNames.push_back("slow");  // defined: ids 8, 9, 10, across both batches
    table->memberBegin.push_back(0);
    for (std::size_t i = 0; i < table->size(); ++i) {
        table->memberPeriod.push_back(table->periodIndex[i]);
        if (table->ids[i].value >= 8) table->memberPeriod.push_back(2);
        table->memberBegin.push_back(static_cast<std::uint32_t>(table->memberPeriod.size()));
    }
    QString error;
    EXPECT_EQ(countMatches(*table, QStringLiteral("period:slow"), &error), 3) << error.toStdString();
    EXPECT_EQ(countMatches(*table, QStringLiteral("period:slow period:problem"), &error), 2);  // ids 8 and 10
    RequestTableModel model;
    model.setTable(table, {});
    int shown = 0;
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.data(model.index(r, RequestTableModel::Period)).toString().endsWith(QStringLiteral(", slow"))) ++shown;
    EXPECT_EQ(shown, 3);
}

TEST(RequestFilter, ABadTermIsOneLineNamingIt) {
    const auto table = makeTable(10);
    for (const char* bad : {"latency>fast", "latency>250", "ms..2s", "5s..1s", "period:", "=x", "\"open", "latency~3ms"}) {
        QString error;
        EXPECT_EQ(countMatches(*table, QString::fromUtf8(bad), &error), -1) << bad;
        EXPECT_FALSE(error.isEmpty()) << bad;
        EXPECT_FALSE(error.contains(QLatin1Char('\n'))) << bad;
    }
    QString error;
    EXPECT_EQ(countMatches(*table, QStringLiteral("period:nosuch"), &error), 0);
    EXPECT_TRUE(error.contains(QStringLiteral("nosuch"))) << error.toStdString();
    EXPECT_EQ(countMatches(*table, QStringLiteral("colour=red"), &error), 0);
    EXPECT_TRUE(error.contains(QStringLiteral("colour"))) << error.toStdString();
}

TEST(RequestTablePanel, TypingFiltersRowsAndABadTermLeavesTheRows) {
    RequestTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    widgets::RequestTablePanel panel(&model);
    panel.resize(700, 400);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    model.setTable(makeTable(100), {});
    panel.tableReplaced();
    EXPECT_EQ(model.rowCount(), 100);
    EXPECT_EQ(panel.periodFilter()->count(), 3);  // all, baseline, problem

    QTest::keyClicks(panel.filterEdit(), QStringLiteral("browser=Chrome latency>=50ms"));
    int expected = 0;
    for (std::size_t i = 0; i < model.table()->size(); ++i)
        expected += model.table()->ids[i].value % 2 == 1 && model.table()->latencyNs[i] >= 50000000;
    ASSERT_GT(expected, 10);
    EXPECT_EQ(model.rowCount(), expected);
    for (int r = 0; r < model.rowCount(); ++r) EXPECT_EQ(model.requestAt(r).value % 2, 1u);
    EXPECT_TRUE(panel.message()->isVisible());
    EXPECT_TRUE(panel.message()->text().contains(QStringLiteral("%1 of 100").arg(expected))) << panel.message()->text().toStdString();
    EXPECT_EQ(selectedRequests(panel, model).size(), 1u) << "a visible request stays selected";

    panel.filterEdit()->setText(panel.filterEdit()->text() + QStringLiteral(" latency<"));  // incomplete: the rows stay, the line says why
    EXPECT_EQ(model.rowCount(), expected);
    EXPECT_TRUE(panel.message()->text().startsWith(QStringLiteral("Filter:"))) << panel.message()->text().toStdString();

    panel.filterEdit()->clear();
    EXPECT_EQ(model.rowCount(), 100);
    panel.periodFilter()->setCurrentIndex(2);  // problem
    EXPECT_EQ(model.rowCount(), 50);
    for (int r = 0; r < model.rowCount(); ++r) EXPECT_EQ(model.index(r, RequestTableModel::Period).data().toString(), QStringLiteral("problem"));
    panel.periodFilter()->setCurrentIndex(0);

    // Show only selected: brushing selects three requests; only those remain, and the current is one of them.
    panel.onlySelected()->setChecked(true);  // one row selected: it alone is shown
    EXPECT_EQ(model.rowCount(), 1);
    panel.selectRequests({RequestId(7), RequestId(40), RequestId(90)});
    EXPECT_EQ(model.rowCount(), 3);
    EXPECT_EQ(selectedRequests(panel, model).size(), 3u);
    panel.onlySelected()->setChecked(false);
    EXPECT_EQ(model.rowCount(), 100);
    EXPECT_EQ(selectedRequests(panel, model).size(), 3u) << "the selection outlives the filter";
}

TEST(RequestTablePanel, KeyboardNavigationMovesOneSelectionWhichIsTheRequestShown) {
    RequestTableModel model;
    widgets::RequestTablePanel panel(&model);
    panel.resize(700, 300);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    RequestId shown;
    QObject::connect(&panel, &widgets::RequestTablePanel::currentRequestChanged, [&shown](RequestId id) { shown = id; });
    model.setTable(makeTable(200), {});
    panel.tableReplaced();
    ASSERT_EQ(shown, model.requestAt(0));
    panel.view()->setFocus();
    const std::pair<Qt::Key, Qt::KeyboardModifiers> keys[] = {
        {Qt::Key_Down, Qt::NoModifier},   {Qt::Key_Down, Qt::ControlModifier}, {Qt::Key_Down, Qt::ControlModifier},
        {Qt::Key_Up, Qt::ControlModifier}, {Qt::Key_PageDown, Qt::NoModifier}, {Qt::Key_PageDown, Qt::ControlModifier},
        {Qt::Key_Up, Qt::NoModifier},     {Qt::Key_PageUp, Qt::NoModifier},    {Qt::Key_Down, Qt::ControlModifier}};
    int step = 0;
    for (const auto& [key, modifiers] : keys) {
        QTest::keyClick(panel.view(), key, modifiers);
        const auto selected = selectedRequests(panel, model);
        ASSERT_EQ(selected.size(), 1u) << "step " << step;
        EXPECT_EQ(selected.front(), shown) << "step " << step;
        EXPECT_EQ(panel.currentRequest(), shown) << "step " << step;
        ++step;
    }
    EXPECT_NE(shown, model.requestAt(0));
}

TEST(RequestTablePanel, SortingKeepsTheSelectedRowSelectedAndInView) {
    RequestTableModel model;
    widgets::RequestTablePanel panel(&model);
    panel.resize(700, 300);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    model.setTable(makeTable(300), {});
    panel.tableReplaced();
    panel.view()->sortByColumn(RequestTableModel::Latency, Qt::AscendingOrder);
    const RequestId chosen = model.requestAt(5);  // near the top in ascending order, near the bottom in descending
    ASSERT_TRUE(panel.selectRequest(chosen));
    panel.view()->sortByColumn(RequestTableModel::Latency, Qt::DescendingOrder);
    QApplication::processEvents();
    const auto selected = selectedRequests(panel, model);
    ASSERT_EQ(selected.size(), 1u);
    EXPECT_EQ(selected.front(), chosen);
    EXPECT_EQ(panel.currentRequest(), chosen);
    const QRect row = panel.view()->visualRect(panel.view()->currentIndex());
    EXPECT_TRUE(panel.view()->viewport()->rect().contains(row.center())) << "row at y=" << row.y();
}

TEST(JobRunner, ACancelledJobReportsNoLateProgress) {
    widgets::JobRunner runner;
    QStringList stages;
    QObject::connect(&runner, &widgets::JobRunner::progress, [&stages](double, const QString& stage) { stages << stage; });
    std::atomic<bool> release{false};
    std::atomic<bool> cancelled{false};
    runner.start<int>(
        [&](const CancelToken& cancel, const ProgressSink& progress) {
            while (!cancel.isCancelled()) QThread::msleep(1);
            progress(0.9, "writing results");  // as analysis does when it winds up
            cancelled = true;
            while (!release) QThread::msleep(1);
            return 0;
        },
        [](int) {});
    runner.cancel();
    ASSERT_TRUE(QTest::qWaitFor([&] { return cancelled.load(); }, 10000));
    release = true;
    QTest::qWait(50);
    QThreadPool::globalInstance()->waitForDone();
    QApplication::processEvents();
    EXPECT_TRUE(stages.isEmpty()) << stages.join(QLatin1Char(',')).toStdString();
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");  // also at test discovery
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
