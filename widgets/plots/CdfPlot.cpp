#include "plots/CdfPlot.h"

#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "common/PlotExport.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

CdfPlot::CdfPlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->legend->setVisible(true);
    // The legend under the plot: in its corner it covered the curves of long tails.
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->yAxis->setLabel(tr("requests at or below (%)"));
    m_plot->yAxis->setRange(0, 100);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (!m_cutOff) return;
        const double x = m_plot->xAxis->coordToPixel(std::max(m_cutOffMs, m_logLeft));
        m_dragging = std::fabs(e->pos().x() - x) < 8;
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        if (m_dragging) {
            const double at = m_plot->xAxis->pixelToCoord(e->pos().x());
            placeCutOff(m_logLeft > 0 && at <= m_logLeft ? 0.0 : std::max(0.0, at));  // dragged to the left edge: zero
        }
    });
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent*) { m_dragging = false; });
    attachPlotExport(m_plot, [this] { return csv(); });
}

CdfSeries makeDurationCdfSeries(QString name, const std::vector<TimeNs>& durations) {
    std::vector<float> us(durations.size());
    for (std::size_t i = 0; i < durations.size(); ++i) us[i] = static_cast<float>(nsToUs(durations[i]));
    return makeCdfSeries(std::move(name), std::move(us));
}

CdfSeries makeCdfSeries(QString name, std::vector<float> values, double scale, QColor colour) {
    CdfSeries out;
    out.name = std::move(name);
    out.colour = colour;
    if (!std::is_sorted(values.begin(), values.end())) std::sort(values.begin(), values.end());
    out.values = std::move(values);
    const auto& v = out.values;
    const std::size_t n = v.size();
    // At most ~2,000 steps drawn: a CDF needs no more to look exact.
    const std::size_t stride = std::max<std::size_t>(1, n / 2000);
    for (std::size_t i = 0; i < n; i += stride) {
        out.x << v[i] * scale;
        out.y << 100.0 * double(i + 1) / double(n);
    }
    if (n) {
        out.x << v.back() * scale;
        out.y << 100.0;
    }
    auto pct = [&](double q) { return n ? v[std::min(n - 1, static_cast<std::size_t>(q * double(n - 1) + 0.5))] * scale : 0.0; };
    out.p50 = pct(0.5);
    out.p95 = pct(0.95);
    out.p99 = pct(0.99);
    return out;
}

void CdfPlot::setSeries(const QString& xLabel, const std::vector<std::pair<QString, std::vector<float>>>& series, bool logX,
                        double scale, const QString& unit) {
    std::vector<CdfSeries> made;
    for (const auto& [name, values] : series) made.push_back(makeCdfSeries(name, values, scale));
    setSeries(xLabel, std::move(made), logX, scale, unit);
}

