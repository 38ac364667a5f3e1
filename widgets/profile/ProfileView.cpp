#include "ProfileView.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QHeaderView>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <iterator>

#include "FlameGraphView.h"
#include "FrameHistogram.h"
#include "FrameTables.h"
#include "compare/SuspectsView.h"
#include "common/Counts.h"
#include "common/FileDialogs.h"
#include "common/QtText.h"
#include "common/TimeFormat.h"
#include "common/HoverText.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::widgets {

namespace {
// What the "Requests" choice selects besides a period (its item's Qt::UserRole + 1).
enum Source { PeriodSource = 0, OutlierSource = 1, SelectionSource = 2 };
constexpr int kSourceRole = Qt::UserRole + 1;
} // namespace

ProfileView::ProfileView(QWidget* parent) : QWidget(parent) {
    m_period = new QComboBox(this);
    m_period->setToolTip(tr("Whose critical paths: every request, or one period's"));
    m_diffBase = new QComboBox(this);
    m_diffBase->setToolTip(tr("Diff the profile against another period's: red frames got slower, blue faster (significant only)"));
    keepComboNarrow(m_period);
    keepComboNarrow(m_diffBase);
    m_suspects = new SuspectsView(this);
    m_suspects->hide();  // a tab only in a diff
    m_changes = new QTableWidget(0, 6, this);
    m_changes->setHorizontalHeaderLabels({tr("Frame"), tr("Base"), tr("Target"), tr("Δ self"), tr("× self"), tr("p")});
    m_changes->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_changes->verticalHeader()->setVisible(false);
    m_changes->horizontalHeader()->setStretchLastSection(true);
    m_changes->setColumnWidth(0, 250);
    m_changes->setColumnWidth(1, 80);
    m_changes->setColumnWidth(2, 80);
    m_changes->setColumnWidth(3, 80);
    m_changes->setColumnWidth(4, 60);
    m_changes->setWordWrap(false);
    m_changes->setTextElideMode(Qt::ElideMiddle);
    m_changes->setToolTip(tr("Significant frames by relative slowdown of self time; hover a frame for its stack"));
    m_top = new TopFramesTable(this);
    m_sandwich = new SandwichView(this);
    m_tables = new QTabWidget(this);
    m_tables->addTab(m_top, tr("Top frames"));
    m_tables->addTab(m_sandwich, tr("Sandwich"));
    m_histogram = new FrameHistogram(this);
    m_tables->addTab(m_histogram, tr("Histogram"));
    // A diff's A/A table: a tab of its own while a diff is shown.
    m_aaPage = new QWidget(this);
    m_aaCaption = new QLabel(m_aaPage);
    m_aaCaption->setWordWrap(true);
    m_aaTable = new QTableWidget(m_aaPage);
    m_aaTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_aaTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    auto* aaLayout = new QVBoxLayout(m_aaPage);
    aaLayout->setContentsMargins(4, 4, 4, 4);
    aaLayout->addWidget(m_aaCaption);
    aaLayout->addWidget(m_aaTable, 1);
    m_aaPage->hide();
    m_orientation = new QComboBox(this);
    m_orientation->addItem(tr("Icicle (root on top)"));
    m_orientation->addItem(tr("Flame (root at the bottom)"));
    m_orientation->setToolTip(tr("Which way the stacks grow"));
    m_orientation->setCurrentIndex(QSettings().value("profile/orientation", 0).toInt() == 1 ? 1 : 0);
    m_where = new QLineEdit(this);
    m_where->setPlaceholderText(tr("Where ATTR=V, ATTR>N… (Enter)"));
    m_where->setClearButtonEnabled(true);
    m_where->setToolTip(tr("Only requests whose attribute matches (=, !=, <, >; numbers compared as numbers), on top of "
                           "the chosen requests and of the diff's base"));
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search frames (service, operation, segment)…"));
    m_search->setClearButtonEnabled(true);
    auto* exportButton = new QPushButton(tr("Export…"), this);
    exportButton->setToolTip(tr("Save as folded stacks (.folded), speedscope JSON (.json) or pprof (.pb.gz)"));
    m_status = new QLabel(this);
    m_status->setWordWrap(true);  // a long message (periods are named after files) must not widen the window
    m_crumb = new QLabel(this);
    m_crumb->setWordWrap(true);
    m_crumb->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_flame = new FlameGraphView(this);
    m_flame->setOrientation(m_orientation->currentIndex() == 1 ? FlameGraphView::Orientation::Flame : FlameGraphView::Orientation::Icicle);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_flame);
    scroll->setWidgetResizable(true);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Requests:"), this));
    top->addWidget(m_period, 1);
    top->addWidget(m_where, 1);
    top->addWidget(new QLabel(tr("Diff against:"), this));
    top->addWidget(m_diffBase, 1);
    top->addWidget(m_search, 2);
    top->addWidget(m_orientation);
    top->addWidget(exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_status);
    layout->addWidget(m_crumb);
    m_split = new QSplitter(Qt::Horizontal, this);
    auto* split = m_split;
    split->addWidget(scroll);
    split->addWidget(m_tables);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(m_period, &QComboBox::activated, this, &ProfileView::compute);
    connect(m_where, &QLineEdit::returnPressed, this, &ProfileView::compute);
    connect(m_diffBase, &QComboBox::activated, this, &ProfileView::compute);
    connect(m_suspects, &SuspectsView::keyActivated, this, [this](const QString& key) { m_search->setText(key); });
    connect(m_suspects, &SuspectsView::requestActivated, this, &ProfileView::requestActivated);
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_flame->setSearch(text);
        updateLabels();
    });
    connect(m_flame, &FlameGraphView::zoomChanged, this, [this] {
        updateLabels();
        // The zoomed frame is the one being looked at: its callers and callees.
        if (m_profile && m_flame->zoomedFrame() >= 0)
            m_sandwich->setName(QString::fromStdString(m_profile->frames[static_cast<std::size_t>(m_flame->zoomedFrame())].name));
        showHistogram(m_flame->zoomedFrame());
    });
    connect(m_flame, &FlameGraphView::frameMenuRequested, this, &ProfileView::showFrameMenu);
    connect(m_orientation, &QComboBox::activated, this, [this](int index) {
        m_flame->setOrientation(index == 1 ? FlameGraphView::Orientation::Flame : FlameGraphView::Orientation::Icicle);
        QSettings().setValue("profile/orientation", index);
    });
    connect(m_top, &TopFramesTable::nameActivated, this, [this](const QString& name) {
        m_sandwich->setName(name);
        m_tables->setCurrentWidget(m_sandwich);
    });
    connect(exportButton, &QPushButton::clicked, this, &ProfileView::exportDialog);
    clear(tr("Open an analysed database to see where its requests' latency goes."));
}

