#include "bottleneck/BottlenecksView.h"

#include <QComboBox>
#include <cmath>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "bottleneck/BottleneckCharts.h"
#include "bottleneck/BottleneckPie.h"
#include "common/Counts.h"
#include "common/PlotExport.h"
#include "common/TimeFormat.h"
#include "common/HoverText.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight::widgets {

namespace {

// A cell sorted by its number (Qt::UserRole), not its text: "9.5 ms" before "10 ms".
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(const QString& text, double value) : QTableWidgetItem(text) {
        setData(Qt::UserRole, value);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override { return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble(); }
};

QCustomPlot* newPlot(QWidget* parent, const QString& title, const QString& exportName) {
    auto* plot = new QCustomPlot(parent);
    plot->setMinimumSize(280, 200);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, QFont(plot->font().family(), plot->font().pointSize(), QFont::Bold)));
    setPlotExportName(plot, exportName);
    return plot;
}

} // namespace

BottlenecksView::BottlenecksView(QWidget* parent) : QWidget(parent) {
    m_period = new QComboBox(this);
    m_period->setToolTip(tr("Whose requests: every one, or one period's"));
    m_sliceBy = new QComboBox(this);
    m_sliceBy->setToolTip(tr("Slice the requests by an attribute (numeric ones in quartiles) and look at one stratum"));
    m_stratum = new QComboBox(this);
    m_stratum->setToolTip(tr("The stratum shown: all of the slice, or the requests with one value"));
    // Latency slices (BOSS: "the bottleneck for the slowest 10 %"): the usual ones, or any LO..HI typed in.
    m_latency = new QComboBox(this);
    m_latency->setEditable(true);
    m_latency->setInsertPolicy(QComboBox::NoInsert);
    m_latency->addItem(tr("every latency"), QString());
    const std::pair<const char*, QString> ranges[] = {{"90..100", tr("slowest 10 %")},
                                                      {"95..100", tr("slowest 5 %")},
                                                      {"99..100", tr("slowest 1 %")},
                                                      {"50..90", tr("p50 to p90")},
                                                      {"0..50", tr("fastest half")}};
    for (const auto& [range, label] : ranges) {
        m_latency->addItem(label, QString::fromLatin1(range));
        m_latency->setItemData(m_latency->count() - 1, tr("Latency percentiles %1").arg(QString::fromLatin1(range)), Qt::ToolTipRole);
    }
    m_latency->setToolTip(tr("Only the requests in a range of latency percentiles of those chosen: pick one, or type LO..HI and "
                             "press Enter (90..100 is the slowest 10 %, 99.9..100 the slowest 0.1 %)."));
    m_compareWith = new QComboBox(this);
    m_compareWith->setToolTip(tr("Before and after: each type's contribution in a period against these requests, the change, whether "
                                 "it is more than chance (Welch, Benjamini-Hochberg at 5 %), and the A/A of that period's random halves"));
    // The choices share one row, narrow enough for the window's usual width (a hover shows the whole text).
    for (QComboBox* box : {m_period, m_sliceBy}) keepComboNarrow(box, 14);
    for (QComboBox* box : {m_latency, m_compareWith}) keepComboNarrow(box, 12);
    keepComboNarrow(m_stratum, 10);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);

    m_table = new QTableWidget(0, HowToFixColumn + 1, this);
    m_table->setHorizontalHeaderLabels({tr("Bottleneck type"), tr("Contribution ratio"), tr("Per request"), tr("Before"), tr("Change"),
                                        tr("Chance (A/A)"), tr("p"), tr("How to fix")});
    for (int c : {BeforeColumn, ChangeColumn, ChanceColumn, PValueColumn}) m_table->setColumnHidden(c, true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(TypeColumn, 170);
    m_table->setColumnWidth(ShareColumn, 120);
    m_table->setColumnWidth(MeanColumn, 90);
    m_table->setSortingEnabled(true);
    m_table->setWordWrap(false);
    m_table->setToolTip(tr("Contribution ratio: the type's share of the requests' latency when each moment is split evenly "
                           "among what was active in it (BOSS); per request: its mean contribution. Click a header to sort."));

    m_bars = newPlot(this, tr("Contribution ratio by type"), tr("bottleneck shares"));
    m_pie = new BottleneckPie(this);
    m_strataPlot = newPlot(this, tr("The strata side by side"), tr("bottleneck shares by stratum"));
    m_strataPlot->setToolTip(tr("Each stratum of the slice as one bar of its types' shares (choose one stratum above to see it alone)"));
    m_strataPlot->setVisible(false);
    attachPlotExport(m_strataPlot, [this] { return strataSharesCsv(m_strataShares); });
    m_trendPlot = newPlot(this, tr("Contributions over time"), tr("bottleneck trend"));
    m_scatter = newPlot(this, tr("Latency over time (click a point: its waterfall)"), tr("latency over time"));
    attachPlotExport(m_bars, [this] { return m_trend ? shareBarsCsv(m_trend->all) : QString(); });
    attachPlotExport(m_trendPlot, [this] { return m_trend ? trendCsv(*m_trend) : QString(); });
    attachPlotExport(m_scatter, [this] {
        return m_trend && m_analysis ? latencyScatterCsv(*m_trend, m_analysis->data.requestIds) : QString();
    });
    m_bars->installEventFilter(this);  // resized: as many bars as fit
    m_scatter->setToolTip(tr("One point per request; click one to open its waterfall"));
    connect(m_scatter, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        if (!m_trend || !m_analysis || event->button() != Qt::LeftButton) return;
        const int i = latencyPointNear(m_scatter, *m_trend, event->position().x(), event->position().y());
        if (i < 0) return;
        const std::uint32_t row = m_trend->rows[static_cast<std::size_t>(i)];
        if (row < m_analysis->data.requestIds.size()) emit requestActivated(m_analysis->data.requestIds[row]);
    });

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Requests:"), this));
    controls->addWidget(m_period, 1);
    controls->addWidget(new QLabel(tr("Latency:"), this));
    controls->addWidget(m_latency, 1);
    controls->addWidget(new QLabel(tr("Compare with:"), this));
    controls->addWidget(m_compareWith, 1);
    controls->addWidget(new QLabel(tr("Slice by:"), this));
    controls->addWidget(m_sliceBy, 1);
    controls->addWidget(m_stratum, 1);
    controls->addStretch(1);

    // Top: the ranked table, its bars and its pie; bottom: the trend and the scatter.
    auto* top = m_top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(m_table);
    top->addWidget(m_bars);
    top->addWidget(m_pie);
    top->addWidget(m_strataPlot);
    top->setStretchFactor(0, 4);
    top->setStretchFactor(1, 3);
    top->setStretchFactor(2, 3);
    top->setStretchFactor(3, 3);
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_trendPlot);
    bottom->addWidget(m_scatter);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(bottom);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    // Initial sizes in proportion (stretch factors only share later resizes): the trend wants the room.
    top->setSizes({400, 300, 300, 300});
    bottom->setSizes({600, 400});
    split->setSizes({400, 600});
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_period, &QComboBox::activated, this, &BottlenecksView::compute);
    connect(m_sliceBy, &QComboBox::activated, this, [this] {
        m_stratum->clear();  // the old attribute's values mean nothing for the new one
        compute();
    });
    connect(m_stratum, &QComboBox::activated, this, &BottlenecksView::compute);
    connect(m_latency, &QComboBox::activated, this, &BottlenecksView::compute);  // a choice, or Enter in the edit
    connect(m_compareWith, &QComboBox::activated, this, &BottlenecksView::compute);
    clear(tr("Open an analysed database to see its bottlenecks."));
}

