#include "models/ClockAdjustmentsModel.h"

#include <algorithm>
#include <numeric>

#include "common/TimeFormat.h"

namespace tracelight::widgets {

ClockAdjustmentsModel::ClockAdjustmentsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ClockAdjustmentsModel::setAdjustments(std::vector<ClockAdjustment> adjustments) {
    beginResetModel();
    m_rows = std::move(adjustments);
    m_sorted.resize(m_rows.size());
    std::iota(m_sorted.begin(), m_sorted.end(), 0u);
    rebuildOrder();
    endResetModel();
    sort(m_sortColumn, m_sortOrder);
}

void ClockAdjustmentsModel::setHostFilter(const QString& text) {
    beginResetModel();
    m_filter = text.trimmed();
    rebuildOrder();
    endResetModel();
}

int ClockAdjustmentsModel::appliedCount() const {
    return static_cast<int>(std::count_if(m_rows.begin(), m_rows.end(), [](const ClockAdjustment& a) { return a.applied; }));
}

void ClockAdjustmentsModel::rebuildOrder() {
    if (m_filter.isEmpty()) {
        m_order = m_sorted;
        return;
    }
    const QByteArray needle = m_filter.toLower().toUtf8();
    auto contains = [&](const std::string& host) {
        return std::search(host.begin(), host.end(), needle.begin(), needle.end(),
                           [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }) != host.end();
    };
    m_order.clear();
    for (const std::uint32_t i : m_sorted)
        if (contains(m_rows[i].client) || contains(m_rows[i].server)) m_order.push_back(i);
}

int ClockAdjustmentsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_order.size()); }
int ClockAdjustmentsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ClockAdjustmentsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const ClockAdjustment& a = adjustmentAt(index.row());
    if (role == SortRole) {
        switch (index.column()) {
        case Client: return QString::fromStdString(a.client);
        case Server: return QString::fromStdString(a.server);
        case Rule: return QString::fromStdString(a.rule);
        case Applied: return a.applied;
        case Offset: return static_cast<qlonglong>(a.offsetNs);
        case LowestRtt: return static_cast<qlonglong>(a.rttNs);
        case RoundTrips: return static_cast<qlonglong>(a.roundTrips);
        case Outside: return static_cast<qlonglong>(a.outside);
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Offset) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Rule) {
        if (a.rule == "min-rtt") return tr("Event logs: the lowest-RTT round trip puts the server's first event RTT/2 after the send");
        if (a.rule == "fits") return tr("Every server lay inside its client: the recorded clocks are kept");
        if (a.rule == "child-outside-parent") return tr("A server lay outside its client: centred in it, the latency split evenly");
        if (a.rule == "confirmed-pair") return tr("Ten or more round trips agree on one offset that excludes 0");
        if (a.rule == "inconsistent") return tr("Some servers lay outside, but no one offset fits every round trip: clocks kept");
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Client: return QString::fromStdString(a.client);
    case Server: return QString::fromStdString(a.server);
    case Rule: return QString::fromStdString(a.rule);
    case Applied: return a.applied ? tr("applied") : tr("kept");
    case Offset: return (a.offsetNs > 0 ? QStringLiteral("+") : a.offsetNs < 0 ? QStringLiteral("−") : QString()) + formatDurationNs(std::abs(a.offsetNs));
    case LowestRtt: return formatDurationNs(a.rttNs);
    case RoundTrips: return QString::number(a.roundTrips);
    case Outside: return QString::number(a.outside);
    }
    return {};
}

QVariant ClockAdjustmentsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Offset: return tr("clock(server) − clock(client) as decided; 0 where the recorded clocks are kept");
        case LowestRtt: return tr("the pair's fastest round trip: client interval minus the server's");
        case Outside: return tr("round trips whose server lay outside its client on the recorded clocks");
        }
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    static const char* const names[] = {"Client", "Server", "Rule", "Clocks", "Offset", "Lowest RTT", "Round trips", "Outside"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

void ClockAdjustmentsModel::sort(int column, Qt::SortOrder order) {
    if (column < 0 || column >= ColumnCount) return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    // The selection and the current row follow their host pair to its new row.
    const QModelIndexList before = persistentIndexList();
    std::vector<std::uint32_t> pairOf;
    for (const QModelIndex& index : before) pairOf.push_back(m_order[static_cast<std::size_t>(index.row())]);
    m_sortColumn = column;
    m_sortOrder = order;
    auto key = [&](const ClockAdjustment& a) -> std::tuple<std::int64_t, const std::string*> {
        switch (column) {
        case Client: return {0, &a.client};
        case Server: return {0, &a.server};
        case Rule: return {0, &a.rule};
        case Applied: return {a.applied, nullptr};
        case Offset: return {a.offsetNs, nullptr};
        case LowestRtt: return {a.rttNs, nullptr};
        case RoundTrips: return {a.roundTrips, nullptr};
        default: return {a.outside, nullptr};
        }
    };
    // Ties keep the stored (client, server) order, whichever way the column sorts.
    std::stable_sort(m_sorted.begin(), m_sorted.end(), [&](std::uint32_t x, std::uint32_t y) {
        const auto [nx, sx] = key(m_rows[x]);
        const auto [ny, sy] = key(m_rows[y]);
        const int c = sx ? sx->compare(*sy) : (nx < ny ? -1 : nx > ny ? 1 : 0);
        return order == Qt::AscendingOrder ? c < 0 : c > 0;
    });
    rebuildOrder();
    std::vector<int> rowOfPair(m_rows.size(), -1);
    for (std::size_t row = 0; row < m_order.size(); ++row) rowOfPair[m_order[row]] = static_cast<int>(row);
    QModelIndexList after;
    for (qsizetype i = 0; i < before.size(); ++i) after << index(rowOfPair[pairOf[static_cast<std::size_t>(i)]], before[i].column());
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

} // namespace tracelight::widgets
