#include "CompareWorkspace.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "AaOverTimeView.h"
#include "CompareEntryModel.h"
#include "FlowGraphView.h"
#include "PeriodTimeline.h"
#include "RegressionTreeView.h"
#include "SuspectsView.h"
#include "TrainScheduleView.h"
#include "tracelight/analysis/AnalysisResults.h"
#include "waterfall/WaterfallLayout.h"
#include "waterfall/WaterfallView.h"
#include <QListWidget>
#include "plots/CdfPlot.h"
#include <qcustomplot.h>
#include "common/FileDialogs.h"
#include "common/QtText.h"
#include "common/PlotExport.h"
#include "common/TimeFormat.h"
#include "common/HoverText.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::widgets {

namespace {
constexpr int kRequestRole = Qt::UserRole + 1;
constexpr int kShownRequests = 200;
constexpr const char* kThresholdKey = "compare/smThreshold";
constexpr const char* kPrecursorsKey = "compare/precursors";  // the candidate chosen, by periods and entry category
} // namespace

CompareWorkspace::CompareWorkspace(QWidget* parent) : QWidget(parent) {
    m_baseline = new QComboBox(this);
    m_problem = new QComboBox(this);
    m_baseline->setToolTip(tr("The non-problem period"));
    m_problem->setToolTip(tr("The problem period"));
    keepComboNarrow(m_baseline, 9);
    keepComboNarrow(m_problem, 9);
    m_threshold = new QDoubleSpinBox(this);
    m_threshold->setObjectName("threshold");
    m_threshold->setRange(0, 1e9);
    m_threshold->setDecimals(0);
    m_threshold->setValue(CompareOptions{}.threshold);
    // As wide as a threshold anyone sets, not as its largest value (the toolbar must fit a small screen).
    m_threshold->setMaximumWidth(m_threshold->fontMetrics().horizontalAdvance(QStringLiteral("99999")) + 34);
    m_threshold->setToolTip(tr("SM_THRESHOLD: requests a category must gain (significantly) to be a structural mutation, or lose to be a precursor"));
    m_alpha = new QDoubleSpinBox(this);
    m_alpha->setRange(0.0001, 0.5);
    m_alpha->setDecimals(4);
    m_alpha->setSingleStep(0.01);
    m_alpha->setValue(0.05);
    m_alpha->setMaximumWidth(m_alpha->fontMetrics().horizontalAdvance(QStringLiteral("0.0500")) + 34);
    m_alpha->setToolTip(tr("Significance level of the Kolmogorov-Smirnov tests"));
    m_bh = new QCheckBox(tr("&Benjamini-Hochberg"), this);
    m_bh->setToolTip(tr("Control the false discovery rate across categories and edges instead of the family-wise error rate (Holm); the uncorrected p stays beside it"));
    m_paper = new QCheckBox(tr("&Paper"), this);
    // Not "more found": a category is then marked by its response times alone, so one whose edges alone changed
    // drops out (on the Online Boutique currencyservice delay the paper's list is one entry shorter).
    m_paper->setToolTip(tr("Spectroscope's own statistics: each test at α uncorrected, a category marked by its response times "
                           "alone (its edges tested only for the red ones), structural mutations by the threshold alone (50). "
                           "More is flagged by chance: read the A/A beside it"));
    m_oneToN = new QCheckBox(tr("1:&N"), this);
    m_oneToN->setChecked(true);
    m_oneToN->setToolTip(tr("A precursor must have lost at least what its mutation gained (up to chance)"));
    m_precursor = new QComboBox(this);
    m_precursor->setObjectName("precursor");
    keepComboNarrow(m_precursor, 24);
    m_precursor->setToolTip(tr("The candidate precursor a structural mutation is compared with in the side by side, diff, swim lanes "
                               "and tree: the closest by edit distance, or the one chosen here (remembered for this entry)"));
    m_run = new QPushButton(tr("&Compare"), this);
    m_run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_run->setToolTip(tr("Compare the two periods (Ctrl+Return)"));
    m_export = new QPushButton(tr("Export CSV…"), this);
    m_export->setEnabled(false);
    QSettings settings;
    // Only a threshold the user chose is remembered (key renamed when the default went from 50 to 10, so a
    // default remembered by an older version does not hide the new one).
    m_threshold->setValue(settings.value(kThresholdKey, CompareOptions{}.threshold).toDouble());
    m_alpha->setValue(settings.value("compare/alpha", 0.05).toDouble());
    m_bh->setChecked(settings.value("compare/bh", false).toBool());
    m_paper->setChecked(settings.value("compare/paper", false).toBool());
    m_bh->setEnabled(!m_paper->isChecked());

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Baseline:"), this));
    controls->addWidget(m_baseline, 1);
    controls->addWidget(new QLabel(tr("Problem:"), this));
    controls->addWidget(m_problem, 1);
    controls->addWidget(new QLabel(tr("Threshold:"), this));
    controls->addWidget(m_threshold);
    controls->addWidget(new QLabel(tr("α:"), this));
    controls->addWidget(m_alpha);
    controls->addWidget(m_bh);
    controls->addWidget(m_paper);
    controls->addWidget(m_oneToN);
    controls->addWidget(m_run);
    controls->addWidget(m_export);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_model = new CompareEntryModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::UserRole);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(CompareEntryModel::Rank, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->viewport()->installEventFilter(this);
    m_table->setColumnWidth(CompareEntryModel::Rank, 36);
    m_table->setColumnWidth(CompareEntryModel::Kind, 100);
    m_table->setColumnWidth(CompareEntryModel::Category, 70);
    m_table->setColumnWidth(CompareEntryModel::RequestType, 170);

    m_detail = new QTreeWidget(this);
    m_detail->setColumnCount(2);
    m_detail->setHeaderLabels({tr("Entry"), tr("Baseline → problem")});
    m_detail->header()->setStretchLastSection(true);
    m_detail->setColumnWidth(0, 300);

    // The entry's flow graphs: both sides on one layout, and their diff.
    auto scrolled = [this](QWidget* view) {
        auto* area = new QScrollArea(this);
        area->setWidget(view);
        area->setWidgetResizable(true);
        return area;
    };
    m_first = new FlowGraphView(FlowGraphView::Mode::First, this);
    m_second = new FlowGraphView(FlowGraphView::Mode::Second, this);
    m_diff = new FlowGraphView(FlowGraphView::Mode::Diff, this);
    m_graphTitles = new QLabel(this);
    m_graphTitles->setWordWrap(true);
    auto* sideBySide = new QWidget(this);
    {
        auto* pair = new QSplitter(Qt::Horizontal, sideBySide);
        pair->addWidget(scrolled(m_first));
        pair->addWidget(scrolled(m_second));
        auto* box = new QVBoxLayout(sideBySide);
        box->setContentsMargins(0, 0, 0, 0);
        box->addWidget(m_graphTitles);
        box->addWidget(pair, 1);
    }
    auto* diffLegend = new QLabel(tr("<span style='color:#2f9e44'>■ only in the problem graph</span> · "
                                     "<span style='color:#e8590c'>▭ only in the baseline graph (dashed)</span> · "
                                     "<span style='color:#c0392b'>red border: a red edge</span> · each node: baseline → problem mean"),
                                  this);
    auto* diffPage = new QWidget(this);
    {
        auto* box = new QVBoxLayout(diffPage);
        box->setContentsMargins(0, 0, 0, 0);
        box->addWidget(diffLegend);
        box->addWidget(scrolled(m_diff), 1);
    }
    m_suspects = new SuspectsView(this);
    m_suspects->setRequestNamer([this](RequestId id) { return m_namer ? m_namer(id) : QString::number(id.value); });
    connect(m_suspects, &SuspectsView::requestActivated, this, &CompareWorkspace::requestActivated);
    connect(m_suspects, &SuspectsView::keyActivated, this, [this](const QString& key) {
        if (m_result) emit suspectActivated(QString::fromStdString(m_result->baseline), QString::fromStdString(m_result->problem), key);
    });
    m_views = new QTabWidget(this);
    m_views->addTab(m_suspects, tr("Suspects"));
    m_views->setTabToolTip(0, tr("The services most likely responsible for the slower period, with their evidence; click a line to see it "
                                 "in the profile diff of the two periods"));
    m_views->addTab(m_detail, tr("Detail"));
    m_categories = new QTreeWidget(this);
    m_categories->setObjectName("categories");
    m_categories->setRootIsDecorated(false);
    m_categories->setAlternatingRowColors(true);
    m_categories->setHeaderLabels({tr("Cat."), tr("Base n"), tr("Prob. n"), tr("Base mean ± sd"), tr("Prob. mean ± sd"), tr("Request type")});
    m_categories->setToolTip(tr("Every category of the two periods, ranked or not, with the mean and standard deviation of its response "
                                "time in each; choose one to see it in Detail, Side by side, Diff, Swim lanes and Tree"));
    m_categories->setSortingEnabled(true);
    m_views->addTab(sideBySide, tr("Side by side"));
    m_views->addTab(diffPage, tr("Diff"));
    m_c2 = new CdfPlot(this);
    m_c2->setToolTip(tr("How much response times vary within each category: C² = variance / mean², per category with at "
                        "least the KS test's sample in that period. Near 0: one behaviour; 1 and above: as variable as an "
                        "exponential — a category worth splitting further (Spectroscope, section 4)."));
    m_views->addTab(m_c2, tr("C²"));
    m_timeline = new PeriodTimeline(this);
    m_views->addTab(m_timeline, tr("Timeline"));
    m_overTime = new AaOverTimeView(this);
    m_views->addTab(m_overTime, tr("Over time"));
    m_views->setTabToolTip(m_views->indexOf(m_overTime),
                           tr("Both periods cut into time buckets: the baseline's A/A and the problem period against the baseline "
                              "at the same points in time, and the load by request type"));
    connect(m_overTime, &AaOverTimeView::bucketsChanged, this, [this] { askOverTime(); });
    connect(m_overTime, &AaOverTimeView::splitChanged, this, [this] { askOverTime(); });
    // Swim lanes of the two representatives, one above the other on one time axis (zoom one, both follow).
    m_firstLanes = new WaterfallView(this);
    m_secondLanes = new WaterfallView(this);
    m_firstLanesTitle = new QLabel(this);
    m_secondLanesTitle = new QLabel(this);
    auto* lanesPage = new QSplitter(Qt::Vertical, this);
    for (auto [title, view] : {std::pair{m_firstLanesTitle, m_firstLanes}, std::pair{m_secondLanesTitle, m_secondLanes}}) {
        auto* half = new QWidget(lanesPage);
        auto* box = new QVBoxLayout(half);
        box->setContentsMargins(0, 0, 0, 0);
        box->addWidget(title);
        box->addWidget(view, 1);
        lanesPage->addWidget(half);
    }
    m_views->addTab(lanesPage, tr("Swim lanes"));
    // The same two requests zoomed out to components, as train schedules (Spectroscope's Figure 8).
    auto* trainPage = new QSplitter(Qt::Vertical, this);
    m_firstTrain = new TrainScheduleView(trainPage);
    m_secondTrain = new TrainScheduleView(trainPage);
    trainPage->addWidget(m_firstTrain);
    trainPage->addWidget(m_secondTrain);
    m_views->addTab(trainPage, tr("Train schedules"));
    m_views->setTabToolTip(m_views->indexOf(trainPage),
                           tr("The two representatives zoomed out to components: a line per component, each stay along it and each "
                              "call or reply crossing between them, on one time axis"));
    auto follow = [](WaterfallView* other) {
        return [other](double from, double to) {
            if (other->visibleFromUs() != from || other->visibleToUs() != to) other->setVisibleRange(from, to);
        };
    };
    connect(m_firstLanes, &WaterfallView::visibleRangeChanged, this, follow(m_secondLanes));
    connect(m_secondLanes, &WaterfallView::visibleRangeChanged, this, follow(m_firstLanes));
    // The regression tree and the paper's interactive loop: untick an attribute to grow the tree without it.
    m_tree = new RegressionTreeView(this);
    m_treeAttributes = new QListWidget(this);
    m_treeAttributes->setToolTip(tr("Attributes the tree may test; untick one to run it again without (e.g. one that "
                                    "only restates the change)"));
    m_treeSummary = new QLabel(this);
    m_treeSummary->setWordWrap(true);
    auto* treePage = new QWidget(this);
    {
        auto* side = new QVBoxLayout;
        side->addWidget(new QLabel(tr("Attributes"), this));
        side->addWidget(m_treeAttributes, 1);
        auto* row = new QHBoxLayout;
        row->addLayout(side);
        row->addWidget(scrolled(m_tree), 1);
        auto* box = new QVBoxLayout(treePage);
        box->setContentsMargins(0, 0, 0, 0);
        box->addWidget(m_treeSummary);
        box->addLayout(row, 1);
        m_treeAttributes->setMaximumWidth(200);
    }
    m_views->addTab(treePage, tr("Tree"));
    m_views->addTab(m_categories, tr("Categories"));
    connect(m_treeAttributes, &QListWidget::itemChanged, this, [this] { explain(); });
    for (FlowGraphView* view : {m_first, m_second, m_diff})
        connect(view, &FlowGraphView::requestActivated, this, &CompareWorkspace::requestActivated);

    // The entry's views under the precursor they compare it with.
    auto* entryPane = new QWidget(this);
    {
        auto* row = new QHBoxLayout;
        row->addWidget(new QLabel(tr("Compared with:"), entryPane));
        row->addWidget(m_precursor, 1);
        auto* box = new QVBoxLayout(entryPane);
        box->setContentsMargins(0, 0, 0, 0);
        box->addLayout(row);
        box->addWidget(m_views, 1);
    }
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(entryPane);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({780, 480});

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);

    connect(m_run, &QPushButton::clicked, this, &CompareWorkspace::compare);
    for (QComboBox* box : {m_baseline, m_problem})
        connect(box, &QComboBox::activated, this, &CompareWorkspace::compare);
    // Options re-rank the same categories: cheap, so live.
    connect(m_threshold, &QDoubleSpinBox::valueChanged, this, &CompareWorkspace::compare);
    connect(m_alpha, &QDoubleSpinBox::valueChanged, this, &CompareWorkspace::compare);
    connect(m_bh, &QCheckBox::toggled, this, &CompareWorkspace::compare);
    connect(m_paper, &QCheckBox::toggled, this, [this](bool paper) {
        // The paper's threshold goes with its statistics, unless the user chose another.
        const QSignalBlocker block(m_threshold);
        if (paper && m_threshold->value() == CompareOptions{}.threshold) m_threshold->setValue(CompareOptions::kPaperThreshold);
        if (!paper && m_threshold->value() == CompareOptions::kPaperThreshold) m_threshold->setValue(CompareOptions{}.threshold);
        m_bh->setEnabled(!paper);
        compare();
    });
    connect(m_oneToN, &QCheckBox::toggled, this, &CompareWorkspace::compare);
    connect(m_precursor, &QComboBox::activated, this, [this](int index) {
        const QVariant id = m_precursor->itemData(index);
        if (!m_result || !m_entry || !id.isValid()) return;
        QSettings settings;
        QVariantMap chosen = settings.value(kPrecursorsKey).toMap();
        chosen.insert(precursorKey(m_result->comparison.categories[m_entry->category]), id);
        settings.setValue(kPrecursorsKey, chosen);
        showEntry(m_entryRow);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showEntry(current.isValid() ? m_proxy->mapToSource(current).row() : -1); });
    connect(m_categories, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item && m_result) showCategory(item->data(0, Qt::UserRole).toUInt());
    });
    connect(m_detail, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const QVariant id = item->data(0, kRequestRole);
        if (id.isValid()) emit requestActivated(RequestId(id.toUInt()));
    });
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString path = chooseFileToSave(this, tr("Export the ranked entries"),
                                                          QStringLiteral("compare-%1-vs-%2.csv").arg(m_baseline->currentText(), m_problem->currentText()),
                                                          tr("CSV (*.csv)"));
        if (!path.isEmpty() && !exportCsv(path)) m_summary->setText(tr("Cannot write %1").arg(path));
    });
    clear(tr("Open an analysed database with two periods to compare them."));
}