void BottlenecksView::clear(const QString& message) {
    m_awaiting = false;  // a result still on its way is not shown
    m_trend.reset();
    m_comparison.reset();
    m_strataShares.clear();
    m_strataPlot->setVisible(false);
    setPieShown(true);
    m_table->setRowCount(0);
    for (QCustomPlot* plot : {m_bars, m_trendPlot, m_scatter}) {
        plot->clearPlottables();
        plot->clearItems();
        plot->replot();
    }
    m_pie->setSlices({}, {});
    m_status->setText(message);
}

void BottlenecksView::setDatabase(std::shared_ptr<const InMemoryAnalysis> analysis, const QStringList& periods, const QStringList& attributeKeys) {
    m_awaiting = false;  // what was asked of the old data is not shown (the session may have cancelled it)
    m_analysis = std::move(analysis);
    const QSignalBlocker blockPeriod(m_period), blockSlice(m_sliceBy), blockStratum(m_stratum);
    m_period->clear();
    m_period->addItem(QString(), QString());  // the scope: named by setScope
    for (const auto& p : periods) m_period->addItem(tr("Period %1").arg(p), p);
    nameScopeItem(m_period, m_scope);
    const QSignalBlocker blockCompare(m_compareWith);
    m_compareWith->clear();
    m_compareWith->addItem(tr("(no comparison)"), QString());
    for (const auto& p : periods) m_compareWith->addItem(tr("Period %1").arg(p), p);
    m_sliceBy->clear();
    m_sliceBy->addItem(tr("(no slicing)"), QString());
    for (const auto& key : attributeKeys) m_sliceBy->addItem(key, key);
    m_stratum->clear();
    m_pending = true;
    if (isVisible()) compute();
}

