// tracelight: the desktop application.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QScreen>
#include <QTabWidget>
#include <QTableView>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "MainWindow.h"
#include "common/PictureSize.h"
#include "common/PlotExport.h"
#include "bottleneck/BottlenecksView.h"
#include "compare/CompareWorkspace.h"
#include "graph/GraphLayout.h"
#include "graph/GraphView.h"

int main(int argc, char** argv) {
    QElapsedTimer sinceStart;  // --first-waterfall reports from here
    sinceStart.start();
#if defined(__GLIBC__)
    // The app lives on while its workers build and drop arrays of hundreds of megabytes (a million-span
    // request). glibc raises its mmap threshold after each such free, so later big arrays come from the
    // worker threads' heaps and stay mapped after their views let go: 300 MB more resident than in use
    // on the nested million-span trace. A fixed threshold maps each big array alone and unmaps it on free.
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    // What needs no window (--screenshot, --help, --version) works with no display: choose the offscreen
    // platform before QApplication needs one (unless the user chose a platform). A window with no display
    // to show it on is one line saying so, not Qt's abort.
    bool headless = false;
    for (int i = 1; i < argc; ++i)
        for (const char* option : {"--screenshot", "--help", "--help-all", "-h", "--version", "-v"})
            if (std::strcmp(argv[i], option) == 0 || (option[1] == '-' && std::strncmp(argv[i], option, std::strlen(option)) == 0 &&
                                                      argv[i][std::strlen(option)] == '='))
                headless = true;
    const bool noDisplay = qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
                           qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
    if (noDisplay && headless) qputenv("QT_QPA_PLATFORM", "offscreen");
    if (noDisplay && !headless) {
        std::fprintf(stderr, "tracelight: no display (DISPLAY and WAYLAND_DISPLAY are unset): render to a file with --screenshot FILE.png, "
                             "or choose a platform with QT_QPA_PLATFORM\n");
        return 1;
    }
    QApplication app(argc, argv);
    // Destroyed after the window and before the application: a Graphviz layout abandoned past its time budget
    // is let finish (for a few seconds at most) rather than cut short by the process's exit.
    struct AbandonedLayouts {
        ~AbandonedLayouts() { tracelight::widgets::waitForAbandonedLayouts(std::chrono::seconds(5)); }
    } abandonedLayouts;
    QApplication::setOrganizationName(QStringLiteral("Tracelight"));
    QApplication::setApplicationName(QStringLiteral("Tracelight"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Which components decide the latency of distributed requests."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A trace database, or a trace file (OTLP, Jaeger, Zipkin, span table, "
                                                                        "event log) to import into FILE.tldb and open."));
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Render the main window to a PNG file and exit (works with no display)."),
                                  QStringLiteral("file.png"));
    QCommandLineOption tab(QStringLiteral("tab"),
                           QStringLiteral("With --screenshot: waterfall (default), graph, breakdown, outliers, scatter, slack, whatif, compare, profile, bottlenecks or bursts."),
                           QStringLiteral("view"), QStringLiteral("waterfall"));
    QCommandLineOption importOption(QStringLiteral("import"),
                                    QStringLiteral("Import this trace file into the database first (as File > Import Traces does)."),
                                    QStringLiteral("file"));
    QCommandLineOption graphMode(QStringLiteral("graph-mode"),
                                 QStringLiteral("The graph tab shows: model (the causal model), services (the service map) or operations "
                                                "(every service expanded); the last two need span data. Default: as last chosen."),
                                 QStringLiteral("mode"));
    parser.addOption(graphMode);
    QCommandLineOption filter(QStringLiteral("filter"),
                              QStringLiteral("Type this into the request table's filter box (e.g. \"latency>250ms period:baseline\")."),
                              QStringLiteral("terms"));
    QCommandLineOption waterfallMode(QStringLiteral("waterfall-mode"),
                                     QStringLiteral("The waterfall tab's mode: lanes (a lane per host) or spans (the span tree, for requests "
                                                    "imported from spans). Remembered like the View > Span Tree toggle."),
                                     QStringLiteral("mode"));
    QCommandLineOption compareView(QStringLiteral("compare-view"),
                                   QStringLiteral("With --screenshot --tab compare: the entry view shown, one of suspects, detail, side-by-side, "
                                                  "diff, c2, timeline, over-time, swim-lanes, train-schedules, tree or categories (default: suspects when there "
                                                  "are some)."),
                                   QStringLiteral("view"));
    parser.addOption(compareView);
    QCommandLineOption compareEntry(QStringLiteral("compare-entry"),
                                    QStringLiteral("With --screenshot --tab compare: show entry N (its rank; default 1)."), QStringLiteral("N"));
    parser.addOption(compareEntry);
    QCommandLineOption comparePrecursor(QStringLiteral("compare-precursor"),
                                        QStringLiteral("With --screenshot --tab compare: compare the entry with this candidate precursor "
                                                       "category (as compare --precursor)."),
                                        QStringLiteral("CAT"));
    parser.addOption(comparePrecursor);
    QCommandLineOption comparePaper(QStringLiteral("compare-paper"),
                                    QStringLiteral("With --screenshot --tab compare: Spectroscope's own statistics (the tab's Paper toggle, "
                                                   "as compare --paper)."));
    parser.addOption(comparePaper);
    QCommandLineOption bottlenecksLatency(QStringLiteral("bottlenecks-latency"),
                                          QStringLiteral("With --screenshot --tab bottlenecks: the latency percentiles shown, LO..HI (90..100: "
                                                         "the slowest 10 %)."),
                                          QStringLiteral("LO..HI"));
    parser.addOption(bottlenecksLatency);
    QCommandLineOption bottlenecksCompare(QStringLiteral("bottlenecks-compare"),
                                          QStringLiteral("With --screenshot --tab bottlenecks: compare with this period (before and after)."),
                                          QStringLiteral("period"));
    parser.addOption(bottlenecksCompare);
    QCommandLineOption graphPeriod(QStringLiteral("graph-period"),
                                   QStringLiteral("With --screenshot --tab graph: the causal model inferred from this period's requests alone."),
                                   QStringLiteral("period"));
    parser.addOption(graphPeriod);
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("With --screenshot: the window's size (default 1280x860)."),
                            QStringLiteral("WxH"), QStringLiteral("1280x860"));
    parser.addOption(size);
    QCommandLineOption firstWaterfall(QStringLiteral("first-waterfall"),
                                      QStringLiteral("With --screenshot: take the picture as soon as the first request's waterfall is drawn (a trace "
                                                     "file's from memory, before its import ends) and print the milliseconds it took."));
    parser.addOption(firstWaterfall);
    parser.addOption(screenshot);
    parser.addOption(waterfallMode);
    parser.addOption(filter);
    parser.addOption(tab);
    parser.addOption(importOption);
    parser.process(app);

    // A screenshot run starts from the default settings and leaves the user's (recent files, waterfall
    // mode, filter, layout) as they were: its settings live in a directory removed when it ends.
    std::optional<QTemporaryDir> screenshotSettings;
    if (!parser.value(screenshot).isEmpty() && screenshotSettings.emplace().isValid())
        for (auto format : {QSettings::NativeFormat, QSettings::IniFormat})
            QSettings::setPath(format, QSettings::UserScope, screenshotSettings->path());
    tracelight::app::MainWindow window;
    if (parser.isSet(graphMode)) {
        const QStringList modes = {QStringLiteral("model"), QStringLiteral("services"), QStringLiteral("operations")};
        const auto mode = modes.indexOf(parser.value(graphMode));
        if (mode < 0) {
            std::fprintf(stderr, "tracelight: --graph-mode needs model, services or operations, not '%s'\n", qPrintable(parser.value(graphMode)));
            return 2;
        }
        if (auto* overview = window.findChild<tracelight::widgets::ModelOverview*>())
            overview->setMode(static_cast<tracelight::widgets::ModelOverview::Mode>(mode));
    }
    if (parser.isSet(filter)) window.setRequestFilter(parser.value(filter));
    if (parser.isSet(waterfallMode)) {
        const QString mode = parser.value(waterfallMode);
        if (mode != QLatin1String("lanes") && mode != QLatin1String("spans")) {
            std::fprintf(stderr, "tracelight: --waterfall-mode: expected lanes or spans, not '%s'\n", qPrintable(mode));
            return 2;
        }
        window.setWaterfallMode(mode);
    }
    const QStringList files = parser.positionalArguments();
    const QString shot = parser.value(screenshot);
    if (!shot.isEmpty()) {
        window.setErrorsToStderr(true);  // a failed import or open prints its error and exits non-zero, no modal box
        const auto parsedSize = tracelight::widgets::parsePictureSize(parser.value(size).toStdString());
        if (!parsedSize) {
            std::fprintf(stderr, "tracelight: --size needs WxH from 200x150 to 10000x10000, not '%s'\n", qPrintable(parser.value(size)));
            return 2;
        }
        const QSize requested(parsedSize->width, parsedSize->height);
        window.resize(requested);
        bool waterfallShown = false;
        QObject::connect(&window, &tracelight::app::MainWindow::waterfallShown, [&] { waterfallShown = true; });
        if (parser.isSet(importOption) && !files.isEmpty()) {
            window.startImport(parser.values(importOption), files.first(), QStringLiteral("imported"));
        } else if (!files.isEmpty() && !window.openPath(files.first())) {
            return 1;
        }
        const QString view = parser.value(tab);
        const QStringList pages = {QStringLiteral("breakdown"), QStringLiteral("outliers"), QStringLiteral("scatter"), QStringLiteral("slack"),
                                   QStringLiteral("whatif")};
        const QStringList tabs = {QStringLiteral("waterfall"), QStringLiteral("graph"), QStringLiteral("compare"), QStringLiteral("profile"),
                                  QStringLiteral("bottlenecks"), QStringLiteral("bursts")};
        if (!pages.contains(view) && !tabs.contains(view)) {
            std::fprintf(stderr, "tracelight: unknown --tab '%s' (one of %s)\n", qPrintable(view), qPrintable((tabs + pages).join(", ")));
            return 1;
        }
        if (pages.contains(view)) window.showAggregatePage(static_cast<int>(pages.indexOf(view)));
        else window.showTab(view == QLatin1String("graph") ? 1 : view == QLatin1String("compare") ? 3 : view == QLatin1String("profile") ? 4
                       : view == QLatin1String("bottlenecks") ? 5 : view == QLatin1String("bursts") ? 6 : 0);
        window.show();
        // Runs the events until done() holds (polled every 100 ms) or timeoutMs have passed.
        auto waitUntil = [](const std::function<bool()>& done, int timeoutMs) {
            QEventLoop loop;
            QTimer poll;
            QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
                if (done()) loop.quit();
            });
            poll.start(100);
            QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
            loop.exec();
            QApplication::processEvents();
        };
        if (parser.isSet(firstWaterfall)) {
            // At once when the view has the request: the picture is drawn by grab() below.
            QEventLoop loop;
            QObject::connect(&window, &tracelight::app::MainWindow::waterfallShown, &loop, &QEventLoop::quit);
            QTimer failed;
            QObject::connect(&failed, &QTimer::timeout, &loop, [&] {
                if (window.hasFailed() || !window.isLoading()) loop.quit();
            });
            failed.start(100);
            QTimer::singleShot(120000, &loop, &QEventLoop::quit);
            if (!waterfallShown) loop.exec();
            if (window.hasFailed()) return 1;
            if (!waterfallShown) {
                std::fprintf(stderr, "tracelight: --first-waterfall: no waterfall was shown\n");
                return 1;
            }
            const QPixmap picture = window.grab();
            const qint64 drawnMs = sinceStart.elapsed();
            if (!picture.save(shot)) {
                std::fprintf(stderr, "tracelight: cannot write %s\n", qPrintable(shot));
                return 1;
            }
            std::printf("wrote %s\nwaterfall drawn %lld ms after the start\n", qPrintable(shot), static_cast<long long>(drawnMs));
            std::fflush(stdout);
            return 0;  // the import behind it is cancelled on the way out (a new database is not kept half made)
        }
        // Wait until analysis, table, model and the selected request are all in (at most two minutes).
        waitUntil([&] { return !window.isLoading(); }, 120000);
        QApplication::processEvents();
        if (window.hasFailed()) return 1;
        if (parser.isSet(compareView) || parser.isSet(compareEntry) || parser.isSet(comparePrecursor) || parser.isSet(comparePaper)) {
            // The entry views in their tab order; the one asked for is shown once the comparison is in.
            const QStringList views = {QStringLiteral("suspects"), QStringLiteral("detail"), QStringLiteral("side-by-side"), QStringLiteral("diff"),
                                       QStringLiteral("c2"),       QStringLiteral("timeline"), QStringLiteral("over-time"), QStringLiteral("swim-lanes"),
                                       QStringLiteral("train-schedules"), QStringLiteral("tree"), QStringLiteral("categories")};
            auto* workspace = window.findChild<tracelight::widgets::CompareWorkspace*>();
            if (!workspace) return 1;
            const auto index = parser.isSet(compareView) ? views.indexOf(parser.value(compareView)) : -1;
            if (parser.isSet(compareView) && index < 0) {
                std::fprintf(stderr, "tracelight: --compare-view needs one of %s, not '%s'\n", qPrintable(views.join(", ")),
                             qPrintable(parser.value(compareView)));
                return 2;
            }
            auto settle = [&] { waitUntil([&] { return !window.isLoading() && !workspace->isComputing(); }, 60000); };
            settle();
            if (parser.isSet(comparePaper) && !workspace->paperStatistics()->isChecked()) {
                workspace->paperStatistics()->setChecked(true);  // compares again, with the paper's statistics
                settle();
            }
            if (parser.isSet(compareEntry)) {
                bool number = false;
                const int rank = parser.value(compareEntry).toInt(&number);
                const int entries = workspace->entryTable()->model()->rowCount();
                if (!number || rank < 1 || rank > entries) {
                    std::fprintf(stderr, "tracelight: --compare-entry %s: no such entry (the comparison has %d)\n",
                                 qPrintable(parser.value(compareEntry)), entries);
                    return 2;
                }
                workspace->entryTable()->sortByColumn(0, Qt::AscendingOrder);  // by rank
                workspace->entryTable()->selectRow(rank - 1);
                settle();
            }
            if (parser.isSet(comparePrecursor)) {
                QComboBox* chooser = workspace->precursorChooser();
                const int at = chooser->findData(parser.value(comparePrecursor).toUInt());
                if (at < 0 || !chooser->isEnabled()) {
                    QStringList candidates;
                    for (int i = 0; i < chooser->count(); ++i)
                        if (chooser->itemData(i).isValid()) candidates << chooser->itemData(i).toString();
                    std::fprintf(stderr, "tracelight: --compare-precursor %s: not a candidate precursor of the entry shown (its candidates: %s)\n",
                                 qPrintable(parser.value(comparePrecursor)), candidates.isEmpty() ? "none" : qPrintable(candidates.join(", ")));
                    return 2;
                }
                chooser->setCurrentIndex(at);
                emit chooser->activated(at);
                settle();
            }
            if (index >= 0) {
                workspace->entryViews()->setCurrentIndex(static_cast<int>(index));
                settle();
            }
        }
        if (parser.isSet(graphPeriod)) {
            auto* overview = window.findChild<tracelight::widgets::ModelOverview*>();
            if (!overview) return 1;
            const QString period = parser.value(graphPeriod);
            if (overview->periodBox()->findText(period) < 1) {
                std::fprintf(stderr, "tracelight: --graph-period: no period '%s'\n", qPrintable(period));
                return 2;
            }
            overview->setPeriod(period);
            waitUntil([&] { return !window.isLoading(); }, 120000);
        }
        if (parser.isSet(bottlenecksLatency) || parser.isSet(bottlenecksCompare)) {
            auto* bottlenecks = window.findChild<tracelight::widgets::BottlenecksView*>();
            if (!bottlenecks) return 1;
            if (parser.isSet(bottlenecksCompare)) {
                const QString period = parser.value(bottlenecksCompare);
                if (bottlenecks->compareChooser()->findData(period) < 0) {
                    std::fprintf(stderr, "tracelight: --bottlenecks-compare: no period '%s'\n", qPrintable(period));
                    return 2;
                }
                bottlenecks->compareChooser()->setCurrentIndex(bottlenecks->compareChooser()->findData(period));
            }
            // The range as typed (the view checks it and names what is wrong in its status line).
            bottlenecks->setLatencyPercentile(parser.value(bottlenecksLatency));
            waitUntil([&] { return !window.isLoading() && !bottlenecks->isComputing(); }, 60000);
        }
        const QPixmap picture = window.grab();
        if (picture.size() != window.size() || window.size() != requested)
            std::fprintf(stderr, "tracelight: the window cannot be %dx%d (its smallest size is %dx%d); the picture is %dx%d\n",
                         requested.width(), requested.height(), window.minimumSizeHint().width(), window.minimumSizeHint().height(),
                         picture.width(), picture.height());
        if (!picture.save(shot)) {
            std::fprintf(stderr, "tracelight: cannot write %s\n", qPrintable(shot));
            return 1;
        }
        std::printf("wrote %s\n", qPrintable(shot));
        return 0;
    }
    window.show();
    if (parser.isSet(importOption) && !files.isEmpty()) window.startImport(parser.values(importOption), files.first(), QStringLiteral("imported"));
    else if (!files.isEmpty()) window.openPath(files.first());
    return app.exec();
}
