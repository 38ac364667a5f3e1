#include "bottleneck/BottleneckCharts.h"

#include <QDateTime>
#include <QFontMetrics>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "common/Palette.h"
#include "common/TimeFormat.h"
#include "plots/DurationTicker.h"

namespace tracelight::widgets {

namespace {

double epochSeconds(TimeNs ns) { return double(ns / 1000000000) + double(ns % 1000000000) / 1e9; }

// A date/time axis in UTC, its format fine enough for the buckets (a minute of data needs the seconds), with
// as many ticks as its labels fit side by side at the axis's width when it is drawn (the trend shares its
// width with the legend, and a window can be narrow).
class FittedDateTimeTicker : public QCPAxisTickerDateTime {
public:
    explicit FittedDateTimeTicker(QCPAxis* axis) : m_axis(axis) {}

protected:
    double getTickStep(const QCPRange& range) override {
        const QFontMetrics metrics(m_axis->tickLabelFont());
        const double label = metrics.horizontalAdvance(QDateTime(QDate(2000, 12, 28), QTime(23, 58, 58, 888), QTimeZone::utc()).toString(dateTimeFormat()));
        // Readable steps come out up to half as many again as asked for: room for that, and a gap of half a label.
        mTickCount = std::max(2, static_cast<int>(m_axis->axisRect()->width() / (label * 1.5 * 1.5)));
        return QCPAxisTickerDateTime::getTickStep(range);
    }

private:
    QCPAxis* m_axis;
};

void setTimeAxis(QCPAxis* axis, TimeNs bucketNs) {
    QSharedPointer<QCPAxisTickerDateTime> ticker(new FittedDateTimeTicker(axis));
    ticker->setTimeZone(QTimeZone::utc());
    const TimeNs second = 1000000000;
    ticker->setDateTimeFormat(bucketNs >= 86400 * second ? QStringLiteral("yyyy-MM-dd")
                              : bucketNs >= 3600 * second ? QStringLiteral("MM-dd HH:mm")
                              : bucketNs >= second        ? QStringLiteral("HH:mm:ss")
                                                          : QStringLiteral("HH:mm:ss.zzz"));
    axis->setTicker(ticker);
}

// The time labels show milliseconds at most: a narrower range (requests within a millisecond or two, one
// bucket of a millisecond) would put the same label at every tick. At least six milliseconds, around it.
void setTimeRange(QCPAxis* axis, double fromSeconds, double toSeconds) {
    constexpr double kNarrowestSeconds = 0.006;
    if (toSeconds - fromSeconds < kNarrowestSeconds) {
        const double middle = (fromSeconds + toSeconds) / 2;
        fromSeconds = middle - kNarrowestSeconds / 2;
        toSeconds = middle + kNarrowestSeconds / 2;
    }
    axis->setRange(fromSeconds, toSeconds);
}

void putLegendBeside(QCustomPlot* plot) {
    if (plot->plotLayout()->columnCount() > 1) return;  // already moved
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->take(plot->legend);
    // Beside the axis rect, in its row (a title may sit in the row above).
    int axisRow = 0;
    for (int row = 0; row < plot->plotLayout()->rowCount(); ++row)
        if (plot->plotLayout()->element(row, 0) == plot->axisRect()) axisRow = row;
    auto* side = new QCPLayoutGrid;
    plot->plotLayout()->addElement(axisRow, 1, side);
    plot->plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, plot->legend);
    side->addElement(1, 0, new QCPLayoutElement(plot));  // the rest of the height: the legend stays compact
    side->setRowStretchFactor(0, 0.001);
}

QString dayOf(TimeNs ns) {
    return QDateTime::fromMSecsSinceEpoch(ns / 1000000, QTimeZone::utc()).toString(QStringLiteral("yyyy-MM-dd"));
}

// The day(s) the requests started on, for the time axis' label: its ticks show only the time of day.
QString daysOf(const BottleneckTrend& trend) {
    if (trend.startNs.empty()) return {};
    const auto [first, last] = std::minmax_element(trend.startNs.begin(), trend.startNs.end());
    const QString a = dayOf(*first), b = dayOf(*last);
    return a == b ? a : a + QStringLiteral(" – ") + b;
}

} // namespace

