#include "plots/BreakdownPlot.h"

#include <QHelpEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "common/HoverText.h"
#include "plots/DurationTicker.h"
#include "common/Palette.h"
#include "common/PlotExport.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

namespace {
constexpr int kLegendTextWidth = 220;  // pixels

// The summed-delay shade: the category's colour washed towards white, so the pair reads as one category.
QColor paler(const QColor& c) {
    const double keep = 0.55;
    return QColor::fromRgbF(float(c.redF() * keep + (1 - keep)), float(c.greenF() * keep + (1 - keep)),
                            float(c.blueF() * keep + (1 - keep)));
}

// A legend entry that shows both shades of a category (the paler summed delay, then the critical path), so
// the left bars are in the legend too.
class CategoryLegendItem : public QCPAbstractLegendItem {
public:
    CategoryLegendItem(QCPLegend* legend, QString name, QColor summed, QColor critical)
        : QCPAbstractLegendItem(legend), m_name(std::move(name)), m_summed(summed), m_critical(critical) {}

protected:
    void draw(QCPPainter* painter) override {
        painter->setFont(mFont);
        painter->setPen(QPen(mTextColor));
        const QSize icon = mParentLegend->iconSize();
        const QRect text = painter->fontMetrics().boundingRect(0, 0, 0, icon.height(), Qt::TextDontClip, m_name);
        painter->drawText(mRect.x() + icon.width() + mParentLegend->iconTextPadding(), mRect.y(), text.width(),
                          std::max(text.height(), icon.height()), Qt::TextDontClip, m_name);
        const QRect swatches(mRect.topLeft() + QPoint(0, 2), QSize(icon.width(), icon.height() - 4));
        painter->setPen(QPen(m_critical.darker(150)));
        if (m_summed.isValid()) {
            const int half = swatches.width() / 2;
            painter->setBrush(m_summed);
            painter->drawRect(QRect(swatches.topLeft(), QSize(half - 1, swatches.height())));
            painter->setBrush(m_critical);
            painter->drawRect(QRect(swatches.topLeft() + QPoint(half + 1, 0), QSize(swatches.width() - half - 1, swatches.height())));
        } else {  // blind time: on the critical path only
            painter->setBrush(m_critical);
            painter->drawRect(swatches);
        }
    }
    QSize minimumOuterSizeHint() const override {
        const QSize icon = mParentLegend->iconSize();
        const QRect text = QFontMetrics(mFont).boundingRect(0, 0, 0, icon.height(), Qt::TextDontClip, m_name);
        return QSize(icon.width() + mParentLegend->iconTextPadding() + text.width() + mMargins.left() + mMargins.right(),
                     std::max(text.height(), icon.height()) + mMargins.top() + mMargins.bottom());
    }

private:
    QString m_name;
    QColor m_summed, m_critical;
};
} // namespace

BreakdownPlot::BreakdownPlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setAutoAddPlottableToLegend(false);  // the legend has one entry per category for both its bars
    m_plot->legend->setVisible(true);
    m_plot->legend->setIconSize(28, 14);
    // The legend beside the bars, not over them (it covered the critical-path bar).
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    auto* side = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(0, 1, side);
    m_plot->plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, m_plot->legend);
    side->addElement(1, 0, new QCPLayoutElement(m_plot));  // the rest of the height: the legend stays compact
    side->setRowStretchFactor(0, 0.001);
    side->setMargins(QMargins(0, 6, 8, 0));  // the legend's frame clear of the splitter beside it
    m_plot->legend->setMaximumSize(320, QWIDGETSIZE_MAX);
    attachHoverText(m_plot, [this](const QPoint& pos) { return toolTipAt(pos); });
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

QColor BreakdownPlot::colourOf(const QString& category) const {
    for (const auto& e : m_legend)
        if (e.name == category) return e.critical;
    return {};
}