void CompareWorkspace::clear(const QString& message) {
    m_awaiting = 0;  // results still on their way are not shown
    m_result.reset();
    m_model->setComparison(nullptr);
    m_detail->clear();
    m_edgeItem = nullptr;
    m_entryRow = -1;
    m_precursor->clear();
    m_precursor->setEnabled(false);
    m_categories->clear();
    for (FlowGraphView* view : {m_first, m_second, m_diff}) view->setMessage(tr("Choose an entry to see its flow graphs."));
    m_graphTitles->clear();
    m_c2->setSeries(QString(), std::vector<std::pair<QString, std::vector<float>>>{}, false, 1.0, QString());
    m_timeline->setComparison(nullptr);
    m_overTime->setResult(nullptr, {}, {});
    m_overTimeCategories = nullptr;
    m_firstLanes->setRequest(nullptr);
    m_secondLanes->setRequest(nullptr);
    m_firstTrain->clear(tr("Choose an entry to see its requests' train schedules."));
    m_secondTrain->clear(QString());
    m_entry.reset();
    m_tree->setMessage(tr("Choose an entry to see which attributes separate its requests."));
    m_treeSummary->clear();
    m_export->setEnabled(false);
    m_summary->setText(message);
}

void CompareWorkspace::setDatabase(std::shared_ptr<const InMemoryAnalysis> analysis, const QStringList& periods) {
    m_awaiting = 0;  // what was asked of the old data is not shown (the session may have cancelled it)
    if (const CompareEntry* shown = m_model->entryAt(m_entryRow); shown && m_result)
        m_keepEntry = std::pair{shown->kind, m_result->comparison.categories[shown->category].hash};
    m_analysis = std::move(analysis);
    const QSignalBlocker b1(m_baseline), b2(m_problem);
    m_baseline->clear();
    m_problem->clear();
    m_baseline->addItems(periods);
    m_problem->addItems(periods);
    m_result.reset();
    if (periods.size() < 2) {
        // Said in the app's terms: where the second period comes from.
        clear(periods.isEmpty() ? tr("This database has no periods to compare. Each File › Import Traces… (Ctrl+I) adds its requests "
                                     "as a period; Analysis › Periods… defines periods by time or attribute.")
                                : tr("This database has one period (%1): a comparison needs a second one. Add another time's traces "
                                     "with File › Import Traces… (Ctrl+I), or split this one with Analysis › Periods…")
                                      .arg(periods.first()));
        return;
    }
    QSettings settings;
    const QString base = settings.value("compare/baseline").toString(), prob = settings.value("compare/problem").toString();
    m_baseline->setCurrentIndex(periods.contains(base) ? periods.indexOf(base) : 0);
    m_problem->setCurrentIndex(periods.contains(prob) && prob != m_baseline->currentText() ? periods.indexOf(prob)
                                                                                          : (m_baseline->currentIndex() == 0 ? 1 : 0));
    m_pending = true;
    if (isVisible()) compare();
}

