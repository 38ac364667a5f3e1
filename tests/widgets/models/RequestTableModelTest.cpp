#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>

#include "models/RequestTableModel.h"

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

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");  // also at test discovery
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