void BottlenecksView::setScope(const RequestScope& scope) {
    m_scope = scope;
    nameScopeItem(m_period, m_scope);
    m_pending = true;
    if (isVisible() && m_period->currentIndex() == 0) compute();
}

void BottlenecksView::refresh() {
    m_pending = true;
    if (isVisible()) compute();
}

void BottlenecksView::setPeriod(const QString& period) {
    const int index = m_period->findData(period);
    if (index >= 0) m_period->setCurrentIndex(index);
    compute();
}

void BottlenecksView::setSliceBy(const QString& attribute, const QString& value) {
    const int index = m_sliceBy->findData(attribute);
    if (index >= 0) m_sliceBy->setCurrentIndex(index);
    m_stratum->clear();
    if (!value.isEmpty()) m_stratum->addItem(value, value);  // kept until the strata are known
    compute();
}

void BottlenecksView::setLatencyPercentile(const QString& range) {
    const int index = m_latency->findData(range);
    if (index >= 0) m_latency->setCurrentIndex(index);
    else m_latency->setEditText(range);
    compute();
}

void BottlenecksView::setCompareWith(const QString& period) {
    const int index = m_compareWith->findData(period);
    m_compareWith->setCurrentIndex(std::max(0, index));
    compute();
}

void BottlenecksView::setPieShown(bool shown) {
    if (m_pie->isHidden() != shown) return;  // as it should be
    QList<int> sizes = m_top->sizes();  // a hidden widget's size reads 0
    if (shown) {
        const int room = sizes[0] * 2 / 5;  // the table gives back what it took
        sizes[0] -= room;
        sizes[2] = room;
    } else {
        sizes[0] += sizes[2];
        sizes[2] = 0;
    }
    m_pie->setVisible(shown);
    m_top->setSizes(sizes);
}

void BottlenecksView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_pending) compute();
}

bool BottlenecksView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_bars && event->type() == QEvent::Resize && m_trend) {
        const int fit = shareBarsThatFit(m_bars);
        if (fit != m_barsShown) {
            m_barsShown = fit;
            drawShareBars(m_bars, m_trend->all, bottleneckTypeColours(m_trend->all), fit);
        }
    }
    return QWidget::eventFilter(watched, event);
}

bool BottlenecksView::isComputing() const { return m_awaiting; }
QString BottlenecksView::statusText() const { return m_status->text(); }

