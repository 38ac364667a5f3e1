#include "waterfall/SpanDetailPanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QTextDocument>
#include <QVBoxLayout>

#include "common/QtText.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

namespace {
QTableWidget* makeTable(const QStringList& headers, QWidget* parent) {
    auto* table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setWordWrap(false);
    return table;
}
QTableWidgetItem* item(const QString& text) {
    auto* it = new QTableWidgetItem(text);
    it->setToolTip(text);  // the full value, however narrow the column
    return it;
}
} // namespace

SpanDetailPanel::SpanDetailPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary = new QLabel(this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    auto* tables = new QHBoxLayout;
    m_tags = makeTable({tr("Tag"), tr("Value")}, this);
    m_events = makeTable({tr("Offset"), tr("Event")}, this);
    tables->addWidget(m_tags, 3);
    tables->addWidget(m_events, 2);
    layout->addLayout(tables, 1);
    m_links = new QLabel(this);
    m_links->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_links->setWordWrap(true);
    layout->addWidget(m_links);
    showSpan(SpanTreeView(), -1);
}

void SpanDetailPanel::showSpan(const SpanTreeView& view, int span) {
    const SpanTreeData* data = view.spans();
    m_tags->setRowCount(0);
    m_events->setRowCount(0);
    if (!data || span < 0 || static_cast<std::size_t>(span) >= data->spans.size()) {
        m_summary->setText(tr("Select a span to see its tags and events."));
        m_links->clear();
        return;
    }
    const SpanShape& s = data->spans[static_cast<std::size_t>(span)];
    // Its id, tags, events and links are read for it alone: the tree holds shapes only.
    const std::optional<SpanRecord> whole = data->record ? data->record(span) : std::nullopt;
    const SpanRecord none;
    const SpanRecord& r = whole ? *whole : none;
    auto timeOf = [](const std::vector<TimeNs>& v, int i) { return static_cast<std::size_t>(i) < v.size() ? v[static_cast<std::size_t>(i)] : kNoTime; };
    const auto [fromUs, toUs] = view.spanUs(span);
    const bool known = static_cast<std::size_t>(span) < data->times.spans.size();  // self and critical time computed
    auto text = [](std::string_view s) {
        return s.empty() ? QStringLiteral("–") : qtext(s).toHtmlEscaped();
    };
    QString html = QStringLiteral("<b>%1</b> &nbsp; %2<br>").arg(text(s.service), text(s.operation));
    html += tr("host %1 &nbsp;·&nbsp; kind %2 &nbsp;·&nbsp; span id %3<br>").arg(text(s.host), text(s.kind), text(r.spanId));
    html += tr("start +%1 &nbsp;·&nbsp; duration %2 &nbsp;·&nbsp; self %3 &nbsp;·&nbsp; critical %4")
                .arg(formatDuration(fromUs), formatDurationNs(s.endNs - s.startNs),
                     formatDurationNs(known ? data->times.spans[static_cast<std::size_t>(span)].selfNs : kNoTime),
                     known ? formatDurationNs(data->times.spans[static_cast<std::size_t>(span)].criticalNs) : tr("not computed"));
    const TimeNs offset = timeOf(data->clockOffsetNs, span);
    if (offset != kNoTime && offset != 0)
        html += QStringLiteral("<br>") + tr("host clock offset %1 (%2)")
                                             .arg(formatDurationNs(offset), view.localClocks() ? tr("not applied: local clocks") : tr("applied"));
    m_summary->setText(html);
    // The span's own tags, then (under a heading, greyed) its process's or resource's, shared by its process's spans.
    m_tags->clearSpans();
    const int own = static_cast<int>(r.attributes.size()), shared = static_cast<int>(r.processAttributes.size());
    m_tags->setRowCount(own + (shared ? shared + 1 : 0));
    for (int i = 0; i < own; ++i) {
        m_tags->setItem(i, 0, item(QString::fromStdString(r.attributes[static_cast<std::size_t>(i)].first)));
        m_tags->setItem(i, 1, item(QString::fromStdString(r.attributes[static_cast<std::size_t>(i)].second)));
    }
    if (shared) {
        auto* heading = item(shared == 1 ? tr("process / resource (1 tag, shared by its process's spans)")
                                         : tr("process / resource (%1 tags, shared by its process's spans)").arg(shared));
        QFont bold = heading->font();
        bold.setBold(true);
        heading->setFont(bold);
        m_tags->setItem(own, 0, heading);
        m_tags->setItem(own, 1, item(QString()));
        m_tags->setSpan(own, 0, 1, 2);
        const QColor grey = palette().color(QPalette::PlaceholderText);
        for (int i = 0; i < shared; ++i) {
            const auto& [k, v] = r.processAttributes[static_cast<std::size_t>(i)];
            for (auto [column, text] : {std::pair{0, k}, {1, v}}) {
                auto* cell = item(QString::fromStdString(text));
                cell->setForeground(grey);
                m_tags->setItem(own + 1 + i, column, cell);
            }
        }
    }
    m_tags->resizeColumnToContents(0);
    m_events->setRowCount(static_cast<int>(r.events.size()));
    for (int i = 0; i < static_cast<int>(r.events.size()); ++i) {
        const auto& e = r.events[static_cast<std::size_t>(i)];
        m_events->setItem(i, 0, item(QStringLiteral("+") + formatDurationNs(e.tsNs - s.startNs)));
        m_events->setItem(i, 1, item(QString::fromStdString(e.name)));
    }
    m_events->resizeColumnToContents(0);
    QStringList links;
    for (const auto& l : r.links) links << QString::fromStdString(l).toHtmlEscaped();
    m_links->setText(links.isEmpty() ? tr("No links") : tr("Links: %1").arg(links.join(QStringLiteral(", "))));
}

QString SpanDetailPanel::summaryText() const {
    QTextDocument doc;
    doc.setHtml(m_summary->text());
    return doc.toPlainText();
}

QString SpanDetailPanel::linksText() const { return m_links->text(); }

} // namespace tracelight::widgets