TypeColours bottleneckTypeColours(const BottleneckSummary& ranking) {
    // Tableau 10 without its grey (kept for the gaps); past ten types the same hues, lighter.
    static const QColor kHues[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0xe1, 0x57, 0x59), QColor(0x76, 0xb7, 0xb2),
                                   QColor(0x59, 0xa1, 0x4f), QColor(0xed, 0xc9, 0x48), QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7),
                                   QColor(0x9c, 0x75, 0x5f)};
    constexpr std::size_t kCount = std::size(kHues);
    TypeColours out;
    std::size_t next = 0;
    for (const auto& t : ranking.types) {
        if (t.name == kGapsType) {
            out[t.name] = palette::blind();
            continue;
        }
        out[t.name] = kHues[next % kCount].lighter(100 + 25 * static_cast<int>(next / kCount));
        ++next;
    }
    return out;
}

int shareBarsThatFit(const QCustomPlot* plot) {
    const int rowPixels = QFontMetrics(plot->yAxis->tickLabelFont()).height() + 4;
    return std::max(3, (plot->height() - 90) / rowPixels);  // 90: the title and the x axis with its label
}

void drawShareBars(QCustomPlot* plot, const BottleneckSummary& summary, const TypeColours& colours, int maxBars) {
    plot->clearPlottables();
    plot->clearItems();
    struct Bar {
        QString name;
        double share;
        QColor colour;
    };
    std::vector<Bar> shown;
    const std::size_t keep = summary.types.size() <= static_cast<std::size_t>(maxBars) ? summary.types.size() : static_cast<std::size_t>(maxBars - 1);
    for (std::size_t i = 0; i < keep; ++i) {
        const auto& t = summary.types[i];
        shown.push_back({QString::fromStdString(t.name), t.share, colours.count(t.name) ? colours.at(t.name) : palette::blind()});
    }
    if (keep < summary.types.size()) {
        double rest = 0;
        for (std::size_t i = keep; i < summary.types.size(); ++i) rest += summary.types[i].share;
        shown.push_back({QObject::tr("%1 more").arg(summary.types.size() - keep), rest, palette::folded()});
    }
    // Horizontal bars, largest on top, so the names read on the left axis.
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    const int n = static_cast<int>(shown.size());
    double largest = 0;
    for (int i = 0; i < n; ++i) {
        const Bar& t = shown[static_cast<std::size_t>(i)];
        auto* bar = new QCPBars(plot->yAxis, plot->xAxis);
        bar->setBrush(t.colour);
        bar->setPen(QPen(t.colour.darker(140)));
        bar->setWidth(0.7);
        bar->setName(t.name);
        bar->setData(QVector<double>{double(n - 1 - i)}, QVector<double>{100.0 * t.share}, true);
        names->addTick(double(n - 1 - i), t.name);
        largest = std::max(largest, 100.0 * t.share);
        // The share written at the bar's end, so the exact number is there without a hover.
        auto* label = new QCPItemText(plot);
        label->position->setAxes(plot->xAxis, plot->yAxis);
        label->position->setCoords(100.0 * t.share, double(n - 1 - i));
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setText(QStringLiteral(" %1 %").arg(100.0 * t.share, 0, 'f', 1));
        label->setClipToAxisRect(false);
    }
    plot->yAxis->setTicker(names);
    plot->yAxis->setTickLength(0, 0);
    plot->yAxis->setSubTickLength(0, 0);
    plot->yAxis->setRange(-0.6, std::max(0, n - 1) + 0.6);
    plot->xAxis->setRange(0, std::max(1.0, largest * 1.18));
    plot->xAxis->setLabel(QObject::tr("% of the latency"));
    plot->legend->setVisible(false);  // the axis names the bars
    plot->replot();
    // Room for the labels at the bars' ends, in pixels of the axis as laid out: a narrow chart needs more of
    // its range for them than a wide one.
    const double labelPx = QFontMetrics(plot->font()).horizontalAdvance(QStringLiteral(" 100.0 %")) + 6;
    const double fraction = std::min(0.6, labelPx / std::max(60, plot->axisRect()->width()));
    plot->xAxis->setRange(0, std::max(1.0, largest / (1 - fraction)));
    plot->replot();
}