void CompareWorkspace::setAttributeKeys(const QStringList& keys) { m_overTime->setAttributeKeys(keys); }

void CompareWorkspace::setPeriods(const QString& baseline, const QString& problem) {
    const QSignalBlocker b1(m_baseline), b2(m_problem);
    if (m_baseline->findText(baseline) >= 0) m_baseline->setCurrentIndex(m_baseline->findText(baseline));
    if (m_problem->findText(problem) >= 0) m_problem->setCurrentIndex(m_problem->findText(problem));
    compare();
}

void CompareWorkspace::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_pending) compare();
}

CompareOptions CompareWorkspace::options() const {
    CompareOptions o;
    o.threshold = m_threshold->value();
    o.alpha = m_alpha->value();
    o.paperStatistics = m_paper->isChecked();
    o.benjaminiHochberg = m_bh->isChecked() && !o.paperStatistics;
    o.oneToN = m_oneToN->isChecked();
    return o;
}

bool CompareWorkspace::isComputing() const {
    return m_awaiting != 0;
}

void CompareWorkspace::compare() {
    m_pending = false;
    if (!m_analysis || m_baseline->count() < 2) return;
    const QString base = m_baseline->currentText(), prob = m_problem->currentText();
    if (base == prob) {
        clear(tr("Baseline and problem are the same period (%1): choose two periods.").arg(base));
        return;
    }
    QSettings settings;
    settings.setValue("compare/baseline", base);
    settings.setValue("compare/problem", prob);
    if (m_threshold->value() == CompareOptions{}.threshold) settings.remove(kThresholdKey);
    else settings.setValue(kThresholdKey, m_threshold->value());
    settings.setValue("compare/alpha", m_alpha->value());
    settings.setValue("compare/bh", m_bh->isChecked());
    settings.setValue("compare/paper", m_paper->isChecked());
    CompareRequest request;
    request.analysis = m_analysis;
    request.baseline = base.toStdString();
    request.problem = prob.toStdString();
    request.options = options();
    if (m_result && m_result->baseline == request.baseline && m_result->problem == request.problem) request.previous = m_result;
    m_awaiting |= kComparison;
    emit compareRequested(request);
}

