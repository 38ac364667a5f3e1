#include "compare/AaOverTimeView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <vector>
#include <qcustomplot.h>

#include "common/Palette.h"
#include "common/PlotExport.h"

namespace tracelight::widgets {

namespace {
constexpr std::size_t kShownTypes = 6;  // the mix's most common types; the rest summed as "other"

const AaPercentile* rowOf(const std::vector<AaPercentile>& rows, int p) {
    for (const auto& r : rows)
        if (r.p == p) return &r;
    return nullptr;
}
} // namespace

AaOverTimeView::AaOverTimeView(QWidget* parent)
    : QWidget(parent), m_percentile(new QComboBox(this)), m_buckets(new QSpinBox(this)), m_splitBy(new QComboBox(this)),
      m_note(new QLabel(this)), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* controls = new QHBoxLayout;
    for (int p : {50, 90, 95, 99}) m_percentile->addItem(tr("p%1").arg(p), p);
    m_percentile->setCurrentIndex(2);  // p95, the paper's A/A chart
    m_percentile->setObjectName(QStringLiteral("overTimePercentile"));
    m_percentile->setToolTip(tr("The latency percentile whose difference is drawn"));
    m_buckets->setRange(2, 100);
    m_buckets->setValue(12);
    m_buckets->setSuffix(tr(" buckets"));
    m_buckets->setObjectName(QStringLiteral("overTimeBuckets"));
    m_buckets->setToolTip(tr("Equal spans of time from the first request of either period to the last"));
    m_note->setWordWrap(true);
    m_note->setObjectName(QStringLiteral("overTimeNote"));
    m_splitBy->setObjectName(QStringLiteral("overTimeSplitBy"));
    m_splitBy->addItem(tr("A/A by request"), QString());
    m_splitBy->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_splitBy->setMinimumContentsLength(12);
    m_splitBy->setToolTip(tr("The baseline's A/A: random halves of its requests, or of its users (every request of one value "
                             "of the attribute in the same half, as the cloud-application study split users)"));
    controls->addWidget(m_percentile);
    controls->addWidget(m_buckets);
    controls->addWidget(m_splitBy);
    controls->addWidget(m_note, 1);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
    layout->addStretch(0);  // keeps the controls at the top while the plot is hidden

    // Two axis rects sharing the time axis: the differences above, the load and mix below; one legend under both.
    m_plot->plotLayout()->clear();
    auto* top = new QCPAxisRect(m_plot);
    auto* bottom = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(0, 0, top);
    m_plot->plotLayout()->addElement(1, 0, bottom);
    auto* legend = new QCPLegend;
    m_plot->plotLayout()->addElement(2, 0, legend);
    legend->setLayer(QStringLiteral("legend"));
    legend->setBorderPen(Qt::NoPen);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setWrap(2);
    m_plot->legend = legend;
    m_plot->plotLayout()->setRowStretchFactor(0, 3);
    m_plot->plotLayout()->setRowStretchFactor(1, 2);
    m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
    auto* margins = new QCPMarginGroup(m_plot);
    top->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    bottom->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    connect(top->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged), bottom->axis(QCPAxis::atBottom),
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(bottom->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged), top->axis(QCPAxis::atBottom),
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    bottom->axis(QCPAxis::atBottom)->setLabel(tr("time (s since the first request of either period)"));
    // The differences on a log scale of B / A, labelled in percent: +100 % and −50 % are as far from 0, as the
    // interval (built on log(b / a)) treats them.
    top->axis(QCPAxis::atLeft)->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    top->axis(QCPAxis::atLeft)->grid()->setZeroLinePen(QPen(QColor(0x49, 0x50, 0x57), 1));
    bottom->axis(QCPAxis::atLeft)->setLabel(tr("load (requests/s)"));
    attachPlotExport(m_plot, [this] { return csv(); });

    connect(m_percentile, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { draw(); });
    connect(m_buckets, qOverload<int>(&QSpinBox::valueChanged), this, [this](int n) { emit bucketsChanged(n); });
    connect(m_splitBy, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { emit splitChanged(); });
    draw();
}

int AaOverTimeView::buckets() const { return m_buckets->value(); }
int AaOverTimeView::percentile() const { return m_percentile->currentData().toInt(); }

