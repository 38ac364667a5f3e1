#include "plots/BreakdownPlot.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include "common/Palette.h"
#include "common/PlotExport.h"

namespace tracelight::widgets {

namespace {
QColor categoryColour(const std::string& name) { return palette::forCategory(QString::fromStdString(name)); }
} // namespace

BreakdownPlot::BreakdownPlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->legend->setVisible(true);
    // The legend beside the bars, not over them (it covered the critical-path bar).
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    auto* side = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(0, 1, side);
    m_plot->plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, m_plot->legend);
    side->addElement(1, 0, new QCPLayoutElement(m_plot));  // the rest of the height: the legend stays compact
    side->setRowStretchFactor(0, 0.001);
    m_plot->legend->setMaximumSize(320, QWIDGETSIZE_MAX);
    attachPlotExport(m_plot, [this] { return csv(); });
}

void BreakdownPlot::setBreakdowns(std::vector<std::pair<QString, Breakdown>> groups) {
    m_groups = std::move(groups);
    rebuild();
}

void BreakdownPlot::setPercent(bool percent) {
    m_percent = percent;
    rebuild();
}

QString BreakdownPlot::csv() const {
    QString out = QStringLiteral("group,requests,category,summed_us,critical_us,critical_share\n");
    for (const auto& [label, b] : m_groups)
        for (const auto& c : b.categories)
            out += QStringLiteral("%1,%2,%3,%4,%5,%6\n").arg(label).arg(b.requests).arg(QString::fromStdString(c.name))
                       .arg(c.summedNs / 1000.0, 0, 'f', 3).arg(c.criticalNs / 1000.0, 0, 'f', 3).arg(c.criticalShare, 0, 'f', 4);
    return out;
}

void BreakdownPlot::rebuild() {
    if (m_note) {
        m_plot->legend->QCPLayoutGrid::remove(m_note);  // deletes it
        m_plot->legend->simplify();
        m_note = nullptr;
    }
    m_plot->clearPlottables();
    m_plot->clearItems();
    if (m_groups.empty()) {
        m_plot->replot();
        return;
    }
    // Two bars per group: summed delay (left) and critical path (right), stacked by category.
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    std::int64_t total = 0;
    for (const auto& g : m_groups) total += g.second.requests;
    const auto& categories = m_groups.front().second.categories;
    std::vector<QCPBars*> below(2, nullptr);
    std::vector<std::vector<QCPBars*>> bars(2);
    for (std::size_t c = 0; c < categories.size(); ++c) {
        for (int kind = 0; kind < 2; ++kind) {
            if (kind == 0 && categories[c].name == "blind") continue;  // blind time exists only on the critical path
            auto* bar = new QCPBars(m_plot->xAxis, m_plot->yAxis);
            bar->setWidth(0.38);
            const QColor colour = categoryColour(categories[c].name);
            bar->setBrush(kind == 0 ? QBrush(colour.lighter(135)) : QBrush(colour));
            bar->setPen(QPen(colour.darker(150)));
            bar->setName(QString::fromStdString(categories[c].name));
            if (kind == 0) bar->removeFromLegend();
            if (below[kind]) bar->moveAbove(below[kind]);
            below[kind] = bar;
            QVector<double> keys, values;
            for (std::size_t g = 0; g < m_groups.size(); ++g) {
                const Breakdown& b = m_groups[g].second;
                double summedTotal = 0;
                for (const auto& cat : b.categories) summedTotal += cat.summedNs;
                const auto& cat = b.categories[c];
                const double value = kind == 0 ? cat.summedNs : cat.criticalNs;
                const double denominator = kind == 0 ? summedTotal : b.meanLatencyNs;
                keys << double(g) * 1.0 + (kind == 0 ? -0.2 : 0.2);
                values << (m_percent ? (denominator > 0 ? 100.0 * value / denominator : 0) : value / 1e6);  // ns -> ms, as the axis says
            }
            bar->setData(keys, values, true);
        }
    }
    // The legend says what the paler bars are (a line above the categories).
    auto* note = new QCPTextElement(m_plot, tr("paler bar (left): summed delay\nfull bar (right): on the critical path"));
    note->setTextFlags(Qt::AlignLeft);
    note->setFont(m_plot->legend->font());
    note->setLayer(m_plot->legend->layer());  // drawn over the legend's background, not under it
    m_plot->legend->insertRow(0);
    m_plot->legend->addElement(0, 0, note);
    m_note = note;
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        const Breakdown& b = m_groups[g].second;
        QString label = m_groups[g].first;
        if (m_groups.size() > 1) label += QStringLiteral("\n%1 % of requests").arg(total ? 100.0 * double(b.requests) / double(total) : 0, 0, 'f', 1);
        label += QStringLiteral("\nsummed | critical");
        ticker->addTick(double(g), label);
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(-0.7, double(m_groups.size()) - 0.3);
    m_plot->xAxis->setTickLength(0, 0);
    m_plot->yAxis->setLabel(m_percent ? tr("share of the bar (%)") : tr("mean time per request (ms)"));
    m_plot->xAxis->setLabel(tr("left bar: summed delay of each category · right bar: its time on the critical path"));
    m_plot->yAxis->rescale();
    m_plot->yAxis->setRangeLower(0);
    m_plot->yAxis->setRangeUpper(m_plot->yAxis->range().upper * 1.08);
    m_plot->replot();
}

} // namespace tracelight::widgets
