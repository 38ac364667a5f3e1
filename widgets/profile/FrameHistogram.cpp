#include "profile/FrameHistogram.h"

#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "common/Palette.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

namespace {
// Bin b holds [2^b, 2^(b+1)) µs; bin 0 everything under 2 µs. Its lower edge in two significant digits, short
// enough that a dozen of them fit under the bars.
QString twoDigits(double v) {
    if (v >= 100) return QString::number(std::lround(v / 10) * 10);
    if (v >= 10) return QString::number(std::lround(v));
    return QString::number(std::round(v * 10) / 10, 'f', v == std::round(v) ? 0 : 1);
}
QString binLabel(int b) {
    if (b == 0) return QStringLiteral("0");
    const double us = std::ldexp(1.0, b);
    if (us < 1000) return twoDigits(us) + QStringLiteral(" µs");
    if (us < 1e6) return twoDigits(us / 1e3) + QStringLiteral(" ms");
    return twoDigits(us / 1e6) + QStringLiteral(" s");
}
} // namespace

FrameHistogram::FrameHistogram(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)), m_caption(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    m_caption->setWordWrap(true);
    layout->addWidget(m_caption);
    layout->addWidget(m_plot, 1);
    m_plot->xAxis->setLabel(tr("critical time in a request (log2 bins: from the time shown to twice it)"));
    m_plot->yAxis->setLabel(tr("requests"));
    m_plot->legend->setVisible(false);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    setFrame(nullptr, -1, 0);
}

void FrameHistogram::setFrame(std::shared_ptr<const ProfileSet> profile, int frame, std::size_t group, int base,
                              const QString& groupName, const QString& baseName) {
    m_plot->clearPlottables();
    const bool shown = profile && frame >= 0 && static_cast<std::size_t>(frame) < profile->frames.size() && group < profile->groups.size();
    if (!shown) {
        m_caption->setText(tr("Click a frame of the flame graph to see how its critical time is spread over the requests."));
        m_plot->replot();
        return;
    }
    const auto f = static_cast<std::size_t>(frame);
    std::vector<std::pair<std::size_t, QString>> series{{group, groupName}};
    if (base >= 0 && static_cast<std::size_t>(base) < profile->groups.size()) series.insert(series.begin(), {static_cast<std::size_t>(base), baseName});
    // Only the bins in use, with one empty bin either side, so the bars stay wide enough to read.
    int first = kProfileHistogramBins, last = -1;
    for (const auto& [g, name] : series)
        for (int b = 0; b < kProfileHistogramBins; ++b)
            if (profile->groups[g].frames[f].histogram[static_cast<std::size_t>(b)] > 0) first = std::min(first, b), last = std::max(last, b);
    if (last < 0) first = last = 0;
    first = std::max(0, first - 1);
    last = std::min(kProfileHistogramBins - 1, last + 1);
    auto* group_ = series.size() > 1 ? new QCPBarsGroup(m_plot) : nullptr;
    double top = 0;
    for (std::size_t k = 0; k < series.size(); ++k) {
        const auto& [g, name] = series[k];
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        const QColor colour = series.size() > 1 ? (k == 0 ? palette::other() : palette::critical()) : palette::critical();
        bars->setBrush(colour);
        bars->setPen(QPen(colour.darker(140)));
        bars->setName(name.isEmpty() ? tr("requests") : name);
        bars->setWidth(series.size() > 1 ? 0.4 : 0.8);
        if (group_) bars->setBarsGroup(group_);
        QVector<double> x, y;
        for (int b = first; b <= last; ++b) {
            x.push_back(b);
            const double count = profile->groups[g].frames[f].histogram[static_cast<std::size_t>(b)];
            y.push_back(count);
            top = std::max(top, count);
        }
        bars->setData(x, y, true);
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    // About six labels whatever the range, so they never run into each other.
    const int every = std::max(1, (last - first + 6) / 6);
    for (int b = first; b <= last; b += every) ticker->addTick(b, binLabel(b));
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(first - 0.6, last + 0.6);
    m_plot->yAxis->setRange(0, std::max(1.0, top * (series.size() > 1 ? 1.25 : 1.1)));  // room for the legend
    m_plot->legend->setVisible(series.size() > 1);
    const FrameStats& stats = profile->groups[group].frames[f];
    m_caption->setText(tr("<b>%1</b> · critical in %L2 of %L3 requests · mean %4 per request")
                           .arg(QString::fromStdString(profile->frames[f].name).toHtmlEscaped())
                           .arg(stats.criticalRequests)
                           .arg(profile->groups[group].requests)
                           .arg(formatDurationNs(static_cast<TimeNs>(profile->meanTotalNs(group, f)))));
    m_plot->replot();
}

QString FrameHistogram::captionText() const { return m_caption->text(); }

} // namespace tracelight::widgets
