#pragma once
// Analysis › Clock Adjustments: what clock-skew correction decided for each host pair (offset, lowest
// round trip, round trips, how many had the server outside its client, the rule that fired, applied or
// kept), as a table that sorts by any column and filters by host name. Hundreds of thousands of pairs
// (a client host per page load) sort and filter through an index, not by moving the rows.
#include <QAbstractTableModel>
#include <vector>

#include "tracelight/analysis/ClockAdjustments.h"

namespace tracelight::widgets {

class ClockAdjustmentsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Client, Server, Rule, Applied, Offset, LowestRtt, RoundTrips, Outside, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;  // the raw value behind a cell

    explicit ClockAdjustmentsModel(QObject* parent = nullptr);

    // Replaces every row; the sort and filter stay.
    void setAdjustments(std::vector<ClockAdjustment> adjustments);
    // Rows whose client or server contains text (case-insensitive); empty: every row.
    void setHostFilter(const QString& text);
    const ClockAdjustment& adjustmentAt(int row) const { return m_rows[m_order[static_cast<std::size_t>(row)]]; }
    int totalCount() const { return static_cast<int>(m_rows.size()); }
    int appliedCount() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    void rebuildOrder();  // m_order from m_sorted and the filter
    std::vector<ClockAdjustment> m_rows;
    std::vector<std::uint32_t> m_sorted;  // every row in the sort order
    std::vector<std::uint32_t> m_order;   // view row -> row (m_sorted less the filtered-out rows)
    QString m_filter;
    int m_sortColumn = RoundTrips;
    Qt::SortOrder m_sortOrder = Qt::DescendingOrder;
};

} // namespace tracelight::widgets
