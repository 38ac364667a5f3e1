// File › Capture: spans sent over OTLP/HTTP to the window's receiver appear in its request table as their traces
// go quiet, a late span updates the waterfall of the request on show, and a stop stores what is still open.
#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QTabWidget>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QMenuBar>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <fstream>

#include "LoopbackClient.h"
#include "CaptureDialog.h"
#include "CaptureRun.h"
#include "MainWindow.h"
#include "Session.h"
#include "compare/CompareWorkspace.h"
#include "tracelight/compare/PeriodComparison.h"
#include "tracelight/import/Import.h"
#include "models/RequestTableModel.h"
#include "models/RequestTablePanel.h"
#include "tracelight/store/TraceStore.h"
#include "waterfall/WaterfallView.h"

using namespace tracelight;

namespace {

// One OTLP/HTTP JSON request over a fresh connection; the response's status code (0: no answer).
int postJson(int port, const std::string& body) {
    test::LoopbackClient client(port);
    if (!client.connected()) return 0;
    client.send(test::otlpPost("application/json", body));
    return test::httpStatusOf(client.readAll());
}

struct Span {
    int trace, span, parent;  // parent 0: a root
    std::string name;
    long startMs, endMs;      // after a fixed origin
};

std::string hex(int n, int digits) {
    char text[33];
    std::snprintf(text, sizeof text, "%0*x", digits, n);
    return text;
}

std::string otlpJson(const std::vector<Span>& spans) {
    std::string out = R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"shop"}}]},)"
                      R"("scopeSpans":[{"spans":[)";
    const long long origin = 1'700'000'000'000'000'000LL;
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const Span& s = spans[i];
        out += (i ? "," : "") + std::string(R"({"traceId":")") + hex(s.trace, 32) + R"(","spanId":")" + hex(s.span, 16) + "\"";
        if (s.parent) out += R"(,"parentSpanId":")" + hex(s.parent, 16) + "\"";
        out += R"(,"name":")" + s.name + R"(","kind":2,"startTimeUnixNano":")" + std::to_string(origin + s.startMs * 1'000'000LL) +
               R"(","endTimeUnixNano":")" + std::to_string(origin + s.endMs * 1'000'000LL) + "\"}";
    }
    return out + "]}]}]}";
}

int rowOf(const widgets::RequestTableModel& model, const QString& name) {
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.index(row, widgets::RequestTableModel::Name).data().toString() == name) return row;
    return -1;
}

} // namespace