void CompareWorkspace::showProgress(double fraction, const QString& stage) {
    if (m_awaiting & kComparison) m_summary->setText(tr("%1… %2 %").arg(stage).arg(static_cast<int>(fraction * 100)));
}

void CompareWorkspace::showComparison(CompareOutcome result) {
    if (!(m_awaiting & kComparison) || !result) return;  // cleared since it was asked for
    m_awaiting &= ~kComparison;
    if (!result->isOk()) {
        clear(QString::fromStdString(result->message()));
        emit resultsReady();
        return;
    }
    showResult(std::make_shared<const PeriodComparison>(result->value()));
    emit resultsReady();
}

QString CompareWorkspace::summaryText() const { return m_summary->text(); }

// The suspects in one line each, most likely first: what changed, by how much, how sure.
QString CompareWorkspace::suspectsText(const std::vector<Suspect>& suspects) {
    if (suspects.empty()) return {};
    QString text = tr("<br><b>Suspects</b>, most likely first (their calls' slowdown against the same operations in the baseline):");
    constexpr std::size_t kShown = 3;
    for (std::size_t i = 0; i < suspects.size() && i < kShown; ++i) {
        const Suspect& s = suspects[i];
        const SuspectEvidence& e = s.evidence.front();
        text += tr("<br>%1. <b>%2</b> ×%3 · %4 %5: %6 ms → %7 ms per request · q %8")
                    .arg(i + 1)
                    .arg(QString::fromStdString(s.service).toHtmlEscaped())
                    .arg(s.score, 0, 'f', 2)
                    .arg(e.hop ? tr("hop") : tr("work"), QString::fromStdString(e.key).toHtmlEscaped())
                    .arg(e.baseUs / 1000, 0, 'f', 2)
                    .arg(e.targetUs / 1000, 0, 'f', 2)
                    .arg(s.pValue, 0, 'g', 2);
    }
    if (suspects.size() > kShown) text += tr("<br>… and %L1 more (compare --json lists them all)").arg(static_cast<qlonglong>(suspects.size() - kShown));
    return text;
}

