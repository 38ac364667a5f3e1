#pragma once
// A small editor for the category rules: each row maps segment types to a category by network,
// host, task or event (a regular expression); the first matching row wins, unmatched types fall back
// to their host's role.
#include <QDialog>

#include "tracelight/studies/Categories.h"

class QTableWidget;

namespace tracelight::app {

class CategoryEditor : public QDialog {
    Q_OBJECT
public:
    CategoryEditor(const CategoryRules& rules, QWidget* parent = nullptr);
    CategoryRules rules() const { return m_rules; }

private:
    void addRow(const CategoryRule& rule);
    void accept() override;

    QTableWidget* m_table;
    CategoryRules m_rules;
};

} // namespace tracelight::app
