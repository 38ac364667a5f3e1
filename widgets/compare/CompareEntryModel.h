#pragma once
// The ranked entries of a period comparison as a table: rank, kind, category, root, counts and means in
// each period, p-value (and the uncorrected one when Benjamini-Hochberg is on), contribution.
#include <QAbstractTableModel>
#include <memory>

#include "tracelight/compare/PeriodComparison.h"

namespace tracelight::widgets {

class CompareEntryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Contribution (the ranking) comes first after the kind, so it is in view at any width.
    enum Column { Rank, Kind, Contribution, Category, RequestType, BaselineCount, ProblemCount, BaselineMean, ProblemMean, PValue,
                  RawPValue, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;

    void setComparison(std::shared_ptr<const PeriodComparison> comparison);
    const PeriodComparison* comparison() const { return m_comparison.get(); }
    const CompareEntry* entryAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    QString toCsv() const;  // every entry, header row first, numbers unformatted (µs)
    // "structural" or "response time": the kind as the table and the entry's detail name it (the CSV and JSON
    // keep compareKindName's "response_time").
    static QString kindLabel(CompareEntry::Kind kind);

private:
    std::shared_ptr<const PeriodComparison> m_comparison;
};

} // namespace tracelight::widgets