void CompareWorkspace::showResult(std::shared_ptr<const PeriodComparison> result) {
    m_result = std::move(result);
    m_model->setComparison(m_result);
    m_export->setEnabled(true);
    const Comparison& c = m_result->comparison;
    QString text = tr("<b>%1</b>: %L2 requests · <b>%3</b>: %L4 requests · %L5 categories, %L6 tested for response time · "
                      "<b>%L7 entries</b>")
                       .arg(QString::fromStdString(m_result->baseline).toHtmlEscaped())
                       .arg(c.baselineRequests)
                       .arg(QString::fromStdString(m_result->problem).toHtmlEscaped())
                       .arg(c.problemRequests)
                       .arg(static_cast<qlonglong>(c.categories.size()))
                       .arg(c.categoriesTested)
                       .arg(c.mutations());
    if (m_result->options.paperStatistics) text += tr(" · the paper's statistics (uncorrected, threshold alone)");
    text += tr("<br>A/A (the baseline split in two at random): <b>%L1 of %L2</b> categories flagged by chance at this sample size")
                .arg(m_result->aa.mutations)
                .arg(m_result->aa.categoriesTested);
    if (c.entries.empty()) text += tr("<br>No mutations at α %1 and threshold %2.").arg(m_result->options.alpha).arg(m_result->options.threshold);
    text += suspectsText(m_result->suspects);
    m_summary->setText(text);
    m_suspects->setSuspects(m_result->suspects, tr("No suspect: no service's work or hop changed beyond chance between the two periods "
                                                   "(suspects need span data: a caller and a callee to tell apart)."));
    if (!m_result->suspects.empty()) m_views->setCurrentWidget(m_suspects);
    else if (m_views->currentWidget() == m_suspects) m_views->setCurrentWidget(m_detail);  // the entries say more
    // The periods' views: C² per category (categories with a testable sample in that period) and the timeline.
    std::vector<std::pair<QString, std::vector<float>>> c2(2);
    c2[0].first = QString::fromStdString(m_result->baseline);
    c2[1].first = QString::fromStdString(m_result->problem);
    for (const ComparedCategory& cc : c.categories) {
        if (cc.baseline.count >= m_result->options.minSample) c2[0].second.push_back(static_cast<float>(cc.baseline.c2()));
        if (cc.problem.count >= m_result->options.minSample) c2[1].second.push_back(static_cast<float>(cc.problem.c2()));
    }
    QString c2Title = tr("C² of a category's response time (variance / mean²), categories with ≥ %1 requests").arg(m_result->options.minSample);
    if (c.variance.tested)  // Spectroscope's sixth case: did the variance within categories change?
        c2Title += tr(" · their variances, KS: D %1, p %2").arg(c.variance.d, 0, 'f', 3).arg(formatProbability(c.variance.pValue));
    m_c2->setSeries(c2Title, c2, false, 1.0, QString());
    setPlotExportName(m_c2->plot(), tr("c2 %1 vs %2").arg(c2[0].first, c2[1].first));
    m_c2->plot()->yAxis->setLabel(tr("share of categories at or below (%)"));
    m_c2->plot()->replot();
    m_timeline->setComparison(m_result);
    if (m_result->categories.get() != m_overTimeCategories) askOverTime();  // a re-ranking keeps the same requests
    fillCategories();
    m_table->setColumnHidden(CompareEntryModel::RawPValue, false);
    m_table->resizeColumnsToContents();
    fitRequestTypeColumn();
    m_table->setTextElideMode(Qt::ElideMiddle);
    int row = 0;
    if (m_keepEntry) {
        const auto& entries = c.entries;
        for (std::size_t i = 0; i < entries.size(); ++i)
            if (entries[i].kind == m_keepEntry->first && c.categories[entries[i].category].hash == m_keepEntry->second) {
                row = std::max(0, m_proxy->mapFromSource(m_model->index(static_cast<int>(i), 0)).row());
                break;
            }
        m_keepEntry.reset();
    }
    if (m_proxy->rowCount() > 0) m_table->selectRow(row);
    else showEntry(-1);
}

void CompareWorkspace::fitRequestTypeColumn() {
    // The request type ("OP · 62 spans on 5 hosts", elided in the middle) takes what the pane has left after the
    // ranking's columns, so it ends at the edge instead of being cut there; the counts and means scroll in.
    if (!m_result) return;
    constexpr int kLeast = 110, kMost = 320;
    int before = 0;
    for (int column = 0; column < CompareEntryModel::RequestType; ++column)
        if (!m_table->isColumnHidden(column)) before += m_table->columnWidth(column);
    const int left = m_table->viewport()->width() - before;
    m_table->setColumnWidth(CompareEntryModel::RequestType, std::clamp(left, kLeast, kMost));
}

bool CompareWorkspace::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_table->viewport() && event->type() == QEvent::Resize) fitRequestTypeColumn();
    return QWidget::eventFilter(watched, event);
}

QString CompareWorkspace::precursorKey(const ComparedCategory& category) const {
    return m_result ? QStringLiteral("%1\n%2\n%3").arg(QString::fromStdString(m_result->baseline), QString::fromStdString(m_result->problem))
                          .arg(category.id)
                    : QString();
}

