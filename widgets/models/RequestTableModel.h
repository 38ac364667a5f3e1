#pragma once
// The request list: a virtual table over core's RequestTable. Only visible rows are formatted; the
// attributes column is fetched lazily through a callback and cached.
#include <QAbstractTableModel>
#include <QCache>
#include <functional>
#include <memory>

#include "tracelight/store/RequestTable.h"

namespace tracelight::widgets {

class RequestTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Service, Operation, Spans and Errors are for span requests (empty for an event log's).
    enum Column { Name, Period, Start, Latency, Service, Operation, Spans, Errors, Hosts, Events, Attributes, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;   // the raw value behind a cell
    static constexpr int RequestIdRole = Qt::UserRole + 2;

    using AttributeSource = std::function<QString(RequestId)>;

    explicit RequestTableModel(QObject* parent = nullptr);

    // Replaces the whole table (models replace whole results).
    void setTable(std::shared_ptr<const RequestTable> table, AttributeSource attributes);
    const RequestTable* table() const { return m_table.get(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // Shows only the rows whose flag (in table order) is set; an empty vector shows every row. Resets the model.
    void setRowFilter(std::vector<std::uint8_t> keep);
    bool isFiltered() const { return !m_keep.empty(); }
    int totalCount() const { return m_table ? static_cast<int>(m_table->size()) : 0; }

    // Row (in the current sort order) of a request, or -1 (also when filtered out).
    int rowOf(RequestId id) const;
    RequestId requestAt(int row) const;
    // Rows of many requests in one pass (ascending; those not shown are left out).
    std::vector<int> rowsOf(const std::vector<RequestId>& ids) const;

private:
    QString spanLabel(const std::vector<std::uint32_t>& column, std::size_t row) const;  // "" when none
    std::shared_ptr<const RequestTable> m_table;
    void applyFilter();
    std::vector<std::uint32_t> m_sorted;  // every table index in the sort order
    std::vector<std::uint32_t> m_order;   // view row -> table index (m_sorted less the filtered-out rows)
    std::vector<std::uint8_t> m_keep;     // per table index; empty: no filter
    AttributeSource m_attributes;
    mutable QCache<quint32, QString> m_attributeCache{4096};
};

} // namespace tracelight::widgets
