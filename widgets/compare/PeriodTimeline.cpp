#include "compare/PeriodTimeline.h"

#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

#include "common/PlotExport.h"

namespace tracelight::widgets {

PeriodTimeline::PeriodTimeline(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->yAxis->setLabel(tr("response time (ms, log scale)"));
    m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setNumberFormat(QStringLiteral("gb"));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    attachPlotExport(m_plot, [this] { return csv(); });
}

void PeriodTimeline::setLocalClocks(bool local) {
    if (m_local == local) return;
    m_local = local;
    setComparison(m_comparison);  // the starts of both clocks are kept with the categories
}

void PeriodTimeline::setComparison(std::shared_ptr<const PeriodComparison> comparison) {
    m_comparison = std::move(comparison);
    m_plot->clearGraphs();
    m_plot->xAxis->setLabel(m_local ? tr("arrival on each host's own clock (s since the period's earliest request)")
                                    : tr("arrival (s since the period's first request)"));
    if (!m_comparison || !m_comparison->categories) {
        m_plot->replot();
        return;
    }
    const RequestCategories& c = *m_comparison->categories;
    const std::vector<TimeNs>& starts = m_local ? c.localStartNs : c.startNs;
    setPlotExportName(m_plot, tr("timeline %1 vs %2").arg(QString::fromStdString(m_comparison->baseline), QString::fromStdString(m_comparison->problem)));
    const QColor colours[] = {QColor(0x49, 0x50, 0x57), QColor(0xd9, 0x48, 0x0f)};
    double lowest = 1e300, highest = 0, longest = 0;
    int k = 0;
    for (const auto* entries : {&m_comparison->baselineEntries, &m_comparison->problemEntries}) {
        TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
        for (auto e : *entries) {
            first = std::min(first, starts[e]);
            last = std::max(last, starts[e]);
        }
        QVector<double> x, y;
        for (auto e : *entries) {
            x << double(starts[e] - first) / 1e9;
            const double ms = std::max(1e-3, double(c.latencyNs[e]) / 1e6);
            y << ms;
            lowest = std::min(lowest, ms);
            highest = std::max(highest, ms);
        }
        const double span = entries->empty() ? 0 : double(last - first) / 1e9;
        longest = std::max(longest, span);
        auto* g = m_plot->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colours[k], 4));
        g->setPen(QPen(colours[k]));
        g->setData(x, y);
        g->setName(tr("%1 — %L2 requests over %3 s (%4/s)")
                       .arg(QString::fromStdString(k == 0 ? m_comparison->baseline : m_comparison->problem))
                       .arg(entries->size())
                       .arg(span, 0, 'f', 1)
                       .arg(span > 0 ? double(entries->size()) / span : 0.0, 0, 'f', 1));
        ++k;
    }
    m_plot->xAxis->setRange(0, std::max(1e-3, longest * 1.02));
    if (highest > 0) m_plot->yAxis->setRange(lowest / 1.5, highest * 1.5);
    m_plot->replot();
}

QString PeriodTimeline::csv() const {
    QString out = QStringLiteral("period,arrival_s,response_ms\n");
    if (!m_comparison || !m_comparison->categories) return out;
    for (int g = 0; g < m_plot->graphCount(); ++g) {
        const QString period = QString::fromStdString(g == 0 ? m_comparison->baseline : m_comparison->problem);
        for (auto it = m_plot->graph(g)->data()->constBegin(); it != m_plot->graph(g)->data()->constEnd(); ++it)
            out += QStringLiteral("%1,%2,%3\n").arg(period).arg(it->key, 0, 'f', 6).arg(it->value, 0, 'f', 3);
    }
    return out;
}

} // namespace tracelight::widgets
