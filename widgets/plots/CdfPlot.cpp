#include "plots/CdfPlot.h"

#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "common/PlotExport.h"

namespace tracelight::widgets {

CdfPlot::CdfPlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    m_plot->yAxis->setLabel(tr("share of requests at or below (%)"));
    m_plot->yAxis->setRange(0, 100);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (!m_cutOff) return;
        const double x = m_plot->xAxis->coordToPixel(m_cutOffMs);
        m_dragging = std::fabs(e->pos().x() - x) < 8;
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        if (m_dragging) placeCutOff(m_plot->xAxis->pixelToCoord(e->pos().x()));
    });
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent*) { m_dragging = false; });
    attachPlotExport(m_plot, [this] { return csv(); });
}

void CdfPlot::setSeries(const QString& xLabel, const std::vector<std::pair<QString, std::vector<float>>>& series, bool logX,
                        double scale, const QString& unit) {
    m_series = series;
    m_scale = scale;
    m_unit = unit;
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_cutOff = nullptr;
    m_cutOffLabel = nullptr;
    static const QColor colours[] = {QColor(0x49, 0x50, 0x57), QColor(0xd9, 0x48, 0x0f), QColor(0x19, 0x71, 0xc2), QColor(0x2f, 0x9e, 0x44)};
    double lo = 1e300, hi = -1e300;
    for (std::size_t k = 0; k < m_series.size(); ++k) {
        auto& values = m_series[k].second;
        std::sort(values.begin(), values.end());
        // At most ~2,000 steps drawn: a CDF needs no more to look exact.
        QVector<double> x, y;
        const std::size_t n = values.size();
        const std::size_t stride = std::max<std::size_t>(1, n / 2000);
        for (std::size_t i = 0; i < n; i += stride) {
            x << values[i] * m_scale;
            y << 100.0 * double(i + 1) / double(n);
        }
        if (n) {
            x << values.back() * m_scale;
            y << 100.0;
            lo = std::min(lo, double(values.front()) * m_scale);
            hi = std::max(hi, double(values.back()) * m_scale);
        }
        auto* g = m_plot->addGraph();
        g->setData(x, y, true);
        g->setPen(QPen(colours[k % 4], 2));
        // p50 / p95 / p99 in the legend.
        auto pct = [&](double q) { return n ? values[std::min(n - 1, static_cast<std::size_t>(q * double(n - 1) + 0.5))] * m_scale : 0.0; };
        g->setName(QStringLiteral("%1 — p50 %2 · p95 %3 · p99 %4 %5").arg(m_series[k].first).arg(pct(0.5), 0, 'f', 1)
                       .arg(pct(0.95), 0, 'f', 1).arg(pct(0.99), 0, 'f', 1).arg(m_unit));
    }
    m_plot->xAxis->setLabel(xLabel);
    if (logX) {
        m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        m_plot->xAxis->setRange(std::max(1e-3, lo > 0 ? lo : 1e-3), std::max(hi, 1.0) * 1.1);
    } else {
        m_plot->xAxis->setScaleType(QCPAxis::stLinear);
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        m_plot->xAxis->setRange(std::min(0.0, lo), hi > lo ? hi * 1.02 : lo + 1);
    }
    m_plot->replot();
}

double CdfPlot::shareAbove(double ms) const {
    if (m_series.empty() || m_series.front().second.empty()) return 0;
    const auto& v = m_series.front().second;
    const auto above = v.end() - std::upper_bound(v.begin(), v.end(), static_cast<float>(ms / m_scale));
    return double(above) / double(v.size());
}

void CdfPlot::setCutOff(double ms) { placeCutOff(ms); }

void CdfPlot::placeCutOff(double ms) {
    m_cutOffMs = ms;
    if (!m_cutOff) {
        m_cutOff = new QCPItemStraightLine(m_plot);
        m_cutOff->setPen(QPen(QColor(0x19, 0x71, 0xc2), 2, Qt::DashLine));
        m_cutOffLabel = new QCPItemText(m_plot);
        m_cutOffLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        m_cutOffLabel->position->setType(QCPItemPosition::ptPlotCoords);
        m_cutOffLabel->setPadding(QMargins(4, 2, 4, 2));
        m_cutOffLabel->setBrush(QColor(255, 255, 255, 220));
    }
    m_cutOff->point1->setCoords(ms, 0);
    m_cutOff->point2->setCoords(ms, 100);
    const double share = shareAbove(ms);
    m_cutOffLabel->position->setCoords(ms, 95);
    m_cutOffLabel->setText(tr("cut-off %1 %2: %3 % of requests above (drag the line)").arg(ms, 0, 'f', 1).arg(m_unit).arg(100 * share, 0, 'f', 1));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    emit cutOffMoved(ms, share);
}

QString CdfPlot::csv() const {
    QString out = QStringLiteral("series,value_us\n");
    for (const auto& [name, values] : m_series)
        for (float v : values) out += QStringLiteral("%1,%2\n").arg(name).arg(v);
    return out;
}

} // namespace tracelight::widgets