void AaOverTimeView::setAttributeKeys(const QStringList& keys) {
    const QString kept = splitBy();
    const QSignalBlocker block(m_splitBy);
    while (m_splitBy->count() > 1) m_splitBy->removeItem(1);
    for (const QString& key : keys) m_splitBy->addItem(tr("A/A by %1").arg(key), key);
    const int again = m_splitBy->findData(kept);
    m_splitBy->setCurrentIndex(again >= 0 ? again : 0);
}

QString AaOverTimeView::splitBy() const { return m_splitBy->currentData().toString(); }

void AaOverTimeView::setResult(std::shared_ptr<const PeriodsOverTime> result, const QString& baseline, const QString& problem) {
    m_result = std::move(result);
    m_baseline = baseline;
    m_problem = problem;
    draw();
}

void AaOverTimeView::draw() {
    m_plot->clearPlottables();
    QCPAxisRect* top = m_plot->axisRect(0);
    QCPAxisRect* bottom = m_plot->axisRect(1);
    const int p = percentile();
    top->axis(QCPAxis::atLeft)->setLabel(tr("p%1 B vs A (%)").arg(p));
    if (!m_result || m_result->versus.buckets.empty()) {
        // Empty axes squeezed into the page looked broken: the page says why there is nothing instead.
        m_note->setText(m_result ? tr("No requests to cut into buckets.")
                                 : tr("Both periods over time appear here once two periods are compared."));
        m_plot->setVisible(false);
        return;
    }
    m_plot->setVisible(true);
    const auto& aa = m_result->aa.buckets;
    const auto& versus = m_result->versus.buckets;
    const TimeNs t0 = versus.front().startNs;
    const double width = double(versus.front().endNs - versus.front().startNs) / 1e9;
    auto mid = [&](const TimeBucket& b) { return (double(b.startNs - t0) + double(b.endNs - b.startNs) / 2) / 1e9; };
    setPlotExportName(m_plot, tr("over time %1 vs %2").arg(m_baseline, m_problem));

    // Above: the difference with its interval, the A/A's just left of the bucket's middle, the test's right.
    int compared = 0;
    const struct {
        const std::vector<TimeBucket>* buckets;
        QString name;
        QColor colour;
        double shift;
    } series[] = {{&aa, tr("A/A: halves of %1").arg(m_baseline), palette::network(), -0.12},
                  {&versus, tr("%1 (B) vs %2 (A)").arg(m_problem, m_baseline), palette::critical(), 0.12}};
    double lowest = 0, highest = 0;
    for (const auto& s : series) {
        QVector<double> x, y, down, up;
        for (const auto& b : *s.buckets) {
            const AaPercentile* r = rowOf(b.percentiles, p);
            if (!r || r->relativeDiff <= -1 || r->ciLow <= -1) continue;
            const double at = std::log2(1 + r->relativeDiff), low = std::log2(1 + r->ciLow), high = std::log2(1 + r->ciHigh);
            x << mid(b) + s.shift * width;
            y << at;
            down << at - low;
            up << high - at;
            lowest = std::min(lowest, low);
            highest = std::max(highest, high);
        }
        if (s.buckets == &versus) compared = x.size();
        auto* g = new QCPGraph(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
        g->setName(s.name);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, s.colour, s.colour, 7));
        g->setPen(QPen(s.colour));
        g->setData(x, y, true);
        auto* bars = new QCPErrorBars(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
        bars->removeFromLegend();
        bars->setDataPlottable(g);
        bars->setData(down, up);
        bars->setPen(QPen(s.colour, 1.5));
    }
    top->axis(QCPAxis::atLeft)->setRange(std::min(-0.5, lowest - 0.2), std::max(0.5, highest + 0.2));
    // Ticks at ratios of B / A: halvings and doublings on a wide range, finer steps near 0 on a narrow one.
    auto ticker = top->axis(QCPAxis::atLeft)->ticker().dynamicCast<QCPAxisTickerText>();
    ticker->clear();
    static const std::vector<double> coarse{1.0 / 64, 1.0 / 16, 1.0 / 8, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0},
        fine{0.25, 0.5, 2.0 / 3, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 4.0};
    for (double r : highest - lowest > 2.5 ? coarse : fine)
        ticker->addTick(std::log2(r), QStringLiteral("%1%2 %").arg(r > 1 ? "+" : r < 1 ? "−" : "").arg(std::abs(r - 1) * 100, 0, 'g', 4));

    // Below: the load, stacked by request type (the most common first, at the bottom).
    const auto& types = m_result->versus.types;
    const std::size_t shown = std::min(types.size(), kShownTypes);
    QCPBars* below = nullptr;
    double peak = 0;
    for (std::size_t k = 0; k <= shown; ++k) {
        if (k == shown && types.size() <= shown) break;  // nothing left for "other"
        QVector<double> x, y;
        for (const auto& b : versus) {
            const double seconds = double(b.endNs - b.startNs) / 1e9;
            std::int64_t n = 0;
            if (k < shown) n = b.mix[k];
            else
                for (std::size_t j = shown; j < b.mix.size(); ++j) n += b.mix[j];
            x << mid(b);
            y << (seconds > 0 ? double(n) / seconds : 0);
        }
        auto* bars = new QCPBars(bottom->axis(QCPAxis::atBottom), bottom->axis(QCPAxis::atLeft));
        QString type = k < shown ? QString::fromStdString(types[k]) : QString();
        if (type.size() > 44) type = type.left(21) + QStringLiteral("…") + type.right(22);  // the legend's two columns
        bars->setName(k < shown ? tr("load: %1").arg(type) : tr("load: other types"));
        const QColor colour = k < shown ? palette::ranked(k) : palette::other();
        bars->setBrush(colour);
        bars->setPen(QPen(colour.darker(130)));
        bars->setWidth(width * 0.85);
        bars->setData(x, y, true);
        if (below) bars->moveAbove(below);
        below = bars;
    }
    for (const auto& b : versus) peak = std::max(peak, b.qps);
    bottom->axis(QCPAxis::atLeft)->setRange(0, std::max(1.0, peak * 1.1));
    const double span = double(versus.back().endNs - t0) / 1e9;
    top->axis(QCPAxis::atBottom)->setRange(0, std::max(1e-3, span));

    QString note = tr("%1 buckets of %2 s; bars: 95 % interval of B vs A (log scale); one holding 0 is within chance.")
                       .arg(versus.size())
                       .arg(width, 0, 'g', 3);
    if (m_result->aligned)
        note += tr(" The periods are at different times: each is placed from its own first request.");
    else if (compared == 0)
        note += tr(" No bucket holds enough of both periods to compare them at the same points in time.");
    bottom->axis(QCPAxis::atBottom)->setLabel(m_result->aligned ? tr("time (s since each period's first request)")
                                                                : tr("time (s since the first request of either period)"));
    m_note->setText(note);
    m_plot->replot();
}