void ProfileView::clear(const QString& message) {
    m_awaiting = false;  // a result still on its way is not shown
    m_aaAwaiting = false;
    m_profile.reset();
    m_diff.reset();
    m_changes->setRowCount(0);
    showChangesTab(false);
    m_flame->setProfile(nullptr);
    m_top->setProfile(nullptr, 0);
    m_sandwich->setProfile(nullptr, 0);
    m_status->setText(message);
    m_crumb->clear();
}

void ProfileView::setDatabase(std::shared_ptr<const InMemoryAnalysis> analysis, const QStringList& periods) {
    m_awaiting = false;  // what was asked of the old data is not shown (the session may have cancelled it)
    m_aaAwaiting = false;
    m_analysis = std::move(analysis);
    const QSignalBlocker block(m_period);
    m_period->clear();
    m_period->addItem(QString(), QString());  // the scope: named by setScope
    for (const auto& p : periods) m_period->addItem(tr("Period %1").arg(p), p);
    m_period->addItem(tr("Outliers (slowest 5 %)"), QString());
    m_period->setItemData(m_period->count() - 1, OutlierSource, kSourceRole);
    m_period->setItemData(m_period->count() - 1, tr("Requests slower than 95 % of all, as the Outliers study splits them"), Qt::ToolTipRole);
    m_period->addItem(tr("Selected in the request table"), QString());
    m_period->setItemData(m_period->count() - 1, SelectionSource, kSourceRole);
    m_period->setItemData(m_period->count() - 1, tr("The requests selected in the table (brush a plot or Ctrl/Shift-click rows)"), Qt::ToolTipRole);
    nameScopeItem(m_period, m_scope);
    const QSignalBlocker blockDiff(m_diffBase);
    m_diffBase->clear();
    m_diffBase->addItem(tr("(no diff)"), QString());
    for (const auto& p : periods) m_diffBase->addItem(tr("Period %1").arg(p), p);
    m_pending = true;
    if (isVisible()) compute();
}