TEST(Capture, TheRequestTableFollowsTheSpansAsTheyArrive) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString db = dir.filePath(QStringLiteral("live.tldb"));
    app::MainWindow window;
    window.setErrorsToStderr(true);
    window.resize(1280, 860);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));

    ReceiverOptions options;
    options.httpAddress = "127.0.0.1:0";
    options.grpcAddress = "127.0.0.1:0";
    options.capture.quietNs = 300'000'000;  // 0.3 s
    options.capture.period = "live";
    ASSERT_TRUE(window.startCapture(db, options)) << window.lastError().toStdString();
    app::CaptureRun* run = window.session()->capture();
    ASSERT_TRUE(run);
    EXPECT_EQ(window.session()->path(), db);
    const std::string endpoint = run->endpoint();
    const int port = std::atoi(endpoint.substr(endpoint.rfind(':') + 1).c_str());

    auto* panel = window.findChild<widgets::RequestTablePanel*>();
    ASSERT_TRUE(panel);
    auto* model = qobject_cast<widgets::RequestTableModel*>(panel->view()->model());
    ASSERT_TRUE(model);

    // Two traces; the second's child comes later.
    ASSERT_EQ(postJson(port, otlpJson({{1, 1, 0, "checkout", 0, 40}, {1, 2, 1, "charge", 5, 30}, {2, 3, 0, "browse", 100, 120}})), 200);
    ASSERT_TRUE(QTest::qWaitFor([&] { return model->rowCount() == 2; }, 20000)) << model->rowCount() << " rows";
    const QString second = QString::fromStdString(hex(2, 32));
    const int row = rowOf(*model, second);
    ASSERT_GE(row, 0);
    EXPECT_EQ(model->index(row, widgets::RequestTableModel::Spans).data(widgets::RequestTableModel::SortRole).toLongLong(), 1);
    // The capture line says what arrived.
    EXPECT_TRUE(QTest::qWaitFor([&] {
        for (QLabel* label : window.statusBar()->findChildren<QLabel*>())
            if (label->isVisible() && label->text().contains(QStringLiteral("Capturing on")) && label->text().contains(QStringLiteral("gRPC 127.0.0.1:")) &&
                label->text().contains(QStringLiteral("3 spans")))
                return true;
        return false;
    }, 5000));

    // The second request on show; its late span reassembles it, and the waterfall follows.
    panel->view()->selectRow(row);
    auto* waterfall = window.findChild<widgets::WaterfallView*>(QStringLiteral("waterfall"));
    ASSERT_TRUE(waterfall);
    ASSERT_TRUE(QTest::qWaitFor([&] { return waterfall->request() && waterfall->request()->name == second.toStdString(); }, 20000));
    const std::size_t tasksBefore = waterfall->request()->taskCount();
    ASSERT_EQ(postJson(port, otlpJson({{2, 4, 3, "search", 105, 115}})), 200);
    ASSERT_TRUE(QTest::qWaitFor([&] {
        const int r = rowOf(*model, second);
        return r >= 0 && model->index(r, widgets::RequestTableModel::Spans).data(widgets::RequestTableModel::SortRole).toLongLong() == 2;
    }, 20000));
    EXPECT_TRUE(QTest::qWaitFor([&] {
        return waterfall->request() && waterfall->request()->name == second.toStdString() && waterfall->request()->taskCount() > tasksBefore;
    }, 20000));

    // The capture line counts each trace once, however often a late span stored it again.
    EXPECT_TRUE(QTest::qWaitFor([&] {
        for (QLabel* label : window.statusBar()->findChildren<QLabel*>())
            if (label->isVisible() && label->text().contains(QStringLiteral("4 spans · 2 requests"))) return true;
        return false;
    }, 5000));
    if (const char* png = std::getenv("CAPTURE_PNG")) {  // to look at: the window while it captures
        QTest::qWait(1500);
        window.grab().save(QString::fromUtf8(png));
    }

    // A trace still open when the capture stops is stored by the stop, and the table shows it.
    ASSERT_EQ(postJson(port, otlpJson({{3, 5, 0, "pay", 200, 230}})), 200);
    QAction* toggle = nullptr;
    for (QAction* a : window.menuBar()->actions().front()->menu()->actions())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L)) toggle = a;
    ASSERT_TRUE(toggle);
    EXPECT_EQ(toggle->text(), QStringLiteral("Stop &Capture"));
    window.stopCapture();
    EXPECT_FALSE(window.session()->capture());
    EXPECT_EQ(toggle->text(), QStringLiteral("&Capture Live Spans…"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return model->rowCount() == 3; }, 20000)) << model->rowCount() << " rows";
    auto store = TraceStore::open(db.toStdString(), TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store);
    auto info = store.value()->info();
    ASSERT_TRUE(info);
    EXPECT_EQ(info->requests, 3);
    EXPECT_EQ(info->spans, 5);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.isLoading(); }, 60000));
}