QString AaOverTimeView::csv() const {
    QString out = QStringLiteral("start_s,end_s,requests,qps,percentile,aa_diff,aa_ci_low,aa_ci_high,versus_diff,versus_ci_low,versus_ci_high\n");
    if (!m_result || m_result->versus.buckets.empty()) return out;
    const auto& versus = m_result->versus.buckets;
    const TimeNs t0 = versus.front().startNs;
    const int p = percentile();
    for (std::size_t k = 0; k < versus.size(); ++k) {
        const TimeBucket& b = versus[k];
        out += QStringLiteral("%1,%2,%3,%4,%5").arg(double(b.startNs - t0) / 1e9, 0, 'f', 6).arg(double(b.endNs - t0) / 1e9, 0, 'f', 6)
                   .arg(b.requests).arg(b.qps, 0, 'f', 3).arg(p);
        for (const auto* rows : {k < m_result->aa.buckets.size() ? &m_result->aa.buckets[k].percentiles : nullptr, &b.percentiles}) {
            const AaPercentile* r = rows ? rowOf(*rows, p) : nullptr;
            out += r ? QStringLiteral(",%1,%2,%3").arg(r->relativeDiff).arg(r->ciLow).arg(r->ciHigh) : QStringLiteral(",,,");
        }
        out += '\n';
    }
    return out;
}

} // namespace tracelight::widgets
