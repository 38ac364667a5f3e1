#include "models/RequestTableModel.h"

#include <numeric>
#include <unordered_set>

#include "common/TimeFormat.h"

namespace tracelight::widgets {

RequestTableModel::RequestTableModel(QObject* parent) : QAbstractTableModel(parent) {}

QString RequestTableModel::spanLabel(const std::vector<std::uint32_t>& column, std::size_t row) const {
    if (!m_table || row >= column.size() || column[row] >= m_table->spanLabels.size()) return {};
    return QString::fromStdString(m_table->spanLabels[column[row]]);
}

void RequestTableModel::setTable(std::shared_ptr<const RequestTable> table, AttributeSource attributes) {
    beginResetModel();
    m_table = std::move(table);
    m_attributes = std::move(attributes);
    m_attributeCache.clear();
    m_sorted.resize(m_table ? m_table->size() : 0);
    std::iota(m_sorted.begin(), m_sorted.end(), 0u);
    m_keep.clear();  // a filter is over one table; the owner applies it again
    applyFilter();
    endResetModel();
}

void RequestTableModel::setRowFilter(std::vector<std::uint8_t> keep) {
    beginResetModel();
    m_keep = std::move(keep);
    if (m_keep.size() != m_sorted.size()) m_keep.clear();
    applyFilter();
    endResetModel();
}

void RequestTableModel::applyFilter() {
    if (m_keep.empty()) {
        m_order = m_sorted;
        return;
    }
    m_order.clear();
    for (const std::uint32_t i : m_sorted)
        if (m_keep[i]) m_order.push_back(i);
}

int RequestTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_table ? 0 : static_cast<int>(m_order.size());
}

int RequestTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RequestTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !m_table || index.row() >= static_cast<int>(m_order.size())) return {};
    const std::uint32_t i = m_order[static_cast<std::size_t>(index.row())];
    const RequestTable& t = *m_table;
    if (role == RequestIdRole) return QVariant::fromValue(t.ids[i].value);
    if (role == Qt::TextAlignmentRole) {
        const int c = index.column();
        return c == Latency || c == Hosts || c == Events || c == Spans || c == Errors ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                                      : QVariant();
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Name: return QString::fromStdString(t.names[i]);
        case Period: return QString::fromStdString(t.periodNames[t.periodIndex[i]]);
        case Start: return nsToUs(t.startNs[i]);
        case Latency: return nsToUs(t.latencyNs[i]);
        case Hosts: return t.hostCount[i];
        case Events: return t.eventCount[i];
        case Service: return spanLabel(t.service, i);
        case Operation: return spanLabel(t.operation, i);
        case Spans: return i < t.spanCount.size() ? t.spanCount[i] : 0u;
        case Errors: return i < t.errorCount.size() ? t.errorCount[i] : 0;
        default: return {};
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
    case Name: return QString::fromStdString(t.names[i]);
    case Period: return QString::fromStdString(t.periodList(i));  // every period it is in, its batch first
    case Start: return formatTimestampNs(t.startNs[i]);
    case Latency: return formatDurationNs(t.latencyNs[i]);
    case Hosts: return t.hostCount[i];
    case Events: return t.eventCount[i];
    case Service: return spanLabel(t.service, i);
    case Operation: {
        const QString shown = spanLabel(t.operation, i);
        if (role != Qt::ToolTipRole || i >= t.operation.size() || i >= t.entryOperation.size() || t.operation[i] == t.entryOperation[i])
            return shown;
        return tr("%1\nentered through %2 %3; named by its first call, to %4")
            .arg(shown, spanLabel(t.service, i), spanLabel(t.entryOperation, i), spanLabel(t.callService, i));
    }
    case Spans: return i < t.spanCount.size() && t.spanCount[i] ? QVariant(t.spanCount[i]) : QVariant();
    case Errors:
        if (i >= t.errorCount.size() || i >= t.spanCount.size() || !t.spanCount[i]) return {};
        if (t.errorCount[i] < 0) return role == Qt::ToolTipRole ? tr("Not counted: import the traces again to count them") : tr("–");
        return t.errorCount[i];
    case Attributes: {
        if (!m_attributes) return {};
        const quint32 key = t.ids[i].value;
        if (QString* cached = m_attributeCache.object(key)) return *cached;
        auto* text = new QString(m_attributes(t.ids[i]));
        const QString copy = *text;
        m_attributeCache.insert(key, text);
        return copy;
    }
    default: return {};
    }
}

QVariant RequestTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole && section == Operation)
        return tr("The request's entry operation, or, when one entry fronts nearly every request, the first call it made");
    if (role == Qt::ToolTipRole && section == Errors)
        return tr("Spans that recorded a failure: an error tag, an OpenTelemetry ERROR status or an HTTP status of 500 or more");
    if (role == Qt::ToolTipRole && section == Latency)
        return m_table && m_table->skewCorrected
                   ? tr("End-to-end latency after clock-skew correction")
                   : tr("Latency on the origin host's own clock (not yet skew-corrected)");
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case Name: return tr("Request");
    case Period: return tr("Period");
    case Start: return tr("Start (UTC)");
    case Latency: return tr("Latency");
    case Hosts: return tr("Hosts");
    case Events: return tr("Events");
    case Service: return tr("Service");
    case Operation: return tr("Operation");
    case Spans: return tr("Spans");
    case Errors: return tr("Errors");
    case Attributes: return tr("Attributes");
    default: return {};
    }
}

void RequestTableModel::sort(int column, Qt::SortOrder order) {
    if (!m_table || column == Attributes || column < 0 || column >= ColumnCount) return;
    static constexpr RequestColumn kColumns[] = {RequestColumn::Name,      RequestColumn::Period, RequestColumn::Start,
                                                 RequestColumn::Latency,   RequestColumn::Service, RequestColumn::Operation,
                                                 RequestColumn::Spans,     RequestColumn::Errors, RequestColumn::Hosts,
                                                 RequestColumn::Events};
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<std::uint32_t> tableIndexBefore;
    for (const auto& idx : before) tableIndexBefore.push_back(m_order[static_cast<std::size_t>(idx.row())]);
    m_sorted = sortedOrder(*m_table, kColumns[column], order == Qt::DescendingOrder);
    applyFilter();
    std::vector<int> rowOfIndex(m_sorted.size(), -1);
    for (std::size_t r = 0; r < m_order.size(); ++r) rowOfIndex[m_order[r]] = static_cast<int>(r);
    QModelIndexList after;
    for (int k = 0; k < before.size(); ++k) after.push_back(this->index(rowOfIndex[tableIndexBefore[k]], before[k].column()));
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

int RequestTableModel::rowOf(RequestId id) const {
    if (!m_table) return -1;
    for (std::size_t r = 0; r < m_order.size(); ++r)
        if (m_table->ids[m_order[r]] == id) return static_cast<int>(r);
    return -1;
}

std::vector<int> RequestTableModel::rowsOf(const std::vector<RequestId>& ids) const {
    std::vector<int> rows;
    if (!m_table || ids.empty()) return rows;
    std::unordered_set<std::uint32_t> wanted;
    wanted.reserve(ids.size());
    for (const RequestId id : ids) wanted.insert(id.value);
    for (std::size_t r = 0; r < m_order.size(); ++r)
        if (wanted.count(m_table->ids[m_order[r]].value)) rows.push_back(static_cast<int>(r));
    return rows;
}

RequestId RequestTableModel::requestAt(int row) const {
    if (!m_table || row < 0 || row >= static_cast<int>(m_order.size())) return {};
    return m_table->ids[m_order[static_cast<std::size_t>(row)]];
}

} // namespace tracelight::widgets