// While spans arrive, the Compare tab compares a stored period with the running capture's, and a comparison
// asked again after more traces were stored takes them in.
TEST(Capture, TheRunningCaptureComparesWithAStoredPeriod) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString db = dir.filePath(QStringLiteral("live.tldb"));
    // Checkouts (a charge inside each) of `ms` milliseconds, traces first, first + 1, …: a comparison tests periods of
    // at least 10 requests.
    auto checkouts = [](int first, int count, long ms) {
        std::vector<Span> spans;
        for (int t = first; t < first + count; ++t) {
            const long start = 100L * t;
            spans.push_back({t, 2 * t, 0, "checkout", start, start + ms});
            spans.push_back({t, 2 * t + 1, 2 * t, "charge", start + 5, start + ms - 10});
        }
        return otlpJson(spans);
    };
    constexpr int kBaseline = 12, kFirstRound = 10, kSecondRound = 2;
    {
        // Last week's checkouts of 40 ms, imported as the period "baseline".
        const std::string file = dir.filePath(QStringLiteral("baseline.json")).toStdString();
        std::ofstream(file) << checkouts(1000, kBaseline, 40);
        auto store = TraceStore::open(db.toStdString(), TraceStore::Mode::Create);
        ASSERT_TRUE(store);
        ImportOptions import;
        import.inputs = {file};
        import.period = "baseline";
        ASSERT_TRUE(importTraces(*store.value(), import));
    }
    app::MainWindow window;
    window.setErrorsToStderr(true);
    window.resize(1280, 860);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    ReceiverOptions options;
    options.httpAddress = "127.0.0.1:0";
    options.capture.quietNs = 300'000'000;
    options.capture.period = "live";
    ASSERT_TRUE(window.startCapture(db, options)) << window.lastError().toStdString();
    ASSERT_TRUE(window.session()->capture());
    const std::string endpoint = window.session()->capture()->endpoint();
    const int port = std::atoi(endpoint.substr(endpoint.rfind(':') + 1).c_str());

    auto* compare = window.findChild<widgets::CompareWorkspace*>();
    ASSERT_TRUE(compare);
    for (QTabWidget* tabs : window.findChildren<QTabWidget*>())
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->widget(i) == compare || tabs->widget(i)->isAncestorOf(compare)) tabs->setCurrentIndex(i);
    auto knowsLive = [&] {
        for (QComboBox* box : compare->findChildren<QComboBox*>())
            if (box->findText(QStringLiteral("live")) >= 0 && box->findText(QStringLiteral("baseline")) >= 0) return true;
        return false;
    };
    // The capture's requests so far, compared with the baseline: the capture still runs.
    auto compared = [&](std::size_t captured) -> const PeriodComparison* {
        const bool ready = QTest::qWaitFor([&] { return knowsLive() && !window.isLoading(); }, 30000);
        EXPECT_TRUE(ready) << "the Compare tab never offered the capture's period";
        if (!ready) return nullptr;
        bool done = false;
        const auto connection = QObject::connect(compare, &widgets::CompareWorkspace::resultsReady, [&] { done = true; });
        compare->setPeriods(QStringLiteral("baseline"), QStringLiteral("live"));
        const bool shown = QTest::qWaitFor([&] { return done; }, 30000);
        QObject::disconnect(connection);
        const PeriodComparison* c = compare->comparison();
        EXPECT_TRUE(shown && c) << compare->summaryText().toStdString();
        if (!c) return nullptr;
        EXPECT_EQ(c->baseline, "baseline");
        EXPECT_EQ(c->problem, "live");
        EXPECT_EQ(c->baselineEntries.size(), static_cast<std::size_t>(kBaseline));
        EXPECT_EQ(c->problemEntries.size(), captured);
        EXPECT_TRUE(window.session()->capture());
        return c;
    };

    // Slow checkouts (90 ms) arrive.
    ASSERT_EQ(postJson(port, checkouts(1, kFirstRound, 90)), 200);
    auto* panel = window.findChild<widgets::RequestTablePanel*>();
    ASSERT_TRUE(panel);
    ASSERT_TRUE(QTest::qWaitFor([&] { return panel->view()->model()->rowCount() == kBaseline + kFirstRound; }, 20000));
    ASSERT_TRUE(compared(kFirstRound));
    // More while the capture goes on: compared again, they are in.
    ASSERT_EQ(postJson(port, checkouts(1 + kFirstRound, kSecondRound, 90)), 200);
    ASSERT_TRUE(QTest::qWaitFor([&] { return panel->view()->model()->rowCount() == kBaseline + kFirstRound + kSecondRound; }, 20000));
    const PeriodComparison* after = compared(kFirstRound + kSecondRound);
    ASSERT_TRUE(after);
    window.stopCapture();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.isLoading(); }, 60000));
}