void drawStrataShares(QCustomPlot* plot, const std::vector<StratumShares>& strata, const BottleneckSummary& ranking,
                      const TypeColours& colours) {
    plot->clearPlottables();
    plot->clearItems();
    const int n = static_cast<int>(strata.size());
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    for (int i = 0; i < n; ++i) {
        const auto& s = strata[static_cast<std::size_t>(i)];
        names->addTick(double(n - 1 - i), QObject::tr("%1\n%L2 req · %3").arg(s.value).arg(s.summary.requests)
                                                     .arg(formatDurationNs(static_cast<TimeNs>(s.summary.meanLatencyNs))));
    }
    // One bar series per type, stacked in the ranking's order: the largest type of the selection on the left.
    QCPBars* below = nullptr;
    for (const auto& ranked : ranking.types) {
        const std::string& name = ranked.name;
        const QColor colour = colours.count(name) ? colours.at(name) : palette::blind();
        QVector<double> keys, values;
        for (int i = 0; i < n; ++i)
            for (const auto& t : strata[static_cast<std::size_t>(i)].summary.types)
                if (t.name == name && t.share > 0) keys << double(n - 1 - i), values << 100.0 * t.share;
        if (keys.isEmpty()) continue;
        auto* bar = new QCPBars(plot->yAxis, plot->xAxis);
        bar->setName(QString::fromStdString(name));
        bar->setBrush(colour);
        bar->setPen(QPen(colour.darker(140)));
        bar->setWidth(0.7);
        bar->setData(keys, values);
        if (below) bar->moveAbove(below);
        below = bar;
    }
    plot->yAxis->setTicker(names);
    plot->yAxis->setTickLength(0, 0);
    plot->yAxis->setSubTickLength(0, 0);
    plot->yAxis->setRange(-0.6, std::max(0, n - 1) + 0.6);
    plot->xAxis->setRange(0, 100);
    plot->xAxis->setLabel(QObject::tr("% of the stratum's latency"));
    plot->legend->setVisible(false);
    plot->replot();
}

QString strataSharesCsv(const std::vector<StratumShares>& strata) {
    QString csv = QStringLiteral("stratum,requests,mean_latency_ms,type,share\n");
    for (const auto& s : strata)
        for (const auto& t : s.summary.types)
            csv += QStringLiteral("\"%1\",%2,%3,\"%4\",%5\n")
                       .arg(QString(s.value).replace('"', QStringLiteral("\"\"")))
                       .arg(s.summary.requests)
                       .arg(s.summary.meanLatencyNs / 1e6, 0, 'f', 3)
                       .arg(QString::fromStdString(t.name).replace('"', QStringLiteral("\"\"")))
                       .arg(t.share, 0, 'f', 6);
    return csv;
}

void drawContributionTrend(QCustomPlot* plot, const BottleneckTrend& trend, const TypeColours& colours) {
    plot->clearPlottables();
    putLegendBeside(plot);
    setTimeAxis(plot->xAxis, trend.bucketing.sizeNs);
    const double width = epochSeconds(trend.bucketing.sizeNs) * 0.85;
    // One stacked bar series per type in the order of the whole selection's ranking: the largest at the
    // bottom, so its changes read against the axis.
    QCPBars* below = nullptr;
    double top = 0;
    std::vector<double> stacked(trend.buckets.size(), 0);
    // The legend names the largest types only (the table beside lists every one): two dozen names in a
    // plot's height overlap.
    constexpr std::size_t kLegendTypes = 8;
    std::size_t index = 0;
    for (const auto& type : trend.all.types) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        if (index++ >= kLegendTypes) bars->removeFromLegend();
        const QColor colour = colours.count(type.name) ? colours.at(type.name) : palette::blind();
        bars->setBrush(colour);
        bars->setPen(Qt::NoPen);
        bars->setWidth(width);
        bars->setName(QString::fromStdString(type.name));
        QVector<double> keys, values;
        for (std::size_t b = 0; b < trend.buckets.size(); ++b) {
            double mean = 0;
            for (const auto& t : trend.buckets[b].types)
                if (t.name == type.name) mean = t.meanNs / 1e6;  // ns -> ms, as the axis says
            keys << epochSeconds(trend.bucketStartNs[b] + trend.bucketing.sizeNs / 2);
            values << mean;
            stacked[b] += mean;
            top = std::max(top, stacked[b]);
        }
        bars->setData(keys, values, true);
        if (below) bars->moveAbove(below);
        below = bars;
    }
    if (!trend.buckets.empty())
        setTimeRange(plot->xAxis, epochSeconds(trend.bucketStartNs.front()), epochSeconds(trend.bucketStartNs.back() + trend.bucketing.sizeNs));
    plot->yAxis->setRange(0, std::max(1e-3, top * 1.08));
    plot->yAxis->setLabel(QObject::tr("time per request"));
    useDurationTicks(plot->yAxis);
    plot->xAxis->setLabel(trend.bucketStartNs.empty()
                              ? QString()
                              : QObject::tr("request start, UTC %1 · a bar per %2")
                                    .arg(daysOf(trend), QString::fromStdString(trend.bucketing.unit)));
    plot->replot();
}