void ProfileView::setPeriod(const QString& period) {
    const int index = m_period->findData(period);
    if (index >= 0) m_period->setCurrentIndex(index);
    compute();
}

void ProfileView::setScope(const RequestScope& scope) {
    m_scope = scope;
    nameScopeItem(m_period, m_scope);
    m_pending = true;
    if (isVisible() && m_period->currentIndex() == 0) compute();
}

void ProfileView::setAggregates(std::shared_ptr<const RequestAggregates> aggregates) { m_aggregates = std::move(aggregates); }

void ProfileView::setSelection(std::vector<RequestId> selection) {
    m_selection = std::move(selection);
    if (m_period->currentData(kSourceRole).toInt() == SelectionSource && isVisible()) compute();
}

void ProfileView::chooseOutliers() {
    m_period->setCurrentIndex(m_period->findData(OutlierSource, kSourceRole));
    compute();
}

void ProfileView::chooseSelection() {
    m_period->setCurrentIndex(m_period->findData(SelectionSource, kSourceRole));
    compute();
}

void ProfileView::setWhere(const QString& predicate) {
    m_where->setText(predicate);
    compute();
}

void ProfileView::setDiffBase(const QString& period) {
    const int index = m_diffBase->findData(period);
    if (index >= 0) m_diffBase->setCurrentIndex(index);
    compute();
}

void ProfileView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_pending) compute();
}

bool ProfileView::isComputing() const { return m_awaiting || m_aaAwaiting; }
QString ProfileView::statusText() const { return m_status->text(); }

void ProfileView::compute() {
    m_pending = false;
    if (!m_analysis) return;
    const std::string period = m_period->currentData().toString().toStdString();
    const std::string base = m_diffBase->currentData().toString().toStdString();
    const int source = m_period->currentData(kSourceRole).toInt();
    const std::string where = m_where->text().trimmed().toStdString();
    auto aggregates = m_aggregates;
    const std::vector<RequestId> selection = m_selection;
    const auto scope = m_period->currentIndex() == 0 ? m_scope.ids : nullptr;
    if (source == OutlierSource && !aggregates) {
        clear(tr("The outliers need the aggregate studies, which follow the analysis: a moment."));
        m_pending = true;
        emit resultsReady();
        return;
    }
    if (source == SelectionSource && selection.empty()) {
        clear(tr("No request is selected in the request table: select some (Ctrl/Shift-click, or brush a plot)."));
        emit resultsReady();
        return;
    }
    if (source == PeriodSource && !base.empty() && base == period) {
        clear(tr("The profile and its diff base are the same period (%1): choose another.").arg(QString::fromStdString(base)));
        emit resultsReady();
        return;
    }
    ProfileRequest request;
    request.analysis = m_analysis;
    request.source = source == OutlierSource ? ProfileRequest::Source::Outliers
                     : source == SelectionSource ? ProfileRequest::Source::Selection : ProfileRequest::Source::Period;
    request.period = period;
    request.scope = scope;
    request.aggregates = std::move(aggregates);
    request.selection = selection;
    request.where = where;
    request.base = base;
    m_awaiting = true;
    m_aaAwaiting = false;  // the last diff's table, if still on its way, is not this one's
    m_asked = request;
    emit computeRequested(request);
}

void ProfileView::showProgress(double fraction, const QString& stage) {
    if (m_awaiting) m_status->setText(tr("%1… %2 %").arg(stage).arg(static_cast<int>(fraction * 100)));
}