void CompareWorkspace::choosePrecursorOf(CompareEntry& entry) {
    const QSignalBlocker block(m_precursor);
    m_precursor->clear();
    const Comparison& cmp = m_result->comparison;
    if (entry.kind != CompareEntry::Kind::Structural || entry.precursors.empty()) {
        m_precursor->addItem(entry.kind == CompareEntry::Kind::Structural ? tr("its own baseline (no candidate precursor)")
                                                                          : tr("its own baseline (a response-time mutation)"));
        m_precursor->setEnabled(false);
        return;
    }
    for (const PrecursorRef& p : entry.precursors) {
        const ComparedCategory& candidate = cmp.categories[p.category];
        m_precursor->addItem(tr("precursor category %1 · edit distance %L2").arg(candidate.id).arg(p.editDistance), candidate.id);
        m_precursor->setItemData(m_precursor->count() - 1,
                                 tr("%L1 → %L2 requests").arg(candidate.baseline.count).arg(candidate.problem.count), Qt::ToolTipRole);
    }
    const QVariantMap chosen = QSettings().value(kPrecursorsKey).toMap();
    const auto it = chosen.find(precursorKey(cmp.categories[entry.category]));
    if (it == chosen.end() || !choosePrecursor(cmp, entry, it->toUInt())) entry.chosenPrecursor = 0;
    m_precursor->setCurrentIndex(static_cast<int>(entry.chosenPrecursor));
    m_precursor->setEnabled(true);
}

void CompareWorkspace::showEntry(int row) {
    m_detail->clear();
    m_edgeItem = nullptr;
    m_entryRow = row;
    const CompareEntry* ranked = m_model->entryAt(row);
    if (!ranked || !m_result) {
        m_precursor->clear();
        m_precursor->setEnabled(false);
        return;
    }
    {
        // The entry replaces a category browsed.
        const QSignalBlocker block(m_categories);
        m_categories->setCurrentItem(nullptr);
        m_categories->clearSelection();
    }
    CompareEntry chosen = *ranked;
    choosePrecursorOf(chosen);
    present(chosen, true);
}

void CompareWorkspace::showCategory(std::uint32_t index) {
    if (!m_result || index >= m_result->comparison.categories.size()) return;
    {
        // The category replaces the entry shown: no row stays selected (choosing it again shows it again).
        const QSignalBlocker block(m_table->selectionModel());
        m_table->selectionModel()->clear();
    }
    m_entryRow = -1;
    CompareEntry view;  // the category's response-time view: its problem requests against its baseline ones
    view.category = index;
    choosePrecursorOf(view);
    m_precursor->setItemText(0, tr("its own baseline (a category browsed)"));
    present(view, false);
}

void CompareWorkspace::fillCategories() {
    const QSignalBlocker block(m_categories);
    m_categories->setSortingEnabled(false);
    m_categories->clear();
    if (!m_result) return;
    auto spread = [](const CategoryStats& s) { return s.count ? formatMeanAndSpreadNs(s.meanNs, s.varianceNs2) : QStringLiteral("–"); };
    for (std::uint32_t i = 0; i < m_result->comparison.categories.size(); ++i) {
        const ComparedCategory& cc = m_result->comparison.categories[i];
        auto* item = new QTreeWidgetItem(m_categories);
        item->setData(0, Qt::DisplayRole, cc.id);
        item->setData(0, Qt::UserRole, i);
        item->setData(1, Qt::DisplayRole, static_cast<qlonglong>(cc.baseline.count));
        item->setData(2, Qt::DisplayRole, static_cast<qlonglong>(cc.problem.count));
        item->setText(3, spread(cc.baseline));
        item->setText(4, spread(cc.problem));
        item->setText(5, QString::fromStdString(requestTypeOf(*m_result, cc)));
        item->setToolTip(5, item->text(5));
        if (cc.info) item->setToolTip(0, QString::fromStdString(cc.info->canonical).left(2000));
    }
    m_categories->setSortingEnabled(true);
    m_categories->sortByColumn(0, Qt::AscendingOrder);
    for (int column = 0; column < 5; ++column) m_categories->resizeColumnToContents(column);
}

void CompareWorkspace::present(const CompareEntry& chosen, bool ranked) {
    m_detail->clear();
    m_edgeItem = nullptr;
    const CompareEntry* e = &chosen;
    const Comparison& cmp = m_result->comparison;
    const RequestCategories& cats = *m_result->categories;
    const ComparedCategory& cc = cmp.categories[e->category];
    auto mean = [](const CategoryStats& s) { return s.count ? formatDurationNs(static_cast<TimeNs>(s.meanNs)) : QStringLiteral("–"); };
    auto* head = new QTreeWidgetItem(m_detail, {ranked ? tr("Category %1 (%2)").arg(cc.id).arg(CompareEntryModel::kindLabel(e->kind))
                                                       : tr("Category %1 (browsed)").arg(cc.id),
                                               tr("%L1 → %L2 requests, mean %3 → %4")
                                                   .arg(cc.baseline.count)
                                                   .arg(cc.problem.count)
                                                   .arg(mean(cc.baseline), mean(cc.problem))});
    // Its response time's spread in each period (Spectroscope keeps each category's variance beside its mean).
    auto spread = [](const CategoryStats& s) {
        return s.count ? formatMeanAndSpreadNs(s.meanNs, s.varianceNs2) + QStringLiteral(", C² %1").arg(s.c2(), 0, 'g', 3) : QStringLiteral("–");
    };
    new QTreeWidgetItem(head, {tr("Response time, mean ± standard deviation"), tr("%1 → %2").arg(spread(cc.baseline), spread(cc.problem))});
    head->setExpanded(true);
    if (cc.info) head->setToolTip(0, QString::fromStdString(cc.info->canonical).left(2000));
    auto* red = new QTreeWidgetItem(m_detail, {tr("Red edges (%1)").arg(e->changedEdges.size())});
    for (const auto& edge : e->changedEdges) {
        auto* item = new QTreeWidgetItem(red, {QStringLiteral("%1 → %2").arg(QString::fromStdString(cats.typeStart[edge.type]),
                                                                           QString::fromStdString(cats.typeEnd[edge.type])),
                                               tr("%1 → %2 (p %3)")
                                                   .arg(formatMeanAndSpreadNs(edge.baselineMeanNs, edge.baselineVarianceNs2),
                                                        formatMeanAndSpreadNs(edge.problemMeanNs, edge.problemVarianceNs2))
                                                   .arg(formatProbability(edge.pValue))});
        item->setForeground(0, QColor(0xc0, 0x39, 0x2b));
        item->setToolTip(0, item->text(0));
    }
    auto* pre = new QTreeWidgetItem(m_detail, {tr("Candidate precursors (%1)").arg(e->precursors.size())});
    for (const auto& p : e->precursors) {
        const ComparedCategory& pc = cmp.categories[p.category];
        const bool compared = &p == e->comparedPrecursor();
        auto* item = new QTreeWidgetItem(pre, {tr("category %1, edit distance %2").arg(pc.id).arg(p.editDistance),
                                               (compared ? tr("compared · %L1 → %L2 requests") : tr("%L1 → %L2 requests"))
                                                   .arg(pc.baseline.count)
                                                   .arg(pc.problem.count)});
        if (compared) {
            QFont bold = item->font(0);
            bold.setBold(true);
            item->setFont(0, bold);
        }
        if (pc.info) item->setToolTip(0, QString::fromStdString(pc.info->canonical).left(2000));
    }
    // Each side's edge latencies, from the flow graphs' worker (showGraphs).
    m_edgeItem = new QTreeWidgetItem(m_detail, {tr("Edge latencies"), tr("computing…")});
    auto* requests = new QTreeWidgetItem(m_detail, {tr("Problem-period requests (%L1; double-click opens the waterfall)").arg(cc.problemEntries.size())});
    int shown = 0;
    for (auto entry : cc.problemEntries) {
        if (shown++ >= kShownRequests) {
            new QTreeWidgetItem(requests, {tr("… and %L1 more (export with tracelight-cli compare --json)").arg(cc.problemEntries.size() - kShownRequests)});
            break;
        }
        const RequestId id = m_result->requestIds[entry];
        const TimeNs latency = cats.latencyNs[entry];
        auto* item = new QTreeWidgetItem(requests, {m_namer ? m_namer(id) : QString::number(id.value), formatDurationNs(latency)});
        item->setData(0, kRequestRole, QVariant::fromValue<uint>(id.value));
    }
    red->setExpanded(true);
    pre->setExpanded(true);
    requests->setExpanded(true);
    showFlowGraphs(*e);
    m_entry = *e;
    explain();
}