void BottlenecksView::compute() {
    m_pending = false;
    if (!m_analysis) {
        clear(tr("The bottlenecks need an analysed database: open one, or analyse this one (Analysis > Re-analyse)."));
        emit resultsReady();
        return;
    }
    BottleneckRequest request;
    request.analysis = m_analysis;
    request.period = m_period->currentData().toString().toStdString();
    request.scope = m_period->currentIndex() == 0 ? m_scope.ids : nullptr;
    request.periodName = m_period->currentText();
    request.sliceBy = m_sliceBy->currentData().toString().toStdString();
    request.stratum = m_stratum->currentData().toString().toStdString();
    // A listed choice by its range; typed text as it is (the job says what is wrong with it).
    request.baseline = m_compareWith->currentData().toString().toStdString();
    const int listed = m_latency->findText(m_latency->currentText());
    request.latencyPercentile = (listed >= 0 ? m_latency->itemData(listed).toString() : m_latency->currentText().trimmed()).toStdString();
    m_awaiting = true;
    emit computeRequested(request);
}

void BottlenecksView::showProgress(double fraction, const QString& stage) {
    if (m_awaiting) m_status->setText(tr("%1… %2 %").arg(stage).arg(static_cast<int>(fraction * 100)));
}

void BottlenecksView::showOutcome(std::shared_ptr<const BottleneckOutcome> result) {
    if (!m_awaiting || !result) return;  // cleared since it was asked for
    m_awaiting = false;
    const QString value = m_stratum->currentData().toString();
    if (!m_sliceBy->currentData().toString().isEmpty()) {
        const QSignalBlocker block(m_stratum);
        m_stratum->clear();
        m_stratum->addItem(tr("all of them"), QString());
        for (int i = 0; i < result->strata.size(); ++i) m_stratum->addItem(result->strataLabels[i], result->strata[i]);
        m_stratum->setCurrentIndex(std::max(0, m_stratum->findData(value)));
    }
    if (!result->status) clear(QString::fromStdString(result->status.message()));
    else if (!result->emptyReason.isEmpty()) clear(result->emptyReason);
    else {
        m_strataShares = result->strataShares;
        m_sliceText = result->sliceText;
        m_comparison = result->comparison;
        showResults(result->trend);
    }
    emit resultsReady();
}

void BottlenecksView::showResults(std::shared_ptr<const BottleneckTrend> trend) {
    m_trend = std::move(trend);
    const BottleneckTrend& t = *m_trend;
    const TypeColours colours = bottleneckTypeColours(t.all);
    fillTable(t.all, colours);
    for (QCustomPlot* plot : {m_bars, m_trendPlot, m_scatter}) plot->clearItems();
    m_barsShown = shareBarsThatFit(m_bars);
    drawShareBars(m_bars, t.all, colours, m_barsShown);
    // A slice shown whole: its strata side by side where the pie was.
    if (m_strataPlot->isHidden() != m_strataShares.empty()) {
        const QList<int> sizes = m_top->sizes();  // the one shown takes the other's room
        m_strataPlot->setVisible(!m_strataShares.empty());
        m_pie->setVisible(m_strataShares.empty());
        m_top->setSizes({sizes[0], sizes[1], std::max(sizes[2], sizes[3]), std::max(sizes[2], sizes[3])});
    }
    // Comparing: the table's four more columns take the pie's room (the bars still show the shares).
    if (m_strataShares.empty()) setPieShown(!m_comparison);
    if (!m_strataShares.empty()) drawStrataShares(m_strataPlot, m_strataShares, t.all, colours);
    drawContributionTrend(m_trendPlot, t, colours);
    drawLatencyScatter(m_scatter, t);
    std::vector<BottleneckPie::Slice> slices;
    for (const auto& type : t.all.types) slices.push_back({QString::fromStdString(type.name), type.share, colours.at(type.name)});
    m_pie->setSlices(std::move(slices), tr("Shares of the latency"));
    const QString top = t.all.types.empty() ? QString() : QString::fromStdString(t.all.types.front().name);
    QString requests = requestCount(t.all.requests);
    if (!m_sliceText.isEmpty()) requests = m_sliceText;
    m_status->setText(tr("%1 · mean latency %2 · top bottleneck: <b>%3</b> (%4 %) · trend: one bar per %5 · click a "
                         "point of the scatter to open that request's waterfall · right-click a chart to save it")
                          .arg(requests)
                          .arg(formatDurationNs(static_cast<TimeNs>(t.all.meanLatencyNs)), top.toHtmlEscaped())
                          .arg(t.all.types.empty() ? 0.0 : 100.0 * t.all.types.front().share, 0, 'f', 1)
                          .arg(QString::fromStdString(t.bucketing.unit)));
    if (m_comparison) {
        const BottleneckChanges& c = m_comparison->changes;
        double chance = 0;
        for (const auto& a : m_comparison->aa.types) chance = std::max(chance, std::fabs(a.deltaNs()));
        m_status->setText(m_status->text() +
                          tr("<br>Against %1 (%2, mean %3): <b>%4 of %5 types changed significantly</b> (Welch, Benjamini-Hochberg at "
                             "5 %); the A/A of %1's random halves flags %6, its largest chance change %7 per request")
                              .arg(tr("period %1").arg(m_compareWith->currentData().toString()).toHtmlEscaped(), requestCount(c.baseRequests),
                                   formatDurationNs(static_cast<TimeNs>(c.baseMeanLatencyNs)))
                              .arg(c.significantTypes)
                              .arg(c.types.size())
                              .arg(m_comparison->aa.significantTypes)
                              .arg(formatDurationNs(static_cast<TimeNs>(chance))));
    }
}

