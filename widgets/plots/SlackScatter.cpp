#include "plots/SlackScatter.h"

#include <QHelpEvent>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

#include "common/HoverText.h"
#include "common/JobRunner.h"
#include "common/PlotExport.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

namespace {
// Slack colours: none (red) to plenty (green), in five steps.
constexpr TimeNs kSlackSteps[] = {0, 5000000, 20000000, 100000000, 500000000};  // 0, 5, 20, 100, 500 ms
QColor slackColour(int step) {
    static const QColor colours[] = {QColor(0xd9, 0x48, 0x0f), QColor(0xf0, 0x8c, 0x00), QColor(0xfa, 0xb0, 0x05),
                                     QColor(0x74, 0xb8, 0x16), QColor(0x2f, 0x9e, 0x44)};
    return colours[step];
}
int slackStep(TimeNs slackNs) {
    int step = 0;
    for (int k = 0; k < 5; ++k)
        if (slackNs >= kSlackSteps[k]) step = k;
    return step;
}
} // namespace

SlackScatter::SlackScatter(QWidget* parent)
    : QWidget(parent), m_job(new JobRunner(this)), m_plot(new QCustomPlot(this)), m_notice(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_notice, 1);
    layout->addWidget(m_plot, 1);
    m_notice->setObjectName(QStringLiteral("scatterNotice"));
    m_notice->setWordWrap(true);
    m_notice->setAlignment(Qt::AlignCenter);
    m_notice->setMargin(24);
    m_notice->hide();
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setSelectionRectMode(QCP::srmSelect);
    m_plot->legend->setVisible(true);
    // The legend in one row under the plot: in the corner it covered the points (they lie above the diagonal).
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(0);
    m_plot->legend->setBorderPen(Qt::NoPen);
    attachHoverText(m_plot, [this](const QPoint& pos) { return toolTipAt(pos); });
    connect(m_plot->selectionRect(), &QCPSelectionRect::accepted, this, [this](const QRect& rect, QMouseEvent*) {
        if (!m_data) return;
        const double x0 = m_plot->xAxis->pixelToCoord(rect.left()), x1 = m_plot->xAxis->pixelToCoord(rect.right());
        const double y0 = m_plot->yAxis->pixelToCoord(rect.bottom()), y1 = m_plot->yAxis->pixelToCoord(rect.top());
        std::vector<RequestId> ids;
        for (auto r : rowsIn(std::min(x0, x1), std::max(x0, x1), std::min(y0, y1), std::max(y0, y1))) ids.push_back(m_data->ids[r]);
        emit requestsBrushed(ids);
    });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent* e) {
        const int r = rowNear(m_plot->xAxis->pixelToCoord(e->pos().x()), m_plot->yAxis->pixelToCoord(e->pos().y()));
        if (r >= 0) emit requestActivated(m_data->ids[static_cast<std::size_t>(r)]);
    });
    attachPlotExport(m_plot, [this] { return csv(); });
}

void SlackScatter::setData(std::shared_ptr<const RequestAggregates> aggregates, int category) {
    m_data = std::move(aggregates);
    m_category = category;
    rebuild();
}

std::vector<std::uint32_t> SlackScatter::rowsIn(double x0, double x1, double y0, double y1) const {
    std::vector<std::uint32_t> rows;
    if (!m_data) return rows;
    const auto c = static_cast<std::size_t>(m_category);
    for (std::size_t r = 0; r < m_data->requests(); ++r) {
        if (!m_data->hasSlack(r, c)) continue;  // not drawn: the category is not in that request
        const double x = nsToMs(m_data->span(r, c)), y = nsToMs(m_data->latencyNs[r]);
        if (x >= x0 && x <= x1 && y >= y0 && y <= y1) rows.push_back(static_cast<std::uint32_t>(r));
    }
    return rows;
}

int SlackScatter::rowNear(double xMs, double yMs) const {
    if (!m_data) return -1;
    const auto c = static_cast<std::size_t>(m_category);
    const double sx = std::max(1e-9, m_plot->xAxis->range().size()), sy = std::max(1e-9, m_plot->yAxis->range().size());
    int best = -1;
    double bestDistance = 0.02;  // 2 % of the visible range
    for (std::size_t r = 0; r < m_data->requests(); ++r) {
        if (!m_data->hasSlack(r, c)) continue;
        const double dx = (nsToMs(m_data->span(r, c)) - xMs) / sx, dy = (nsToMs(m_data->latencyNs[r]) - yMs) / sy;
        const double d = std::hypot(dx, dy);
        if (d < bestDistance) bestDistance = d, best = static_cast<int>(r);
    }
    return best;
}