void ProfileView::showOutcome(std::shared_ptr<const ProfileOutcome> result) {
    if (!m_awaiting || !result) return;  // cleared since it was asked for
    m_awaiting = false;
    if (!result->status) {
        clear(QString::fromStdString(result->status.message()));
    } else {
        m_profile = result->profile;
        m_diff = result->diff;
        m_aaFrames = result->aaFrames;
        if (m_diff) m_flame->setDiff(m_profile, 0, 1, *m_diff);
        else m_flame->setProfile(m_profile);
        showChangesTab(m_diff != nullptr);
        if (m_diff) {
            m_aaTable->clear();
            m_aaTable->setRowCount(0);
            m_aaTable->setColumnCount(0);
            m_aaCaption->setText(tr("Drawing random pairs of profiles from the base period…"));
            m_aaAwaiting = true;
            emit aaTableRequested(m_asked);
        }
        if (m_diff) {
            m_suspects->setSuspects(result->suspects, tr("No suspect: no service's work or hop changed beyond chance "
                                                         "(suspects need span data)."));
            if (!result->suspects.empty()) m_tables->setCurrentWidget(m_suspects);
        }
        m_split->setSizes({m_split->width() * 3 / 5, m_split->width() * 2 / 5});
        // In a diff the tables describe the target (group 1), the period being looked into.
        m_top->setProfile(m_profile, tableGroup());
        m_sandwich->setProfile(m_profile, tableGroup());
        showHistogram(-1);
        m_changes->setRowCount(0);
        if (m_diff) {
            for (const auto& c : m_diff->frames) {
                if (!c.significant || m_changes->rowCount() >= 200) break;
                const int row = m_changes->rowCount();
                m_changes->insertRow(row);
                auto* name = new QTableWidgetItem(QString::fromStdString(m_profile->frames[c.frame].name));
                name->setToolTip(QString::fromStdString(m_profile->path(c.frame)).replace(';', QStringLiteral(" › ")));
                m_changes->setItem(row, 0, name);
                m_changes->setItem(row, 1, new QTableWidgetItem(formatDurationNs(static_cast<TimeNs>(c.baseTotalNs))));
                m_changes->setItem(row, 2, new QTableWidgetItem(formatDurationNs(static_cast<TimeNs>(c.targetTotalNs))));
                auto* delta = new QTableWidgetItem((c.deltaSelfNs() >= 0 ? QStringLiteral("+") : QString()) +
                                                   formatDurationNs(static_cast<TimeNs>(c.deltaSelfNs())));
                delta->setForeground(c.deltaSelfNs() >= 0 ? QColor(0xc0, 0x39, 0x2b) : QColor(0x19, 0x71, 0xc2));
                m_changes->setItem(row, 3, delta);
                auto* ratio = new QTableWidgetItem(QStringLiteral("×%1").arg(c.selfRatio, 0, 'f', c.selfRatio < 10 ? 2 : 1));
                ratio->setToolTip(tr("Relative slowdown of the frame's own time (the ranking): (target + f) / (base + f), "
                                     "f a thousandth of the base's mean latency"));
                m_changes->setItem(row, 4, ratio);
                m_changes->setItem(row, 5, new QTableWidgetItem(formatProbability(c.pValue)));
            }
        }
        updateLabels();
    }
    emit resultsReady();
}

void ProfileView::updateLabels() {
    if (!m_profile) return;
    QString text = tr("%1 · mean latency %2 · %L3 frames · width: mean critical time per request; colour: service "
                      "(light blue: a network hop, grey: blind time, lilac: not waited for) · click a frame to zoom, Backspace to go back")
                       .arg(m_profile->groups[0].selected > m_profile->groups[0].requests
                                ? tr("a random %1 of %L2").arg(requestCount(m_profile->groups[0].requests)).arg(m_profile->groups[0].selected)
                                : requestCount(m_profile->groups[0].requests))
                       .arg(formatDurationNs(static_cast<TimeNs>(m_profile->meanLatencyNs(0))))
                       .arg(static_cast<qlonglong>(m_profile->frames.size()));
    if (!m_search->text().trimmed().isEmpty())
        text += tr(" · <b>matches: %1 % of the latency</b>").arg(100.0 * m_flame->matchedShare(), 0, 'f', 1);
    if (m_diff)
        text = tr("<b>%L1 significant frames</b> (red slower, blue faster; grey within the noise) · A/A: %L2 frames flagged by chance "
                  "between two halves of the base · base %3 → target %4 mean latency · widths: the larger of the two")
                   .arg(m_diff->significantFrames)
                   .arg(m_aaFrames)
                   .arg(formatDurationNs(static_cast<TimeNs>(m_profile->meanLatencyNs(0))),
                        formatDurationNs(static_cast<TimeNs>(m_profile->meanLatencyNs(1))));
    if (m_profile->truncatedStacks > 0) text += tr(" · %L1 stacks cut at 1,000 frames").arg(m_profile->truncatedStacks);
    m_status->setText(text);
    m_crumb->setText(m_flame->breadcrumb());
}