void drawLatencyScatter(QCustomPlot* plot, const BottleneckTrend& trend) {
    plot->clearPlottables();
    auto* points = new QCPGraph(plot->xAxis, plot->yAxis);
    points->setLineStyle(QCPGraph::lsNone);
    // Small translucent dots: where tens of thousands overlap, the density still shows.
    QColor dot = palette::selection();
    dot.setAlpha(trend.rows.size() > 2000 ? 90 : 200);
    points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, dot, dot, trend.rows.size() > 2000 ? 3 : 5));
    points->setAdaptiveSampling(false);  // every point stays where a click looks for it
    // Not sorted by x (setData(..., false)): point i stays trend.rows[i], which is what a click looks up.
    QVector<double> x, y;
    for (std::size_t i = 0; i < trend.rows.size(); ++i) {
        x << epochSeconds(trend.startNs[i]);
        y << trend.latencyNs[i] / 1e6;
    }
    points->setData(x, y, false);
    setTimeAxis(plot->xAxis, trend.bucketing.sizeNs);
    plot->legend->setVisible(false);  // one series; the title says what a click does
    plot->rescaleAxes();
    if (!x.isEmpty()) {
        const auto [lowest, highest] = std::minmax_element(x.begin(), x.end());
        const double pad = (*highest - *lowest) * 0.02;
        setTimeRange(plot->xAxis, *lowest - pad, *highest + pad);
    }
    plot->yAxis->setRange(0, std::max(1e-3, plot->yAxis->range().upper * 1.08));
    plot->yAxis->setLabel(QObject::tr("latency"));
    useDurationTicks(plot->yAxis);
    plot->xAxis->setLabel(trend.startNs.empty() ? QString() : QObject::tr("request start, UTC %1").arg(daysOf(trend)));
    plot->replot();
}

int latencyPointNear(const QCustomPlot* plot, const BottleneckTrend& trend, double xPixel, double yPixel, double maxPixels) {
    int best = -1;
    double bestDistance = maxPixels;
    for (std::size_t i = 0; i < trend.rows.size(); ++i) {
        const double dx = plot->xAxis->coordToPixel(epochSeconds(trend.startNs[i])) - xPixel;
        const double dy = plot->yAxis->coordToPixel(trend.latencyNs[i] / 1e6) - yPixel;
        const double d = std::hypot(dx, dy);
        if (d <= bestDistance) bestDistance = d, best = static_cast<int>(i);
    }
    return best;
}

QString shareBarsCsv(const BottleneckSummary& summary) {
    QString out = QStringLiteral("type,share,contribution_us,how_to_fix\n");
    for (const auto& t : summary.types)
        out += QStringLiteral("\"%1\",%2,%3,\"%4\"\n").arg(QString::fromStdString(t.name)).arg(t.share, 0, 'f', 6).arg(t.meanNs / 1000.0, 0, 'f', 3)
                   .arg(QString::fromStdString(t.howToFix).replace('"', QStringLiteral("\"\"")));
    return out;
}

QString trendCsv(const BottleneckTrend& trend) {
    QString out = QStringLiteral("bucket_start_utc,requests,type,contribution_us\n");
    for (std::size_t b = 0; b < trend.buckets.size(); ++b)
        for (const auto& t : trend.buckets[b].types)
            out += QStringLiteral("%1,%2,\"%3\",%4\n").arg(formatTimestampNs(trend.bucketStartNs[b])).arg(trend.buckets[b].requests)
                       .arg(QString::fromStdString(t.name)).arg(t.meanNs / 1000.0, 0, 'f', 3);
    return out;
}

QString latencyScatterCsv(const BottleneckTrend& trend, const std::vector<RequestId>& ids) {
    QString out = QStringLiteral("request_id,start_utc,latency_us\n");
    for (std::size_t i = 0; i < trend.rows.size(); ++i)
        out += QStringLiteral("%1,%2,%3\n").arg(trend.rows[i] < ids.size() ? ids[trend.rows[i]].value : 0).arg(formatTimestampNs(trend.startNs[i]))
                   .arg(nsToUs(trend.latencyNs[i]), 0, 'f', 3);
    return out;
}

} // namespace tracelight::widgets
