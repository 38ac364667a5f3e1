#pragma once
// Analysis › Bottleneck types…: the BOSS rules that name what a person is told to fix. Each row maps spans
// or segments to a type with a "how to fix" text by host, service, task and event patterns (regular
// expressions) and a span kind; the first matching row wins; with no rows, span data gets one type per
// service and event logs one per category. Checked by the rules' own parser before it closes.
#include <QDialog>

#include "tracelight/bottleneck/BottleneckRules.h"

class QLabel;
class QTableWidget;

namespace tracelight::app {

class BottleneckRulesEditor : public QDialog {
    Q_OBJECT
public:
    BottleneckRulesEditor(const BottleneckRules& rules, QWidget* parent = nullptr);
    const BottleneckRules& rules() const { return m_rules; }

    QTableWidget* table() const { return m_table; }
    QString lastError() const { return m_lastError; }  // why the last OK was refused, or empty

    enum Column { TypeColumn = 0, HowToFixColumn, HostColumn, ServiceColumn, TaskColumn, EventColumn, KindColumn, ColumnCount };

    void accept() override;

private:
    void addRow(const BottleneckRule& rule);
    void moveCurrentRow(int by);

    QTableWidget* m_table;
    QLabel* m_error;
    QString m_lastError;
    BottleneckRules m_rules;
};

} // namespace tracelight::app