QString BreakdownPlot::toolTipAt(const QPoint& pos) const {
    for (auto it = m_bars.rbegin(); it != m_bars.rend(); ++it) {
        QVariant details;
        if (it->bars->selectTest(pos, false, &details) < 0) continue;
        const QCPDataSelection hit = details.value<QCPDataSelection>();
        if (hit.isEmpty()) continue;
        const double key = it->bars->data()->at(hit.dataRange().begin())->key;
        const auto g = static_cast<std::size_t>(std::lround(key));
        if (g >= m_shown.size()) continue;
        const auto& [label, b] = m_shown[g];
        const CategoryBreakdown& c = b.categories[it->category];
        double summedTotal = 0;
        for (const auto& cat : b.categories) summedTotal += cat.summedNs;
        QString name = QString::fromStdString(c.name);
        if (c.name == kOtherCategory && !m_folded.isEmpty()) {
            const QStringList some = m_folded.mid(0, 4);
            name += tr(" (%n categories: %1%2)", nullptr, static_cast<int>(m_folded.size()))
                        .arg(some.join(QStringLiteral(", ")), m_folded.size() > some.size() ? QStringLiteral(", …") : QString());
        }
        const QString critical = tr("on the critical path: %1 per request, %2 % of the latency")
                                     .arg(formatDuration(c.criticalNs / 1000.0))
                                     .arg(b.meanLatencyNs > 0 ? 100.0 * c.criticalNs / b.meanLatencyNs : 0.0, 0, 'f', 1);
        const QString summed = tr("summed delay: %1 per request, %2 % of all summed delay")
                                   .arg(formatDuration(c.summedNs / 1000.0))
                                   .arg(summedTotal > 0 ? 100.0 * c.summedNs / summedTotal : 0.0, 0, 'f', 1);
        const QString head = tr("%1 · %2 (%L3 requests)").arg(name, label).arg(b.requests);
        if (c.name == "blind") return head + QLatin1Char('\n') + critical;
        return head + QLatin1Char('\n') + (it->critical ? critical + QLatin1Char('\n') + summed : summed + QLatin1Char('\n') + critical);
    }
    return {};
}