void CompareWorkspace::askSwimLanes(RequestId first, RequestId second, const QString& firstTitle, const QString& secondTitle) {
    m_firstLanesTitle->setText(tr("<b>%1</b> — its median request by latency").arg(firstTitle.toHtmlEscaped()));
    m_secondLanesTitle->setText(tr("<b>%1</b> — its median request by latency").arg(secondTitle.toHtmlEscaped()));
    m_awaiting |= kLanes;
    emit swimLanesRequested(SwimLanesRequest{first, second});
}

void CompareWorkspace::showSwimLanes(SwimLanesOutcome lanes) {
    if (!(m_awaiting & kLanes) || !lanes) return;
    m_awaiting &= ~kLanes;
    if (lanes->isOk()) {
        const SwimLanes& got = lanes->value();
        m_firstLanes->setRequest(got.first);
        m_secondLanes->setRequest(got.second);
        shareLanesAxis();
        // Titled as the swim lanes are; both on the longer request's time axis.
        for (auto [view, train, title] : {std::tuple{m_firstTrain, &got.firstTrain, m_firstLanesTitle}, std::tuple{m_secondTrain, &got.secondTrain, m_secondLanesTitle}}) {
            if (train->components.empty()) view->clear(tr("No request on this side"));
            else view->setSchedule(*train, QTextDocumentFragment::fromHtml(title->text()).toPlainText());
        }
        const double span = std::max(m_firstTrain->spanUs(), m_secondTrain->spanUs());
        m_firstTrain->setSpanUs(span);
        m_secondTrain->setSpanUs(span);
    } else {
        m_firstLanesTitle->setText(QString::fromStdString(lanes->message()));
        m_firstTrain->clear(QString::fromStdString(lanes->message()));
    }
    emit resultsReady();
}

void CompareWorkspace::explain() {
    if (!m_entry || !m_result) return;
    std::set<std::string> dropped;
    for (int i = 0; i < m_treeAttributes->count(); ++i)
        if (m_treeAttributes->item(i)->checkState() == Qt::Unchecked) dropped.insert(m_treeAttributes->item(i)->text().toStdString());
    m_tree->setMessage(tr("Growing the tree…"));
    m_treeDropped = dropped;
    m_awaiting |= kTree;
    emit treeRequested(EntryTreeRequest{m_result, *m_entry, std::move(dropped)});
}

void CompareWorkspace::askOverTime() {
    if (!m_result) return;
    m_overTimeCategories = m_result->categories.get();
    m_awaiting |= kOverTime;
    emit overTimeRequested(OverTimeRequest{m_result, m_overTime->buckets(), m_overTime->splitBy().toStdString()});
}

void CompareWorkspace::showOverTime(OverTimeOutcome outcome) {
    if (!(m_awaiting & kOverTime) || !outcome || !m_result) return;
    m_awaiting &= ~kOverTime;
    if (outcome->isOk())
        m_overTime->setResult(outcome->value(), QString::fromStdString(m_result->baseline), QString::fromStdString(m_result->problem));
    else
        m_overTime->setResult(nullptr, {}, {});
    emit resultsReady();
}