QString SlackScatter::notice() const { return m_notice->isHidden() ? QString() : m_notice->text(); }

QString SlackScatter::toolTipAt(const QPoint& pos) const {
    if (!m_data || !m_plot->axisRect()->rect().contains(pos)) return {};
    // Within a few pixels of the pointer, not 2 % of the range: a hover over empty space says nothing.
    const double x = m_plot->xAxis->pixelToCoord(pos.x()), y = m_plot->yAxis->pixelToCoord(pos.y());
    const int r = rowNear(x, y);
    if (r < 0) return {};
    const auto row = static_cast<std::size_t>(r);
    const auto c = static_cast<std::size_t>(m_category);
    const QPointF at(m_plot->xAxis->coordToPixel(nsToMs(m_data->span(row, c))), m_plot->yAxis->coordToPixel(nsToMs(m_data->latencyNs[row])));
    if (std::hypot(at.x() - pos.x(), at.y() - pos.y()) > 6) return {};
    const QString category = QString::fromStdString(m_data->categories[c]);
    const TimeNs latency = m_data->latencyNs[row];
    return tr("request %1\n%2 time: %3 (%4 % of the latency)\nend-to-end latency: %5\n%2 slack: %6")
        .arg(m_data->ids[row].value)
        .arg(category, formatDurationNs(m_data->span(row, c)))
        .arg(latency > 0 ? 100.0 * double(m_data->span(row, c)) / double(latency) : 0.0, 0, 'f', 1)
        .arg(formatDurationNs(latency), m_data->hasSlack(row, c) ? formatDurationNs(m_data->slack(row, c)) : tr("none (absent)"));
}

QString SlackScatter::csv() const {
    QString out = QStringLiteral("request_id,category_time_us,latency_us,slack_us\n");
    if (!m_data) return out;
    const auto c = static_cast<std::size_t>(m_category);
    for (std::size_t r = 0; r < m_data->requests(); ++r)
        out += QStringLiteral("%1,%2,%3,%4\n").arg(m_data->ids[r].value).arg(nsToUs(m_data->span(r, c))).arg(nsToUs(m_data->latencyNs[r]))
                   .arg(m_data->hasSlack(r, c) ? QString::number(nsToUs(m_data->slack(r, c))) : QStringLiteral("inf"));
    return out;
}

// What the plot draws, computed from the aggregates alone (on a worker for large inputs).
struct SlackScatter::Layout {
    QString category;
    QString notice;  // why there is nothing worth drawing (then nothing is)
    double maxX = 1, maxY = 1;
    bool heatMap = false;
    int nx = 300, ny = 200;
    std::vector<double> counts;       // heat map: requests per cell, row-major by y
    QVector<double> x[5], y[5];       // points: one set per slack step
};

bool SlackScatter::isComputing() const { return m_job->isRunning(); }