void BottlenecksView::fillTable(const BottleneckSummary& summary, const TypeColours& colours) {
    m_table->setSortingEnabled(false);  // rows filled in ranking order, then sortable again
    m_table->setRowCount(static_cast<int>(summary.types.size()));
    for (int r = 0; r < m_table->rowCount(); ++r) {
        const TypeContribution& t = summary.types[static_cast<std::size_t>(r)];
        auto* name = new QTableWidgetItem(QString::fromStdString(t.name));
        name->setData(Qt::DecorationRole, colours.at(t.name));
        m_table->setItem(r, TypeColumn, name);
        m_table->setItem(r, ShareColumn, new NumberItem(QStringLiteral("%1 %").arg(100.0 * t.share, 0, 'f', 1), t.share));
        m_table->setItem(r, MeanColumn, new NumberItem(formatDurationNs(static_cast<TimeNs>(t.meanNs)), t.meanNs));
        if (m_comparison) {
            const TypeChange* change = nullptr;
            for (const auto& c : m_comparison->changes.types)
                if (c.name == t.name) change = &c;
            const TypeChange* chance = nullptr;
            for (const auto& c : m_comparison->aa.types)
                if (c.name == t.name) chance = &c;
            if (change) {
                m_table->setItem(r, BeforeColumn, new NumberItem(formatDurationNs(static_cast<TimeNs>(change->baseMeanNs)), change->baseMeanNs));
                const double d = change->deltaNs();
                auto* delta = new NumberItem((d >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + formatDurationNs(static_cast<TimeNs>(std::fabs(d))), d);
                if (change->significant) {
                    QFont bold = delta->font();
                    bold.setBold(true);
                    delta->setFont(bold);
                    delta->setForeground(d > 0 ? QColor(0xc9, 0x2a, 0x2a) : QColor(0x19, 0x71, 0xc2));
                }
                delta->setToolTip(change->significant ? tr("Significant at 5 % (Welch, Benjamini-Hochberg)") : tr("Not significant: within chance"));
                m_table->setItem(r, ChangeColumn, delta);
                m_table->setItem(r, PValueColumn, new NumberItem(QString::number(change->pValue, 'g', 2), change->pValue));
            }
            const double a = chance ? std::fabs(chance->deltaNs()) : 0;
            auto* aa = new NumberItem(QStringLiteral("±") + formatDurationNs(static_cast<TimeNs>(a)), a);
            aa->setToolTip(tr("How far this type's contribution differs between two random halves of the period compared with"));
            m_table->setItem(r, ChanceColumn, aa);
        }
        auto* fix = new QTableWidgetItem(QString::fromStdString(t.howToFix));
        fix->setToolTip(fix->text());
        m_table->setItem(r, HowToFixColumn, fix);
    }
    for (int c : {BeforeColumn, ChangeColumn, ChanceColumn, PValueColumn}) m_table->setColumnHidden(c, !m_comparison);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ShareColumn, Qt::DescendingOrder);
}

} // namespace tracelight::widgets