void CompareWorkspace::showTree(EntryTreeOutcome tree) {
    if (!(m_awaiting & kTree) || !tree) return;
    m_awaiting &= ~kTree;
    const std::set<std::string>& dropped = m_treeDropped;
    if (!tree->isOk()) {
        m_tree->setMessage(QString::fromStdString(tree->message()));
        emit resultsReady();
        return;
    }
    const RegressionTree& t = tree->value();
    {
        // The attribute list follows the tree's data, keeping what was unticked.
        const QSignalBlocker block(m_treeAttributes);
        m_treeAttributes->clear();
        for (const auto& a : t.attributes) {
            auto* item = new QListWidgetItem(QString::fromStdString(a.name), m_treeAttributes);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(dropped.count(a.name) ? Qt::Unchecked : Qt::Checked);
        }
    }
    if (t.attributes.empty()) {
        m_tree->setMessage(tr("These requests carry no attributes: nothing to separate them by."));
        m_treeSummary->clear();
    } else {
        m_tree->setTree(std::make_shared<const RegressionTree>(t));
        m_treeSummary->setText(tr("C4.5 tree: <b>%1</b> requests against <b>%2</b> ones, %3 leaves, depth %4 · "
                                  "also <tt>tracelight-cli compare … --tree N</tt>")
                                   .arg(QString::fromStdString(t.classNames[1]), QString::fromStdString(t.classNames[0]))
                                   .arg(t.leafCount())
                                   .arg(t.depth()));
    }
    emit resultsReady();
}

void CompareWorkspace::showFlowGraphs(const CompareEntry& entry) {
    for (FlowGraphView* view : {m_first, m_second, m_diff}) view->setMessage(tr("Laying out the flow graphs…"));
    m_graphTitles->clear();
    auto result = m_result;
    auto analysis = m_analysis;
    if (!result || !analysis) return;
    const QFontMetricsF fm(font());
    // Labels are mostly capitals and punctuation ("nfs:MDS_CACHE_MISS->MD_READ_RECV"): measure those, not
    // the font's average (lower-case) character.
    const QString sample = QStringLiteral("ABCDEFGHIJKLMNOPQRSTUVWXYZ_:->.abcdefgh");
    const double charWidth = fm.horizontalAdvance(sample) / sample.size(), lineHeight = fm.height();
    m_awaiting |= kGraphs;
    emit graphsRequested(EntryGraphsRequest{analysis, result, entry, charWidth, lineHeight});
}

void CompareWorkspace::showGraphs(EntryGraphsOutcome drawing) {
    if (!(m_awaiting & kGraphs) || !drawing) return;
    m_awaiting &= ~kGraphs;
    if (!drawing->isOk()) {
        for (FlowGraphView* view : {m_first, m_second, m_diff}) view->setMessage(QString::fromStdString(drawing->message()));
        emit resultsReady();
        return;
    }
    const auto& d = drawing->value();
    for (FlowGraphView* view : {m_first, m_second, m_diff}) view->setDrawing(d);
    showEdgeLatencies(d->pair);
    askSwimLanes(d->pair.firstRequest, d->pair.secondRequest, QString::fromStdString(d->pair.firstTitle),
                  QString::fromStdString(d->pair.secondTitle));
    m_graphTitles->setText(tr("<b>Left</b>: %1 · <b>right</b>: %2 — each side's median request by latency (double-click opens it); "
                              "node: mean over the side's requests; red border: a red edge · %3")
                               .arg(QString::fromStdString(d->pair.firstTitle).toHtmlEscaped(),
                                    QString::fromStdString(d->pair.secondTitle).toHtmlEscaped(), d->layout.description));
    emit resultsReady();
}

void CompareWorkspace::showEdgeLatencies(const FlowGraphPair& pair) {
    if (!m_edgeItem || !m_result) return;
    // Per edge (critical-path segment type), the second side's statistics → the first's; the largest change first.
    struct Row {
        std::uint32_t type;
        CategoryStats second, first;
    };
    std::map<std::uint32_t, Row> byType;
    for (const EdgeStats& e : pair.secondEdges) byType[e.type].second = e.stats;
    for (const EdgeStats& e : pair.firstEdges) byType[e.type].first = e.stats;
    std::vector<Row> rows;
    for (auto& [type, row] : byType) {
        row.type = type;
        rows.push_back(row);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return std::fabs(a.first.meanNs - a.second.meanNs) > std::fabs(b.first.meanNs - b.second.meanNs);
    });
    const RequestCategories& cats = *m_result->categories;
    auto cell = [](const CategoryStats& s) { return s.count ? tr("%1 (%L2)").arg(formatMeanAndSpreadNs(s.meanNs, s.varianceNs2)).arg(s.count) : QStringLiteral("–"); };
    m_edgeItem->setText(0, tr("Edge latencies (%L1)").arg(rows.size()));
    m_edgeItem->setExpanded(true);
    m_edgeItem->setText(1, tr("mean ± standard deviation (requests): baseline side → problem side"));
    m_edgeItem->setToolTip(0, tr("Each edge's time on the critical path: %1 → %2")
                                  .arg(QString::fromStdString(pair.secondTitle), QString::fromStdString(pair.firstTitle)));
    for (const Row& row : rows) {
        auto* item = new QTreeWidgetItem(m_edgeItem, {QStringLiteral("%1 → %2").arg(QString::fromStdString(cats.typeStart[row.type]),
                                                                                  QString::fromStdString(cats.typeEnd[row.type])),
                                                      QStringLiteral("%1 → %2").arg(cell(row.second), cell(row.first))});
        item->setToolTip(0, item->text(0));
        item->setToolTip(1, item->text(1));
    }
}

void CompareWorkspace::shareLanesAxis() {
    // One time axis: both from their request's start to the longer one's end.
    const double span = std::max(m_firstLanes->layout().spanUs, m_secondLanes->layout().spanUs);
    m_firstLanes->setVisibleRange(0, std::max(1.0, span));
}

void CompareWorkspace::setLocalClocks(bool local) {
    m_firstLanes->setLocalClocks(local);
    m_secondLanes->setLocalClocks(local);
    shareLanesAxis();
    m_timeline->setLocalClocks(local);
}

bool CompareWorkspace::exportCsv(const QString& path) const {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
    return file.write(m_model->toCsv().toUtf8()) >= 0;
}

} // namespace tracelight::widgets