std::size_t ProfileView::tableGroup() const { return m_diff ? 1 : 0; }

void ProfileView::showChangesTab(bool show) {
    const int index = m_tables->indexOf(m_changes);
    if (show && index < 0) {
        m_tables->insertTab(0, m_changes, tr("Changes"));
        m_tables->insertTab(0, m_suspects, tr("Suspects"));
        m_tables->setTabToolTip(0, tr("The services most likely responsible for the slower period; click a line to search the frames for it"));
        m_tables->addTab(m_aaPage, tr("A/A table"));
        m_tables->setTabToolTip(m_tables->indexOf(m_aaPage), tr("How many frames chance alone moves past a threshold between two random "
                                                                "profiles of the base, per sample size (critical path tracing, Table 3)"));
    }
    if (!show && index >= 0) {
        m_tables->removeTab(m_tables->indexOf(m_changes));
        m_tables->removeTab(m_tables->indexOf(m_suspects));
        m_tables->removeTab(m_tables->indexOf(m_aaPage));
    }
    if (show) m_tables->setCurrentWidget(m_changes);
    else m_changes->hide(), m_suspects->hide(), m_aaPage->hide();  // out of the tabs they would be drawn over the view's corner
}

void ProfileView::showAaTable(std::shared_ptr<const ProfileAaOutcome> result) {
    if (!m_aaAwaiting || !result || !m_diff) return;
    m_aaAwaiting = false;
    if (!result->status) {
        m_aaCaption->setText(tr("No A/A table: %1").arg(QString::fromStdString(result->status.message())));
        return;
    }
    // Sizes down, thresholds across, in the order the core gives them (sizes outer).
    std::vector<std::size_t> sizes;
    std::vector<TimeNs> thresholds;
    for (const AaTableCell& c : result->cells) {
        if (std::find(sizes.begin(), sizes.end(), c.size) == sizes.end()) sizes.push_back(c.size);
        if (std::find(thresholds.begin(), thresholds.end(), c.thresholdNs) == thresholds.end()) thresholds.push_back(c.thresholdNs);
    }
    m_aaTable->setRowCount(static_cast<int>(sizes.size()));
    m_aaTable->setColumnCount(static_cast<int>(thresholds.size()));
    QStringList across, down;
    for (TimeNs t : thresholds) across << tr("past %1").arg(formatDurationNs(t));
    for (std::size_t n : sizes) down << tr("%L1 requests").arg(static_cast<qulonglong>(n));
    m_aaTable->setHorizontalHeaderLabels(across);
    m_aaTable->setVerticalHeaderLabels(down);
    for (const AaTableCell& c : result->cells) {
        const int row = static_cast<int>(std::find(sizes.begin(), sizes.end(), c.size) - sizes.begin());
        const int column = static_cast<int>(std::find(thresholds.begin(), thresholds.end(), c.thresholdNs) - thresholds.begin());
        auto* item = new QTableWidgetItem(tr("%1 (%2–%3)").arg(c.meanFrames, 0, 'f', 2).arg(c.ci95Low, 0, 'f', 2).arg(c.ci95High, 0, 'f', 2));
        item->setToolTip(tr("Two random profiles of %L1 base requests each differ by more than %2 in %3 frames on average "
                            "(95 % interval %4–%5, over %L6 pairs)")
                             .arg(static_cast<qulonglong>(c.size))
                             .arg(formatDurationNs(c.thresholdNs))
                             .arg(c.meanFrames, 0, 'f', 2)
                             .arg(c.ci95Low, 0, 'f', 2)
                             .arg(c.ci95High, 0, 'f', 2)
                             .arg(result->repeats));
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_aaTable->setItem(row, column, item);
    }
    m_aaCaption->setText(tr("Frames whose mean critical time per request moves past a threshold between two random profiles of the "
                            "base (%L1 requests), by chance alone: the mean over %L2 pairs and its 95 % interval. A frame of the diff "
                            "that moved less than chance moves frames at its size says little.")
                             .arg(result->baseRequests)
                             .arg(result->repeats));
}