void BreakdownPlot::rebuild() {
    if (m_note) {
        m_plot->legend->QCPLayoutGrid::remove(m_note);  // deletes it
        m_note = nullptr;
    }
    m_plot->legend->clearItems();
    m_plot->legend->simplify();
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_bars.clear();
    m_legend.clear();
    m_folded.clear();
    m_shown.clear();
    if (m_groups.empty()) {
        m_plot->replot();
        return;
    }
    // The categories with the most critical time keep their colour (core ranks and folds them), the most at the
    // bottom of each bar; "other" sums the rest, on top.
    {
        std::vector<std::pair<std::string, Breakdown>> groups;
        for (const auto& [label, b] : m_groups) groups.emplace_back(label.toStdString(), b);
        groups = foldSmallCategories(std::move(groups), palette::kRankedColours);
        for (auto& [label, b] : groups) m_shown.emplace_back(QString::fromStdString(label), std::move(b));
        QSet<QString> kept;
        for (const auto& c : m_shown.front().second.categories) kept.insert(QString::fromStdString(c.name));
        for (const auto& c : m_groups.front().second.categories)
            if (!kept.contains(QString::fromStdString(c.name))) m_folded << QString::fromStdString(c.name);
    }
    const auto& categories = m_shown.front().second.categories;
    std::size_t rank = 0;
    for (const auto& c : categories) {
        const QString name = QString::fromStdString(c.name);
        QColor colour;
        if (c.name == "blind") colour = palette::blind();
        else if (c.name == kOtherCategory) colour = palette::other();
        else colour = palette::ranked(rank++);
        m_legend.push_back({name, c.name == "blind" ? QColor() : paler(colour), colour});
    }
    // Two bars per group: summed delay (left) and critical path (right), stacked by category.
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    std::int64_t total = 0;
    for (const auto& g : m_shown) total += g.second.requests;
    std::vector<QCPBars*> below(2, nullptr);
    for (int kind = 0; kind < 2; ++kind) {
        for (std::size_t c = 0; c < categories.size(); ++c) {
            if (kind == 0 && categories[c].name == "blind") continue;  // blind time exists only on the critical path
            auto* bar = new QCPBars(m_plot->xAxis, m_plot->yAxis);
            bar->setWidth(0.38);
            const QColor colour = m_legend[c].critical;
            bar->setBrush(kind == 0 ? QBrush(m_legend[c].summed) : QBrush(colour));
            bar->setPen(QPen(colour.darker(150)));
            bar->setName(m_legend[c].name);
            if (below[static_cast<std::size_t>(kind)]) bar->moveAbove(below[static_cast<std::size_t>(kind)]);
            below[static_cast<std::size_t>(kind)] = bar;
            m_bars.push_back({bar, c, kind == 1});
            QVector<double> keys, values;
            for (std::size_t g = 0; g < m_shown.size(); ++g) {
                const Breakdown& b = m_shown[g].second;
                double summedTotal = 0;
                for (const auto& cat : b.categories) summedTotal += cat.summedNs;
                const auto& cat = b.categories[c];
                const double value = kind == 0 ? cat.summedNs : cat.criticalNs;
                const double denominator = kind == 0 ? summedTotal : b.meanLatencyNs;
                keys << double(g) * 1.0 + (kind == 0 ? -0.2 : 0.2);
                values << (m_percent ? (denominator > 0 ? 100.0 * value / denominator : 0) : value / 1e6);  // ns -> ms, the axis's coordinates
            }
            bar->setData(keys, values, true);
        }
    }
    // The legend: what the two shades are (once, above the categories), then each category in both.
    // Long span names ("recommendationservice → productcatalogservice") elided in the middle: the legend leaves the bars
    // their room; a bar's tooltip has the whole name.
    const QFontMetrics metrics(m_plot->legend->font());
    for (const auto& e : m_legend)
        m_plot->legend->addItem(new CategoryLegendItem(m_plot->legend, metrics.elidedText(e.name, Qt::ElideMiddle, kLegendTextWidth), e.summed,
                                                       e.critical));
    auto* note = new QCPTextElement(m_plot, tr("each category: paler, left bar:\nsummed delay; full, right bar:\ntime on the critical path"));
    note->setTextFlags(Qt::AlignLeft);
    note->setFont(m_plot->legend->font());
    note->setLayer(m_plot->legend->layer());  // drawn over the legend's background, not under it
    m_plot->legend->insertRow(0);
    m_plot->legend->addElement(0, 0, note);
    m_note = note;
    for (std::size_t g = 0; g < m_shown.size(); ++g) {
        const Breakdown& b = m_shown[g].second;
        QString label = m_shown[g].first;
        if (m_shown.size() > 1) label += QStringLiteral("\n%1 % of requests").arg(total ? 100.0 * double(b.requests) / double(total) : 0, 0, 'f', 1);
        label += QStringLiteral("\nsummed | critical");
        ticker->addTick(double(g), label);
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(-0.7, double(m_shown.size()) - 0.3);
    m_plot->xAxis->setTickLength(0, 0);
    m_plot->xAxis->setLabel(QString());  // the tick labels and the legend say which bar is which
    m_plot->yAxis->setLabel(m_percent ? tr("share of the bar (%)") : tr("mean time per request"));
    if (m_percent) m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    else useDurationTicks(m_plot->yAxis);  // "500 ms", "40 s": the unit on each tick
    m_plot->yAxis->rescale();
    m_plot->yAxis->setRangeLower(0);
    m_plot->yAxis->setRangeUpper(m_plot->yAxis->range().upper * 1.08);
    m_plot->replot();
}

} // namespace tracelight::widgets