// A capture that cannot start (the address is taken) says why and leaves the open database as it was.
TEST(Capture, AnAddressInUseIsRefusedWithItsReason) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString db = dir.filePath(QStringLiteral("a.tldb"));
    app::MainWindow window;
    window.setErrorsToStderr(true);
    ReceiverOptions options;
    options.httpAddress = "127.0.0.1:0";
    ASSERT_TRUE(window.startCapture(db, options)) << window.lastError().toStdString();
    const std::string taken = window.session()->capture()->endpoint();
    app::MainWindow other;
    other.setErrorsToStderr(true);
    options.httpAddress = taken;
    EXPECT_FALSE(other.startCapture(dir.filePath(QStringLiteral("b.tldb")), options));
    EXPECT_TRUE(other.hasFailed());
    EXPECT_FALSE(other.session()->capture());
    EXPECT_FALSE(other.lastError().isEmpty());
    // An address that is no address, and a database where none can be made: one message each, nothing started.
    options.httpAddress = "not-an-address:99999";
    EXPECT_FALSE(other.startCapture(dir.filePath(QStringLiteral("c.tldb")), options));
    EXPECT_TRUE(other.lastError().contains(QStringLiteral("not-an-address"))) << other.lastError().toStdString();
    options.httpAddress = "127.0.0.1:0";
    options.grpcAddress = "127.0.0.1:0";
    EXPECT_FALSE(other.startCapture(dir.filePath(QStringLiteral("no/such/folder/d.tldb")), options));
    EXPECT_FALSE(other.session()->capture());
    EXPECT_FALSE(QFileInfo::exists(dir.filePath(QStringLiteral("no/such/folder"))));
    window.stopCapture();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.isLoading(); }, 60000));
}

// The dialog proposes the open database, and remembers the address and the quiet time it was accepted with.
TEST(Capture, TheDialogProposesTheOpenDatabaseAndRemembersItsChoices) {
    QSettings().remove(QStringLiteral("capture"));
    {
        app::CaptureDialog dialog(QStringLiteral("/data/shop.tldb"));
        EXPECT_EQ(dialog.database(), QStringLiteral("/data/shop.tldb"));
        const ReceiverOptions defaults = dialog.options();
        EXPECT_EQ(defaults.httpAddress, "127.0.0.1:4318");
        EXPECT_EQ(defaults.grpcAddress, "127.0.0.1:4317");
        EXPECT_EQ(defaults.capture.quietNs, 1'000'000'000);  // shorter than serve's: the window shows traces soon
        EXPECT_EQ(defaults.capture.period, "");  // named by its start time when it starts
        dialog.findChildren<QLineEdit*>().at(1)->setText(QStringLiteral("127.0.0.1:14318"));
        dialog.findChildren<QLineEdit*>().at(2)->clear();  // no gRPC
        dialog.findChild<QDoubleSpinBox*>()->setValue(2.5);
        if (const char* png = std::getenv("CAPTURE_DIALOG_PNG")) {
            dialog.show();
            dialog.grab().save(QString::fromUtf8(png));
        }
        dialog.accept();
    }
    app::CaptureDialog again(QString{});
    EXPECT_TRUE(again.database().endsWith(QStringLiteral("/capture.tldb")));
    EXPECT_EQ(again.options().httpAddress, "127.0.0.1:14318");
    EXPECT_EQ(again.options().grpcAddress, "");
    EXPECT_EQ(again.options().capture.quietNs, 2'500'000'000);
    QSettings().remove(QStringLiteral("capture"));
}