void SlackScatter::rebuild() {
    if (!m_data || m_category < 0 || static_cast<std::size_t>(m_category) >= m_data->width()) {
        m_job->cancel();
        m_notice->hide();
        m_plot->show();
        m_plot->clearPlottables();
        m_plot->clearItems();
        m_plot->replot();
        emit drawn();
        return;
    }
    auto data = m_data;
    const auto c = static_cast<std::size_t>(m_category);
    const bool heatMap = data->requests() > m_heatMapThreshold;
    auto compute = [data, c, heatMap] {
        auto layout = std::make_shared<Layout>();
        Layout& l = *layout;
        l.category = QString::fromStdString(data->categories[c]);
        l.heatMap = heatMap;
        // Its time against latency would be the diagonal and its slack zero: say so instead of drawing that.
        if (spansWholeRequests(*data, c)) {
            l.notice = tr("%1 takes the whole of nearly every request: its time is the end-to-end latency, so every point would lie "
                          "on the diagonal, with no slack. Choose a category it calls.")
                           .arg(l.category);
            return layout;
        }
        bool present = false;
        for (std::size_t r = 0; r < data->requests() && !present; ++r) present = data->hasSlack(r, c);
        if (!present) {
            l.notice = tr("%1 is in none of these requests.").arg(l.category);
            return layout;
        }
        // Requests without the category are left out: at x = 0 they said nothing about it.
        for (std::size_t r = 0; r < data->requests(); ++r) {
            if (!data->hasSlack(r, c)) continue;
            l.maxX = std::max(l.maxX, nsToMs(data->span(r, c)));
            l.maxY = std::max(l.maxY, nsToMs(data->latencyNs[r]));
        }
        if (l.heatMap) {
            l.counts.assign(static_cast<std::size_t>(l.nx * l.ny), 0);
            for (std::size_t r = 0; r < data->requests(); ++r) {
                if (!data->hasSlack(r, c)) continue;
                const int ix = static_cast<int>(nsToMs(data->span(r, c)) / l.maxX * (l.nx - 1) + 0.5);
                const int iy = static_cast<int>(nsToMs(data->latencyNs[r]) / l.maxY * (l.ny - 1) + 0.5);
                if (ix >= 0 && ix < l.nx && iy >= 0 && iy < l.ny) l.counts[static_cast<std::size_t>(iy * l.nx + ix)] += 1;
            }
        } else {
            for (std::size_t r = 0; r < data->requests(); ++r) {
                if (!data->hasSlack(r, c)) continue;
                const int step = slackStep(data->slack(r, c));
                l.x[step] << nsToMs(data->span(r, c));
                l.y[step] << nsToMs(data->latencyNs[r]);
            }
        }
        return layout;
    };
    if (data->requests() <= m_backgroundThreshold) {
        m_job->cancel();
        draw(*compute());
        emit drawn();
        return;
    }
    m_job->start<std::shared_ptr<Layout>>([compute](const CancelToken&, const ProgressSink&) { return compute(); },
                                          [this](std::shared_ptr<Layout> layout) {
                                              draw(*layout);
                                              emit drawn();
                                          });
}

void SlackScatter::draw(const Layout& l) {
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_heatMap = l.heatMap;
    m_notice->setText(l.notice);
    m_notice->setVisible(!l.notice.isEmpty());
    m_plot->setVisible(l.notice.isEmpty());
    if (!l.notice.isEmpty()) {
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    if (m_heatMap) {
        // Requests per cell, on a log colour scale: draws in time independent of the request count.
        auto* map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
        map->data()->setSize(l.nx, l.ny);
        map->data()->setRange(QCPRange(0, l.maxX), QCPRange(0, l.maxY));
        for (int x = 0; x < l.nx; ++x)
            for (int y = 0; y < l.ny; ++y) {
                const double n = l.counts[static_cast<std::size_t>(y * l.nx + x)];
                map->data()->setCell(x, y, n > 0 ? std::log10(n) + 1 : std::nan(""));
            }
        QCPColorGradient gradient(QCPColorGradient::gpThermal);
        gradient.setNanHandling(QCPColorGradient::nhTransparent);
        map->setGradient(gradient);
        map->rescaleDataRange();
        map->setName(tr("requests per cell (log10 + 1)"));
        map->setInterpolate(false);
    } else {
        // One graph per slack step, so the legend explains the colours.
        for (int step = 0; step < 5; ++step) {
            auto* g = m_plot->addGraph();
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, slackColour(step), 3));
            g->setAdaptiveSampling(true);
            g->setData(l.x[step], l.y[step]);
            const double lo = nsToMs(kSlackSteps[step]);
            g->setName(step == 4 ? tr("slack ≥ %1 ms").arg(lo) : tr("slack %1–%2 ms").arg(lo).arg(nsToMs(kSlackSteps[step + 1])));
            if (l.x[step].isEmpty()) g->removeFromLegend();  // the legend lists the colours there are (span data: one)
        }
    }
    // y = x: a request can never be faster than this category's part of it.
    auto* diagonal = new QCPItemStraightLine(m_plot);
    diagonal->point1->setCoords(0, 0);
    diagonal->point2->setCoords(1, 1);
    diagonal->setPen(QPen(QColor(0, 0, 0, 120), 1, Qt::DashLine));
    m_plot->xAxis->setLabel(tr("%1 time (first segment start to last segment end, ms)").arg(l.category));
    m_plot->yAxis->setLabel(tr("end-to-end latency (ms)"));
    m_plot->xAxis->setRange(0, l.maxX * 1.02);
    m_plot->yAxis->setRange(0, l.maxY * 1.02);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace tracelight::widgets