void CdfPlot::setSeries(const QString& xLabel, std::vector<CdfSeries> series, bool logX, double scale, const QString& unit) {
    m_series = std::move(series);
    m_scale = scale;
    m_unit = unit;
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_cutOff = nullptr;
    m_cutOffLabel = nullptr;
    static const QColor colours[] = {QColor(0x49, 0x50, 0x57), QColor(0xd9, 0x48, 0x0f), QColor(0x19, 0x71, 0xc2), QColor(0x2f, 0x9e, 0x44)};
    double lo = 1e300, hi = -1e300, lowestPositive = 1e300;
    for (std::size_t k = 0; k < m_series.size(); ++k) {
        const CdfSeries& s = m_series[k];
        if (!s.values.empty()) {
            lo = std::min(lo, double(s.values.front()) * m_scale);
            hi = std::max(hi, double(s.values.back()) * m_scale);
            const auto positive = std::upper_bound(s.values.begin(), s.values.end(), 0.0f);
            if (positive != s.values.end()) lowestPositive = std::min(lowestPositive, double(*positive) * m_scale);
        }
        auto* g = m_plot->addGraph();
        g->setData(s.x, s.y, true);
        m_logLeft = 0;
        g->setPen(QPen(s.colour.isValid() ? s.colour : colours[k % 4], 2));
        // p50 / p95 / p99 in the legend, with enough digits to tell them apart.
        const bool ms = m_unit == QLatin1String("ms");
        auto number = [ms, this](double v) {
            if (ms) return formatDuration(v * 1000.0);
            return QStringLiteral("%1 %2").arg(QString::number(v, 'f', std::fabs(v) >= 100 || v == 0 ? 0 : std::fabs(v) >= 1 ? 1 : 3), m_unit);
        };
        g->setName(QStringLiteral("%1 — p50 %2 · p95 %3 · p99 %4").arg(s.name, number(s.p50), number(s.p95), number(s.p99)));
    }
    m_plot->xAxis->setLabel(xLabel);
    if (logX) {
        // A log axis keeps the cut-off's step per pixel proportional to its value (a linear axis up to a long
        // tail moved it hundreds of ms per pixel). Zeros sit at the left edge.
        m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        ticker->setSubTickCount(8);
        m_plot->xAxis->setTicker(ticker);
        m_plot->xAxis->setNumberFormat(QStringLiteral("gb"));
        const double left = lowestPositive < 1e300 ? lowestPositive / 1.5 : 1e-3;
        m_plot->xAxis->setRange(left, std::max(hi, left * 10) * 1.1);
        // Values at or below the left edge (zeros) are drawn on it: the curve starts at their share.
        m_logLeft = left;
        for (int k = 0; k < m_plot->graphCount(); ++k) {
            QVector<double> x = m_series[static_cast<std::size_t>(k)].x;
            for (double& v : x) v = std::max(v, left);
            m_plot->graph(k)->setData(x, m_series[static_cast<std::size_t>(k)].y, true);
        }
    } else {
        m_plot->xAxis->setScaleType(QCPAxis::stLinear);
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        m_plot->xAxis->setRange(std::min(0.0, lo), hi > lo ? hi * 1.02 : lo + 1);
    }
    // Too few values for a distribution: say so over the plot rather than draw steps along its edges.
    if (const QString note = noteText(); !note.isEmpty()) {
        auto* text = new QCPItemText(m_plot);
        text->position->setType(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.5, 0.5);
        text->setText(note);
        text->setColor(palette().color(QPalette::PlaceholderText));
    }
    m_plot->replot();
}

QString CdfPlot::noteText() const {
    std::size_t most = 0;
    for (const CdfSeries& s : m_series) most = std::max(most, s.values.size());
    if (m_series.empty() || most >= 3) return {};
    return tr("%1 per series: too few for a distribution").arg(most == 1 ? tr("1 value") : tr("%1 values").arg(most));
}

double CdfPlot::shareAbove(double ms) const {
    if (m_series.empty() || m_series.front().values.empty()) return 0;
    const auto& v = m_series.front().values;
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
    const double drawnAt = std::max(ms, m_logLeft);  // on a log axis a zero cut-off sits on the left edge
    m_cutOff->point1->setCoords(drawnAt, 0);
    m_cutOff->point2->setCoords(drawnAt, 100);
    const double share = shareAbove(ms);
    // The label on the side of the line with room for it.
    const double px = m_plot->xAxis->coordToPixel(drawnAt);
    const bool right = px > m_plot->axisRect()->left() + m_plot->axisRect()->width() / 2;
    m_cutOffLabel->setPositionAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    m_cutOffLabel->position->setCoords(drawnAt, 95);
    const QString at = m_unit == QLatin1String("ms") ? formatDuration(ms * 1000.0) : QStringLiteral("%1 %2").arg(ms, 0, 'g', 3).arg(m_unit);
    m_cutOffLabel->setText(tr("cut-off %1: %2 % of requests above (drag the line)").arg(at).arg(100 * share, 0, 'f', 1));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    emit cutOffMoved(ms, share);
}

QString CdfPlot::csv() const {
    QString out = QStringLiteral("series,value_us\n");
    for (const auto& s : m_series)
        for (float v : s.values) out += QStringLiteral("%1,%2\n").arg(s.name).arg(v);
    return out;
}

} // namespace tracelight::widgets