void ProfileView::showDiff(const QString& base, const QString& target, const QString& search) {
    const int targetIndex = m_period->findData(target), baseIndex = m_diffBase->findData(base);
    if (targetIndex < 0 || baseIndex < 0) return;
    {
        const QSignalBlocker blockPeriod(m_period), blockBase(m_diffBase);
        m_period->setCurrentIndex(targetIndex);
        m_diffBase->setCurrentIndex(baseIndex);
    }
    m_search->setText(search);
    compute();
}

void ProfileView::showHistogram(int frame) {
    if (m_diff) m_histogram->setFrame(m_profile, frame, 1, 0, tr("target: %1").arg(m_period->currentText()), tr("base: %1").arg(m_diffBase->currentText()));
    else m_histogram->setFrame(m_profile, frame, 0);
}

void ProfileView::showSandwich(const QString& name) {
    m_sandwich->setName(name);
    m_tables->setCurrentWidget(m_sandwich);
}

void ProfileView::showFrameMenu(int frame, QPoint globalPos) {
    if (auto menu = frameMenu(frame)) menu->exec(globalPos);
}

std::unique_ptr<QMenu> ProfileView::frameMenu(int frame) {
    if (!m_profile) return nullptr;
    auto owned = std::make_unique<QMenu>(this);
    QMenu& menu = *owned;
    if (frame >= 0 && static_cast<std::size_t>(frame) < m_profile->frames.size()) {
        const auto f = static_cast<std::size_t>(frame);
        const QString name = QString::fromStdString(m_profile->frames[f].name);
        menu.addAction(tr("Zoom into %1").arg(name), this, [this, frame] { m_flame->zoomTo(frame); });
        menu.addAction(tr("Callers and callees (sandwich)"), this, [this, name] { showSandwich(name); });
        menu.addAction(tr("Its critical time per request (histogram)"), this, [this, frame] {
            showHistogram(frame);
            m_tables->setCurrentWidget(m_histogram);
        });
        // The requests in which this frame held the most critical time, to look at one in the waterfall.
        const FrameStats& stats = m_profile->groups[tableGroup()].frames[f];
        QMenu* slowest = menu.addMenu(tr("Open a slowest request where it was critical"));
        for (const FrameRequest& r : stats.slowest) {
            if (r.totalNs <= 0 || !m_analysis || r.row >= m_analysis->data.requestIds.size()) continue;
            const RequestId id = m_analysis->data.requestIds[r.row];
            slowest->addAction(tr("Request #%1 — %2 on this frame").arg(id.value).arg(formatDurationNs(r.totalNs)), this,
                               [this, id] { emit requestActivated(id); });
        }
        slowest->setEnabled(!slowest->actions().isEmpty());
        menu.addAction(tr("Copy name"), this, [name] { QApplication::clipboard()->setText(name); });
        menu.addSeparator();
    }
    menu.addAction(tr("Export the profile…"), this, &ProfileView::exportDialog);
    return owned;
}

void ProfileView::exportDialog() {
    if (!m_profile) {
        m_status->setText(tr("No profile to export yet."));
        return;
    }
    const QString path = chooseFileToSave(this, tr("Export the profile"), QStringLiteral("profile.folded"),
                                                      tr("Folded stacks (*.folded);;speedscope (*.json);;pprof (*.pb.gz)"));
    if (path.isEmpty()) return;
    if (exportProfile(path)) m_status->setText(tr("Profile written to %1").arg(path));
    else m_status->setText(tr("Cannot write %1").arg(path));
}

bool ProfileView::exportProfile(const QString& path) const {
    if (!m_profile) return false;
    const std::size_t g = tableGroup();
    std::string bytes;
    if (path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) {
        bytes = profileSpeedscope(*m_profile, g, m_period->currentText().toStdString());
    } else if (path.endsWith(QLatin1String(".pb.gz"), Qt::CaseInsensitive) || path.endsWith(QLatin1String(".pb"), Qt::CaseInsensitive)) {
        auto pprof = profilePprof(*m_profile, g);
        if (!pprof) return false;
        bytes = std::move(pprof.value());
    } else {
        bytes = profileFolded(*m_profile, g);
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return false;
    return file.write(bytes.data(), static_cast<qint64>(bytes.size())) == static_cast<qint64>(bytes.size());
}

} // namespace tracelight::widgets
