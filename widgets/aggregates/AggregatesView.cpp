#include "aggregates/AggregatesView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QAbstractItemView>
#include <QToolTip>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QEventLoop>
#include <cmath>
#include <map>
#include <mutex>
#include <qcustomplot.h>

#include "common/HoverText.h"
#include "common/JobRunner.h"
#include "common/TimeFormat.h"
#include "plots/BreakdownPlot.h"
#include "plots/CdfPlot.h"
#include "common/PlotExport.h"
#include "plots/SlackScatter.h"
#include "tracelight/compare/AaPercentiles.h"

namespace tracelight::widgets {

namespace {

// A popup of a screenful: styles whose popup lists every item (a full-screen list of 200 span names) obey the limit.
void keepPopupSmall(QComboBox* box) {
    box->setMaxVisibleItems(16);
    box->setStyleSheet(QStringLiteral("QComboBox { combobox-popup: 0; }"));
}

} // namespace

AggregatesView::AggregatesView(QWidget* parent)
    : QWidget(parent),
      m_attributes(std::make_shared<RequestAttributes>()),
      m_whatIfJob(new JobRunner(this)) {
    connect(m_whatIfJob, &JobRunner::finished, this, &AggregatesView::jobFinished, Qt::QueuedConnection);
    m_pages = new QTabWidget(this);
    m_pages->setDocumentMode(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);

    // Breakdown: bars on the left, the CDF of each category's critical-path share on the right.
    {
        auto* page = new QWidget(this);
        m_stratifyBy = new QComboBox(page);
        keepComboNarrow(m_stratifyBy, 16);
        m_quantiles = new QSpinBox(page);
        m_quantiles->setObjectName(QStringLiteral("quantiles"));
        m_quantiles->setRange(2, 20);
        m_quantiles->setValue(QSettings().value(QStringLiteral("aggregates/quantiles"), 4).toInt());
        m_quantiles->setPrefix(tr("in "));
        m_quantiles->setSuffix(tr(" quantiles"));
        m_quantiles->setToolTip(tr("A numeric attribute (bytes, a duration) is cut into this many equal-population ranges "
                                   "(4: quartiles; the Mystery Machine's bandwidth study used 5)"));
        m_percent = new QCheckBox(tr("Percent"), page);
        m_breakdown = new BreakdownPlot(page);
        m_shareCdf = new CdfPlot(page);
        auto* controls = new QHBoxLayout;
        controls->addWidget(new QLabel(tr("Stratify by"), page));
        controls->addWidget(m_stratifyBy);
        controls->addWidget(m_quantiles);
        controls->addWidget(m_percent);
        controls->addStretch(1);
        auto* split = new QSplitter(page);
        split->addWidget(m_breakdown);
        split->addWidget(m_shareCdf);
        split->setStretchFactor(0, 3);
        split->setStretchFactor(1, 2);
        split->setChildrenCollapsible(false);
        split->setSizes({1500, 1000});
        m_shareCdf->setMinimumWidth(340);
        m_breakdownAa = new QLabel(page);
        m_breakdownAa->setObjectName(QStringLiteral("breakdownAa"));
        m_breakdownAa->setWordWrap(true);
        m_breakdownAa->setToolTip(tr("How far two groups of this size, drawn at random from the same requests, differ in their "
                                     "latency percentiles by chance alone (the cloud-application study's A/A baseline)"));
        auto* v = new QVBoxLayout(page);
        v->addLayout(controls);
        v->addWidget(m_breakdownAa);
        v->addWidget(split, 1);
        m_pages->addTab(page, tr("Breakdown"));
        connect(m_stratifyBy, &QComboBox::currentIndexChanged, this, &AggregatesView::refreshBreakdown);
        connect(m_quantiles, &QSpinBox::valueChanged, this, [this](int quantiles) {
            QSettings().setValue(QStringLiteral("aggregates/quantiles"), quantiles);
            refreshBreakdown();
        });
        connect(m_percent, &QCheckBox::toggled, m_breakdown, &BreakdownPlot::setPercent);
    }
    // Outliers: the slowest share of requests against the rest, per segment type.
    {
        auto* page = new QWidget(this);
        m_outlierPercent = new QDoubleSpinBox(page);
        m_outlierPercent->setRange(0.1, 50);
        m_outlierPercent->setValue(5);
        m_outlierPercent->setSuffix(tr(" % slowest"));
        m_outlierSummary = new QLabel(page);
        m_outlierSummary->setWordWrap(true);  // with what was left out it is longer than the row
        m_outlierTable = new QTableWidget(page);
        m_outlierTable->setColumnCount(4);
        m_outlierTable->setHorizontalHeaderLabels({tr("Segment type"), tr("Critical-path share, outliers"),
                                                   tr("Critical-path share, rest"), tr("Ratio")});
        m_outlierTable->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
        for (int c = 1; c < 4; ++c) m_outlierTable->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
        m_outlierTable->verticalHeader()->setVisible(false);
        m_outlierTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
        auto* controls = new QHBoxLayout;
        controls->addWidget(new QLabel(tr("Outliers:"), page));
        controls->addWidget(m_outlierPercent);
        controls->addWidget(m_outlierSummary, 1);
        m_outlierSlackSummary = new QLabel(page);
        m_outlierSlackSummary->setWordWrap(true);
        m_outlierSlackTable = new QTableWidget(page);
        m_outlierSlackTable->setColumnCount(4);
        m_outlierSlackTable->setHorizontalHeaderLabels({tr("Category"), tr("Median slack, outliers"), tr("Median slack, rest"),
                                                        tr("Left in the outliers")});
        m_outlierSlackTable->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
        for (int c = 1; c < 4; ++c) m_outlierSlackTable->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
        m_outlierSlackTable->verticalHeader()->setVisible(false);
        m_outlierSlackTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
        auto* split = new QSplitter(Qt::Vertical, page);
        split->addWidget(m_outlierTable);
        auto* slackPane = new QWidget(split);
        auto* slackLayout = new QVBoxLayout(slackPane);
        slackLayout->setContentsMargins(0, 0, 0, 0);
        slackLayout->addWidget(m_outlierSlackSummary);
        slackLayout->addWidget(m_outlierSlackTable, 1);
        split->addWidget(slackPane);
        split->setSizes({600, 400});
        split->setChildrenCollapsible(false);
        auto* v = new QVBoxLayout(page);
        v->addLayout(controls);
        v->addWidget(split, 1);
        m_pages->addTab(page, tr("Outliers"));
        connect(m_outlierPercent, &QDoubleSpinBox::valueChanged, this, &AggregatesView::refreshOutliers);
    }
    // Slack scatter.
    {
        auto* page = new QWidget(this);
        m_scatterCategory = new QComboBox(page);
        keepComboNarrow(m_scatterCategory, 28);  // category names are long: a fixed width, the whole name on hover
        keepPopupSmall(m_scatterCategory);
        m_scatter = new SlackScatter(page);
        auto* controls = new QHBoxLayout;
        controls->addWidget(new QLabel(tr("Category"), page));
        controls->addWidget(m_scatterCategory);
        controls->addWidget(new QLabel(tr("Drag to select requests in the table; double-click a point to open it."), page), 1);
        auto* v = new QVBoxLayout(page);
        v->addLayout(controls);
        v->addWidget(m_scatter, 1);
        m_pages->addTab(page, tr("Slack scatter"));
        connect(m_scatterCategory, &QComboBox::currentIndexChanged, this, &AggregatesView::refreshScatter);
        connect(m_scatter, &SlackScatter::requestsBrushed, this, &AggregatesView::requestsBrushed);
        connect(m_scatter, &SlackScatter::requestActivated, this, &AggregatesView::requestActivated);
        connect(m_scatter, &SlackScatter::drawn, this, &AggregatesView::jobFinished, Qt::QueuedConnection);
    }
    // Slack studies.
    {
        auto* page = new QWidget(this);
        m_slackCategory = new QComboBox(page);
        keepComboNarrow(m_slackCategory, 20);
        keepPopupSmall(m_slackCategory);
        m_userAttribute = new QComboBox(page);
        keepComboNarrow(m_userAttribute);
        m_withinAttribute = new QComboBox(page);
        keepComboNarrow(m_withinAttribute);
        m_withinValue = new QComboBox(page);
        m_withinValue->setMinimumContentsLength(8);
        m_slackBuckets = new QSpinBox(page);
        m_slackBuckets->setObjectName(QStringLiteral("slackBuckets"));
        m_slackBuckets->setRange(2, 100);
        m_slackBuckets->setValue(QSettings().value(QStringLiteral("aggregates/slackBuckets"), 5).toInt());
        m_slackBuckets->setToolTip(tr("Equal-population buckets of the category's slack (the Mystery Machine used 20)"));
        m_slackCdf = new CdfPlot(page);
        m_bucketPlot = new QCustomPlot(page);
        m_predictionPlot = new QCustomPlot(page);
        m_predictionPlot->setObjectName(QStringLiteral("slackPrediction"));
        m_predictionPlot->hide();  // until a user attribute is chosen
        m_prediction = new QLabel(page);
        m_prediction->setWordWrap(true);
        m_prediction->setTextFormat(Qt::RichText);
        auto* controls = new QHBoxLayout;
        controls->addWidget(new QLabel(tr("Category"), page));
        controls->addWidget(m_slackCategory);
        controls->addWidget(new QLabel(tr("User attribute"), page));
        controls->addWidget(m_userAttribute);
        controls->addWidget(new QLabel(tr("Within"), page));
        controls->addWidget(m_withinAttribute);
        controls->addWidget(new QLabel(QStringLiteral("="), page));
        controls->addWidget(m_withinValue);
        controls->addWidget(new QLabel(tr("Buckets"), page));
        controls->addWidget(m_slackBuckets);
        controls->addStretch(1);
        auto* right = new QWidget(page);
        auto* rv = new QVBoxLayout(right);
        rv->setContentsMargins(0, 0, 0, 0);
        rv->addWidget(m_bucketPlot, 1);
        rv->addWidget(m_predictionPlot, 1);
        rv->addWidget(m_prediction);
        // The CDF keeps room of its own: the long prediction text wraps in its column instead of widening it
        // (the CDF was squeezed to ~230 px in the live window, its tick labels overlapping).
        m_prediction->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        m_prediction->setMinimumWidth(200);
        m_slackCdf->setMinimumWidth(380);
        m_bucketPlot->setMinimumWidth(320);
        auto* split = new QSplitter(page);
        split->addWidget(m_slackCdf);
        split->addWidget(right);
        split->setStretchFactor(0, 1);
        split->setStretchFactor(1, 1);
        split->setChildrenCollapsible(false);
        split->setSizes({1000, 1000});  // half each, whatever the plots' size hints say
        m_slackPlots = split;
        m_slackNotice = new QLabel(page);
        m_slackNotice->setObjectName(QStringLiteral("slackNotice"));
        m_slackNotice->setWordWrap(true);
        m_slackNotice->setAlignment(Qt::AlignCenter);
        m_slackNotice->setMargin(24);
        m_slackNotice->hide();
        auto* v = new QVBoxLayout(page);
        v->addLayout(controls);
        v->addWidget(m_slackNotice, 1);
        v->addWidget(split, 1);
        attachHoverText(m_bucketPlot, [this](const QPoint& pos) { return bucketToolTip(pos); });
        m_pages->addTab(page, tr("Slack studies"));
        connect(m_slackCategory, &QComboBox::currentIndexChanged, this, [this] { refreshSlackStudies(false); });
        connect(m_userAttribute, &QComboBox::currentIndexChanged, this, [this] { refreshSlackStudies(false); });
        connect(m_withinAttribute, &QComboBox::currentIndexChanged, this, &AggregatesView::refreshWithinValues);
        connect(m_withinValue, &QComboBox::currentIndexChanged, this, [this] { refreshSlackStudies(false); });
        connect(m_slackBuckets, &QSpinBox::valueChanged, this, [this](int buckets) {
            QSettings().setValue(QStringLiteral("aggregates/slackBuckets"), buckets);
            refreshSlackStudies(false);
        });
        connect(m_slackCdf, &CdfPlot::cutOffMoved, this, [this](double, double) { refreshSlackStudies(true); });
        attachPlotExport(m_predictionPlot, [this] {
            QString out = QStringLiteral("previous_slack_us,slack_us\n");
            for (const auto& [before, now] : m_predictionPairs)
                if (before != RequestAggregates::kNoSlack && now != RequestAggregates::kNoSlack)
                    out += QStringLiteral("%1,%2\n").arg(nsToUs(before)).arg(nsToUs(now));
            return out;
        });
        attachPlotExport(m_bucketPlot, [this] {
            QString out = QStringLiteral("slack_from_us,slack_to_us,requests,correlation,slope\n");
            for (const auto& b : m_buckets)
                out += QStringLiteral("%1,%2,%3,%4,%5\n").arg(nsToUs(b.slackFromNs)).arg(nsToUs(b.slackToNs)).arg(b.requests).arg(b.correlation).arg(b.slope);
            return out;
        });
    }
    // What-if.
    {
        auto* page = new QWidget(this);
        m_whatIfTarget = new QComboBox(page);
        // A combo of normal size: span names are long, so they are elided in the middle (the whole name is the
        // item's tooltip and the combo's), and the list shows a screenful, not all 200.
        m_whatIfTarget->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        m_whatIfTarget->setMinimumContentsLength(40);
        keepPopupSmall(m_whatIfTarget);
        m_whatIfTarget->view()->setTextElideMode(Qt::ElideMiddle);
        m_whatIfPercent = new QDoubleSpinBox(page);
        m_whatIfPercent->setRange(-100, 1000);
        m_whatIfPercent->setValue(-50);
        m_whatIfPercent->setSuffix(tr(" % duration"));
        m_whatIfRun = new QPushButton(tr("Re-schedule every request"), page);
        m_whatIf = new CdfPlot(page);
        auto* controls = new QHBoxLayout;
        auto* whatIf = new QLabel(tr("What if"), page);
        whatIf->setToolTip(tr("Every category, then the segment types with the most critical time"));
        controls->addWidget(whatIf);
        controls->addWidget(m_whatIfTarget);
        controls->addWidget(m_whatIfPercent);
        controls->addWidget(m_whatIfRun);
        controls->addStretch(1);
        auto* v = new QVBoxLayout(page);
        v->addLayout(controls);
        v->addWidget(m_whatIf, 1);
        m_pages->addTab(page, tr("What-if"));
        connect(m_whatIfTarget, &QComboBox::currentIndexChanged, this,
                [this] { m_whatIfTarget->setToolTip(m_whatIfTarget->currentData(Qt::ToolTipRole).toString()); });
        connect(m_whatIfRun, &QPushButton::clicked, this, [this] {
            if (!m_data || m_whatIfTarget->currentIndex() < 0) return;
            const int code = m_whatIfTarget->currentData().toInt();
            WhatIfTarget target;
            if (code < 0) target.category = -code - 1;
            else target.type = code;
            const double factor = 1.0 + m_whatIfPercent->value() / 100.0;
            emit whatIfRequested(target, factor,
                                 tr("%1 %2%3 %").arg(m_whatIfTarget->currentText()).arg(m_whatIfPercent->value() >= 0 ? "+" : "")
                                     .arg(m_whatIfPercent->value()));
        });
    }
}

void AggregatesView::showPage(int index) { m_pages->setCurrentIndex(index); }

bool AggregatesView::isComputing() const {
    return m_awaiting != 0 || m_whatIfJob->isRunning() || m_scatter->isComputing();
}

bool AggregatesView::waitForResults() {
    if (!isComputing()) return false;
    QEventLoop loop;
    connect(this, &AggregatesView::resultsReady, &loop, &QEventLoop::quit);
    while (isComputing()) loop.exec();
    return true;
}

void AggregatesView::jobFinished() {
    if (!isComputing()) emit resultsReady();
}

void AggregatesView::setAggregates(std::shared_ptr<const RequestAggregates> aggregates, QStringList attributeKeys,
                                   std::function<std::vector<std::string>(const QString&)> attributeValues,
                                   std::function<QString(std::uint32_t)> typeName) {
    m_awaiting = 0;  // what was asked of the old aggregates is not shown (the session may have cancelled it)
    m_data = std::move(aggregates);
    m_attributes = std::make_shared<RequestAttributes>(std::move(attributeValues));  // jobs still running keep the old one
    m_typeName = std::move(typeName);
    for (QComboBox* box : {m_stratifyBy, m_scatterCategory, m_slackCategory, m_userAttribute, m_whatIfTarget, m_withinAttribute})
        box->blockSignals(true);
    m_stratifyBy->clear();
    m_stratifyBy->addItem(tr("(all requests)"));
    m_stratifyBy->addItems(attributeKeys);
    m_userAttribute->clear();
    m_userAttribute->addItems(attributeKeys);
    m_withinAttribute->clear();
    m_withinAttribute->addItem(tr("(all requests)"));
    m_withinAttribute->addItems(attributeKeys);
    m_withinValue->clear();
    const int user = attributeKeys.indexOf(QStringLiteral("user"));
    if (user >= 0) m_userAttribute->setCurrentIndex(user);
    m_scatterCategory->clear();
    m_slackCategory->clear();
    m_whatIfTarget->clear();
    if (m_data) {
        for (std::size_t c = 0; c < m_data->width(); ++c) {
            const QString name = QString::fromStdString(m_data->categories[c]);
            if (name == QLatin1String("unused")) continue;
            m_scatterCategory->addItem(name, static_cast<int>(c));
            m_slackCategory->addItem(name, static_cast<int>(c));
            m_whatIfTarget->addItem(tr("category %1").arg(name), -static_cast<int>(c) - 1);
            m_whatIfTarget->setItemData(m_whatIfTarget->count() - 1, tr("category %1").arg(name), Qt::ToolTipRole);
        }
        // Then the segment types with the most critical time: a type off every critical path gains nothing
        // from being faster, and a million-span trace has a quarter of a million types.
        const std::size_t offered = std::min(m_data->typesByCriticalTime.size(), kWhatIfTypes);
        const QFontMetrics metrics(m_whatIfTarget->font());
        const int room = metrics.averageCharWidth() * m_whatIfTarget->minimumContentsLength();
        for (std::size_t k = 0; k < offered && m_typeName; ++k) {
            const std::uint32_t t = m_data->typesByCriticalTime[k];
            const QString name = m_typeName(t);
            m_whatIfTarget->addItem(metrics.elidedText(name, Qt::ElideMiddle, room), static_cast<int>(t));
            m_whatIfTarget->setItemData(m_whatIfTarget->count() - 1, name, Qt::ToolTipRole);
        }
        m_whatIfTarget->setToolTip(m_whatIfTarget->currentData(Qt::ToolTipRole).toString());
    }
    for (QComboBox* box : {m_stratifyBy, m_scatterCategory, m_slackCategory, m_userAttribute, m_whatIfTarget, m_withinAttribute})
        box->blockSignals(false);
    refreshBreakdown();
    refreshOutliers();
    if (m_data) {
        // The slack views start on a category whose slack says something (on a worker: it reads every request).
        // By name ("web", "frontend") they started on span data's root service: a diagonal and zero slack.
        m_awaiting |= kSlackCategory;
        emit slackCategoryRequested(SlackCategoryRequest{m_data});
        drawWhatIf({}, QString());
    } else {  // no aggregates (another database is loading): nothing of the previous ones stays on show
        m_awaiting &= ~kSlackCategory;
        refreshScatter();
        refreshSlackStudies(false);
        m_whatIfJob->cancel();
        m_shareCdf->setSeries(QString(), std::vector<CdfSeries>{});
        m_outlierSummary->clear();
        m_slackCdf->setSeries(QString(), std::vector<CdfSeries>{});
        m_bucketPlot->clearPlottables();
        m_bucketPlot->replot();
        m_predictionPlot->hide();
        m_prediction->clear();
        m_whatIf->setSeries(QString(), std::vector<CdfSeries>{});
    }
}

void AggregatesView::startOnCategory(int category) {
    if (!(m_awaiting & kSlackCategory)) return;  // asked for aggregates since replaced
    m_awaiting &= ~kSlackCategory;
    for (QComboBox* box : {m_scatterCategory, m_slackCategory}) {
        const int i = box->findData(category);
        box->blockSignals(true);
        if (i >= 0) box->setCurrentIndex(i);
        box->blockSignals(false);
    }
    refreshScatter();
    refreshSlackStudies(false);
}

QString AggregatesView::slackNotice() const { return m_slackNotice->isHidden() ? QString() : m_slackNotice->text(); }

QString AggregatesView::bucketToolTip(const QPoint& pos) const {
    if (m_bucketPlot->plottableCount() == 0) return {};
    QVariant details;
    if (m_bucketPlot->plottable(0)->selectTest(pos, false, &details) < 0) return {};
    const QCPDataSelection hit = details.value<QCPDataSelection>();
    if (hit.isEmpty()) return {};
    const auto b = static_cast<std::size_t>(hit.dataRange().begin());
    if (b >= m_buckets.size()) return {};
    const SlackBucket& bucket = m_buckets[b];
    const QString name = m_slackCategory->currentText();
    return tr("%1 slack %2: %L3 requests\ncorrelation of %1 time with latency: %4\nlatency per unit of %1 time: %5")
        .arg(name, formatDurationRangeNs(bucket.slackFromNs, bucket.slackToNs))
        .arg(bucket.requests)
        .arg(bucket.correlation, 0, 'f', 2)
        .arg(bucket.slope, 0, 'f', 2);
}

void AggregatesView::setWhatIfResult(const std::vector<TimeNs>& after, const QString& label) {
    if (!m_data) return;
    drawWhatIf(after, label);
}

void AggregatesView::drawWhatIf(std::vector<TimeNs> after, const QString& label) {
    // Both distributions are sorted on a worker: a million latencies are no work for the GUI thread.
    auto data = m_data;
    const QString measured = tr("as measured");
    m_whatIfJob->start<std::shared_ptr<std::vector<CdfSeries>>>(
        [data, after = std::move(after), label, measured](const CancelToken&, const ProgressSink&) {
            auto series = std::make_shared<std::vector<CdfSeries>>();
            series->push_back(makeDurationCdfSeries(measured, data->latencyNs));
            if (!label.isEmpty()) series->push_back(makeDurationCdfSeries(label, after));
            return series;
        },
        [this, label](std::shared_ptr<std::vector<CdfSeries>> series) {
            m_whatIf->setSeries(tr("end-to-end latency (ms)"), std::move(*series));
            nameExport(m_whatIf->plot(), label.isEmpty() ? tr("latency CDF") : tr("what-if %1").arg(label));
        });
}

void AggregatesView::nameExport(QCustomPlot* plot, const QString& what) {
    setPlotExportName(plot, m_exportContext.isEmpty() ? what : what + QLatin1Char(' ') + m_exportContext);
}

void AggregatesView::refreshBreakdown() {
    if (!m_data) {
        m_awaiting &= ~kBreakdown;
        m_breakdown->setBreakdowns({});
        m_breakdownAa->clear();
        return;
    }
    const QString key = m_stratifyBy->currentIndex() > 0 && m_attributes->canRead() ? m_stratifyBy->currentText() : QString();
    m_awaiting |= kBreakdown;
    emit breakdownRequested(BreakdownRequest{m_data, m_attributes, key, m_quantiles->value()});
}

void AggregatesView::showBreakdown(std::shared_ptr<BreakdownOutcome> result) {
    if (!(m_awaiting & kBreakdown) || !result) return;
    m_awaiting &= ~kBreakdown;
    const QString key = result->stratifyBy;
    std::vector<std::pair<QString, Breakdown>> groups;
    for (auto& [value, b] : result->study.groups)
        groups.emplace_back(key.isEmpty() ? tr("all requests") : QString::fromStdString(value), std::move(b));
    m_breakdown->setBreakdowns(std::move(groups));
    for (auto& series : result->shares) series.colour = m_breakdown->colourOf(series.name);
    if (result->aa.empty()) {
        m_breakdownAa->setText(tr("A/A: too few requests to split."));
    } else {
        const QString groupsOf = key.isEmpty() ? tr("two random halves of these requests (%L1 each)").arg(result->aaGroupSize)
                                               : tr("two random groups of %L1 requests (the smallest stratum)").arg(result->aaGroupSize);
        m_breakdownAa->setText(tr("A/A: %1 differ by chance by up to ±%2 % at p50 and ±%3 % at p95 (95 % interval); "
                                  "read differences between strata against it.")
                                   .arg(groupsOf)
                                   .arg(100.0 * chanceDifference(result->aa, 50), 0, 'f', 1)
                                   .arg(100.0 * chanceDifference(result->aa, 95), 0, 'f', 1));
    }
    m_shareCdf->setSeries(tr("share of the request's critical path in the category (%)"), std::move(result->shares), false, 100.0,
                          QStringLiteral("%"));
    const QString by = key.isEmpty() ? QString() : tr(" by %1").arg(key);
    nameExport(m_breakdown->plot(), tr("breakdown%1").arg(by));
    nameExport(m_shareCdf->plot(), tr("critical path share CDF%1").arg(by));
    jobFinished();
}

void AggregatesView::refreshOutliers() {
    if (!m_data) {
        m_awaiting &= ~kOutliers;
        m_outlierTable->setRowCount(0);
        m_outlierSlackTable->setRowCount(0);
        return;
    }
    m_awaiting |= kOutliers;
    emit outliersRequested(OutlierRequest{m_data, m_outlierPercent->value() / 100.0});
}

void AggregatesView::showOutliers(std::shared_ptr<const Outliers> result) {
    if (!(m_awaiting & kOutliers) || !result) return;
    m_awaiting &= ~kOutliers;
    const Outliers& o = *result;
    m_outlierTable->setRowCount(0);
    // A share under the table's last digit in both sets reads "0.00 % vs 0.00 %" and says nothing: such types
    // are left out, and counted in the line above.
    constexpr double kSmallest = 0.0001;  // 0.01 %
    std::vector<const OutlierSegment*> shown;
    for (const auto& s : o.segments)
        if (s.outlierShare >= kSmallest || s.restShare >= kSmallest) shown.push_back(&s);
    const auto negligible = static_cast<int>(o.segments.size() - shown.size());
    QString summary = tr("%L1 requests slower than %2 ms against the rest, ranked by how much more of their critical path "
                         "each segment type takes.")
                          .arg(o.outlierRequests)
                          .arg(nsToMs(o.thresholdNs), 0, 'f', 1);
    if (negligible == 1) summary += tr(" One segment type with under 0.01 % of the critical path in both sets is left out.");
    else if (negligible > 1)
        summary += tr(" %L1 segment types with under 0.01 % of the critical path in both sets are left out.").arg(negligible);
    m_outlierSummary->setText(summary);
    auto share = [](double v) {
        return v >= kSmallest ? QStringLiteral("%1 %").arg(100 * v, 0, 'f', 2) : v > 0 ? QStringLiteral("< 0.01 %") : QStringLiteral("0 %");
    };
    const int rows = static_cast<int>(std::min<std::size_t>(shown.size(), 200));
    m_outlierTable->setRowCount(rows);
    for (int i = 0; i < rows; ++i) {
        const auto& s = *shown[static_cast<std::size_t>(i)];
        const QString name = m_typeName ? m_typeName(s.type) : QString::number(s.type);
        auto* nameItem = new QTableWidgetItem(name);
        nameItem->setToolTip(name);
        m_outlierTable->setItem(i, 0, nameItem);
        m_outlierTable->setItem(i, 1, new QTableWidgetItem(share(s.outlierShare)));
        m_outlierTable->setItem(i, 2, new QTableWidgetItem(share(s.restShare)));
        m_outlierTable->setItem(i, 3,
                                new QTableWidgetItem(s.ratio >= 1e8 ? QStringLiteral("only in outliers") : QString::number(s.ratio, 'f', 2)));
    }
    // Slack: a category with none in either set (always on the critical path) says nothing here; it is counted.
    std::vector<const OutlierSlack*> withSlack;
    for (const auto& s : o.slack)
        if (s.outlierMedianNs > 0 || s.restMedianNs > 0) withSlack.push_back(&s);
    const auto never = static_cast<int>(o.slack.size() - withSlack.size());
    QString slackSummary = tr("Each category's median slack — how much later its last segment could have ended without "
                              "delaying the request — in the outliers and in the rest; the most slack lost first.");
    if (never == 1) slackSummary += tr(" One category with no slack in either set (always on the critical path) is left out.");
    else if (never > 1) slackSummary += tr(" %L1 categories with no slack in either set (always on the critical path) are left out.").arg(never);
    m_outlierSlackSummary->setText(slackSummary);
    m_outlierSlackTable->setRowCount(static_cast<int>(withSlack.size()));
    for (int i = 0; i < static_cast<int>(withSlack.size()); ++i) {
        const OutlierSlack& s = *withSlack[static_cast<std::size_t>(i)];
        const QString name = m_data && s.category < m_data->categories.size() ? QString::fromStdString(m_data->categories[s.category]) : QString();
        m_outlierSlackTable->setItem(i, 0, new QTableWidgetItem(name));
        m_outlierSlackTable->setItem(i, 1, new QTableWidgetItem(tr("%1 ms").arg(nsToMs(s.outlierMedianNs), 0, 'f', 2)));
        m_outlierSlackTable->setItem(i, 2, new QTableWidgetItem(tr("%1 ms").arg(nsToMs(s.restMedianNs), 0, 'f', 2)));
        m_outlierSlackTable->setItem(i, 3, new QTableWidgetItem(s.ratio >= 1e8 ? tr("more than the rest")
                                                                                : QStringLiteral("%1 %").arg(100 * s.ratio, 0, 'f', 0)));
    }
    jobFinished();
}

void AggregatesView::refreshScatter() {
    if (!m_data || m_scatterCategory->currentIndex() < 0) {
        m_scatter->setData(nullptr, 0);
        return;
    }
    m_scatter->setData(m_data, m_scatterCategory->currentData().toInt());
    nameExport(m_scatter->plot(), tr("slack scatter %1").arg(m_scatterCategory->currentText()));
}

void AggregatesView::refreshWithinValues() {
    // The values of the chosen attribute, most frequent first (read and counted on a worker).
    m_withinValue->blockSignals(true);
    m_withinValue->clear();
    m_withinValue->blockSignals(false);
    if (m_withinAttribute->currentIndex() <= 0 || !m_attributes->canRead()) {
        m_awaiting &= ~kWithinValues;
        refreshSlackStudies(false);
        return;
    }
    m_awaiting |= kWithinValues;
    emit attributeValuesRequested(AttributeValuesRequest{m_attributes, m_withinAttribute->currentText()});
}

void AggregatesView::showAttributeValues(std::shared_ptr<const std::vector<std::string>> values) {
    if (!(m_awaiting & kWithinValues) || !values) return;
    m_awaiting &= ~kWithinValues;
    m_withinValue->blockSignals(true);
    for (const auto& v : *values) m_withinValue->addItem(QString::fromStdString(v));
    m_withinValue->blockSignals(false);
    refreshSlackStudies(false);
    jobFinished();
}

void AggregatesView::refreshSlackStudies(bool fromCutOff) {
    if (!m_data || m_slackCategory->currentIndex() < 0) {
        m_awaiting &= ~kSlack;
        m_slackNotice->hide();
        m_slackPlots->show();
        return;
    }
    SlackRequest request;
    request.aggregates = m_data;
    request.attributes = m_attributes;
    request.category = static_cast<std::size_t>(m_slackCategory->currentData().toInt());
    request.categoryName = m_slackCategory->currentText();
    // A dragged cut-off is kept; otherwise core takes the median.
    request.cutoffNs = fromCutOff ? usToNs(m_slackCdf->cutOffMs() * 1000.0) : TimeNs(-1);
    request.fromCutOff = fromCutOff;
    request.buckets = m_slackBuckets->value();
    // Correlation per slack bucket, optionally within one value of an attribute (one connection type, say).
    const bool readable = m_attributes->canRead();
    if (m_withinAttribute->currentIndex() > 0 && m_withinValue->currentIndex() >= 0 && readable) {
        request.withinKey = m_withinAttribute->currentText();
        request.withinValue = m_withinValue->currentText().toStdString();
    }
    if (m_userAttribute->currentIndex() >= 0 && readable) request.userKey = m_userAttribute->currentText();
    m_awaiting |= kSlack;
    emit slackRequested(request);
}

void AggregatesView::showSlack(std::shared_ptr<SlackOutcome> result) {
    if (!(m_awaiting & kSlack) || !result) return;
    m_awaiting &= ~kSlack;
    const bool fromCutOff = result->request.fromCutOff;
    const QString& userKey = result->request.userKey;
    const QString& name = result->request.categoryName;
    const QString& withinKey = result->request.withinKey;
    const std::string& wanted = result->request.withinValue;
    const SlackStudy* study = &result->study;
    const QString within = withinKey.isEmpty() ? QString() : tr(" within %1=%2").arg(withinKey, QString::fromStdString(wanted));
    // No slack anywhere (the root service of span data ends last in every request): a CDF at zero and
    // empty buckets would look like a finding. One sentence says why instead.
    const bool none = study->slackNs.empty() || study->slackNs.back() == 0;
    QString notice;
    if (result->withSlack.empty()) {
        notice = tr("No category has slack in these requests: every span's caller waits for it to end (synchronous calls), so "
                    "slack CDFs and buckets would show only zeros. The Slack scatter still shows how a category's time goes "
                    "with the latency.");
    } else if (study->slackNs.empty()) {
        notice = tr("%1 is in none of these requests.").arg(name);
    } else {
        QStringList some(result->withSlack.begin(), result->withSlack.begin() + std::min<std::ptrdiff_t>(5, std::ssize(result->withSlack)));
        if (result->withSlack.size() > 5) some << QStringLiteral("…");
        notice = tr("%1 has no slack in these requests: what waits for it waits from the moment it ends (the root service "
                    "ends last), so its slack CDF and buckets would show only zeros. Categories with slack: %2.")
                     .arg(name, some.join(QStringLiteral(", ")));
    }
    m_slackNotice->setText(notice);
    m_slackNotice->setVisible(none);
    m_slackPlots->setVisible(!none);
    if (!fromCutOff) {
        // Log scale: the cut-off moves by a share of its value per pixel, not by hundreds of ms.
        m_slackCdf->setSeries(tr("%1 slack (ms, log scale)").arg(name), std::vector<CdfSeries>{std::move(result->cdf)}, true);
        nameExport(m_slackCdf->plot(), tr("slack CDF %1%2").arg(name, within));
        m_slackCdf->blockSignals(true);
        m_slackCdf->setCutOff(nsToMs(study->cutoffNs));
        m_slackCdf->blockSignals(false);
    }
    m_buckets = study->buckets;
    const auto& buckets = m_buckets;
    m_bucketPlot->clearPlottables();
    auto* bars = new QCPBars(m_bucketPlot->xAxis, m_bucketPlot->yAxis);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    QVector<double> keys, values;
    constexpr std::size_t kLabelledBuckets = 6;
    const std::size_t every = (buckets.size() + kLabelledBuckets - 1) / kLabelledBuckets;
    // Each bucket's range with the digits that tell it from its neighbours, and its size. Equal-size buckets
    // can share one slack value (many zeros): those say which part of that value they are.
    for (std::size_t b = 0; b < buckets.size(); ++b) {
        keys << double(b);
        values << buckets[b].correlation;
        QString label = formatDurationRangeNs(buckets[b].slackFromNs, buckets[b].slackToNs);
        std::size_t first = b, last = b;
        auto same = [&](std::size_t i, std::size_t j) {
            return buckets[i].slackFromNs == buckets[j].slackFromNs && buckets[i].slackToNs == buckets[j].slackToNs;
        };
        while (first > 0 && same(first - 1, b)) --first;
        while (last + 1 < buckets.size() && same(last + 1, b)) ++last;
        if (last > first) label += tr("\npart %1 of %2").arg(b - first + 1).arg(last - first + 1);
        if (buckets.size() <= kLabelledBuckets) ticker->addTick(double(b), label + tr("\n%L1 requests").arg(buckets[b].requests));
        // Many buckets (the paper's 20): every few a label, the slack up to which that bucket reaches, so that
        // they never run into each other; the counts go to the axis title.
        else if (b % every == every - 1 || b + 1 == buckets.size()) ticker->addTick(double(b), tr("≤ %1").arg(formatDurationNs(buckets[b].slackToNs)));
    }
    bars->setData(keys, values);
    bars->setBrush(QColor(0x19, 0x71, 0xc2));
    bars->setName(tr("correlation"));
    m_bucketPlot->xAxis->setTicker(ticker);
    m_bucketPlot->xAxis->setTickLabelRotation(0);  // lines under each bar (rotated, the last one fell off the edge)
    if (buckets.size() <= kLabelledBuckets) m_bucketPlot->xAxis->setLabel(tr("%1 slack (buckets of equal numbers of requests)").arg(name));
    else
        m_bucketPlot->xAxis->setLabel(tr("%1 slack (%2 buckets of about %L3 requests each)")
                                          .arg(name)
                                          .arg(buckets.size())
                                          .arg(buckets.empty() ? 0 : buckets.front().requests));
    m_bucketPlot->yAxis->setLabel(tr("correlation with latency (r)"));
    m_bucketPlot->xAxis->setRange(-0.6, double(buckets.size()) - 0.4);
    const double lowest = values.isEmpty() ? 0.0 : *std::min_element(values.begin(), values.end());
    m_bucketPlot->yAxis->setRange(std::min(0.0, lowest - 0.05), 1.0);
    m_bucketPlot->replot();
    nameExport(m_bucketPlot, tr("slack buckets %1%2").arg(name, within));
    // Prediction from each user's previous request, at the CDF's cut-off.
    m_predictionPlot->setVisible(study->predicted);
    if (study->predicted) drawPrediction(study->prediction, study->cutoffNs, name, within);
    if (study->predicted) {
        const auto& p = study->prediction;
        m_prediction->setText(tr("<b>Predicting %1 slack ≥ %2 from the user's previous request</b> (%L3 pairs by <i>%4</i>):<br>"
                                 "predicted slack and had it %L5 · predicted slack, had none %L6 · predicted none, had none %L7 · "
                                 "predicted none, had slack %L8<br>type I (false alarm) rate %9 % · type II (miss) rate %10 %")
                                  .arg(name)
                                  .arg(formatDurationNs(study->cutoffNs))
                                  .arg(p.pairs)
                                  .arg(userKey)
                                  .arg(p.truePositive)
                                  .arg(p.falsePositive)
                                  .arg(p.trueNegative)
                                  .arg(p.falseNegative)
                                  .arg(100 * p.typeOneRate(), 0, 'f', 1)
                                  .arg(100 * p.typeTwoRate(), 0, 'f', 1));
    }
    jobFinished();
}

void AggregatesView::drawPrediction(const SlackPrediction& p, TimeNs cutoffNs, const QString& name, const QString& within) {
    // The paper's Fig. 11: each request's slack against the same user's previous one, with the cut-off on both
    // axes; the four quadrants are the counts under the plot. At most kShown points, evenly through the pairs.
    constexpr std::size_t kShown = 20000;
    std::size_t usable = 0;
    double smallest = 0;  // the smallest slack above zero, in ms
    for (const auto& [before, now] : p.slackPairs) {
        if (before == RequestAggregates::kNoSlack || now == RequestAggregates::kNoSlack) continue;
        ++usable;
        for (TimeNs v : {before, now})
            if (v > 0 && (smallest == 0 || nsToMs(v) < smallest)) smallest = nsToMs(v);
    }
    // Log axes, as the CDF beside it: slack spans decades, and a few long ones would squash the rest against
    // zero. A slack of zero (common: the category was on the critical path) is drawn on the axes' floor.
    const double cut = nsToMs(cutoffNs);
    const double floor = std::max(1e-3, std::min(smallest > 0 ? smallest : 1.0, cut > 0 ? cut : 1.0) / 2);
    const std::size_t stride = std::max<std::size_t>(1, (usable + kShown - 1) / kShown);
    QVector<double> xs, ys;
    double top = std::max(cut * 2, floor * 10);
    std::size_t k = 0;
    for (const auto& [before, now] : p.slackPairs) {
        if (before == RequestAggregates::kNoSlack || now == RequestAggregates::kNoSlack) continue;
        if (k++ % stride) continue;
        xs << std::max(floor, nsToMs(before));
        ys << std::max(floor, nsToMs(now));
        top = std::max({top, xs.back(), ys.back()});
    }
    m_predictionPairs = p.slackPairs;
    m_predictionPlot->clearPlottables();
    m_predictionPlot->clearItems();
    auto* points = m_predictionPlot->addGraph();
    points->setLineStyle(QCPGraph::lsNone);
    points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0x19, 0x71, 0xc2, 90), 4));
    points->setData(xs, ys);
    points->setName(stride > 1 ? tr("request pairs (1 in %L1 of %L2 shown)").arg(stride).arg(usable) : tr("request pairs (%L1)").arg(usable));
    for (bool vertical : {true, false}) {
        auto* line = new QCPItemStraightLine(m_predictionPlot);
        line->setPen(QPen(QColor(0xc0, 0x39, 0x2b), 1, Qt::DashLine));
        line->point1->setCoords(vertical ? cut : floor, vertical ? floor : cut);
        line->point2->setCoords(vertical ? cut : top, vertical ? top : cut);
    }
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    for (QCPAxis* axis : {m_predictionPlot->xAxis, m_predictionPlot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("g"));
        axis->setRange(floor * 0.8, top * 1.25);
    }
    // The pair count is in the axis title, not a legend that would cover the points.
    m_predictionPlot->xAxis->setLabel(stride > 1 ? tr("%1 slack, user's previous request (ms; 0 on the floor; 1 in %L2 of %L3 pairs)")
                                                       .arg(name)
                                                       .arg(stride)
                                                       .arg(usable)
                                                 : tr("%1 slack, user's previous request (ms; 0 on the floor; %L2 pairs)").arg(name).arg(usable));
    m_predictionPlot->yAxis->setLabel(tr("this request (ms)"));
    m_predictionPlot->legend->setVisible(false);
    m_predictionPlot->replot();
    nameExport(m_predictionPlot, tr("slack prediction %1%2").arg(name, within));
}

} // namespace tracelight::widgets
