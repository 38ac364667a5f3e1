#pragma once
// The request list as a person works with it: a search box (Ctrl+F) over the table, a period filter,
// "show only selected", and one selection that keyboard navigation moves and that is the request shown.
#include <QTableView>
#include <QWidget>
#include <vector>

#include "tracelight/base/Ids.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace tracelight::widgets {

class RequestTableModel;

// Keyboard navigation (arrows with or without Ctrl, Page Up/Down, Home/End) always moves the one
// selection with the current row; only Shift extends it. (Ctrl+arrows used to move the current row
// alone, leaving highlighted rows that were not the request shown.)
class RequestTableView : public QTableView {
    Q_OBJECT
public:
    using QTableView::QTableView;

protected:
    QItemSelectionModel::SelectionFlags selectionCommand(const QModelIndex& index, const QEvent* event) const override;
};

class RequestTablePanel : public QWidget {
    Q_OBJECT
public:
    explicit RequestTablePanel(RequestTableModel* model, QWidget* parent = nullptr);

    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    QComboBox* periodFilter() const { return m_period; }
    QCheckBox* onlySelected() const { return m_onlySelected; }
    QLabel* message() const { return m_message; }

    void focusFilter();  // the window's Ctrl+F
    QString filterText() const;
    void setFilterText(const QString& text);

    // After the model got a new table: periods refilled, the filter applied again, the current request
    // kept (by id) when it is still there, else the first row.
    void tableReplaced();
    // One request selected, current and scrolled into view (false when it is not shown).
    bool selectRequest(RequestId id);
    // Many requests selected (brushing); with "show only selected" on, they become the rows shown.
    void selectRequests(const std::vector<RequestId>& ids);
    RequestId currentRequest() const;
    std::vector<RequestId> selectedIds() const;  // sorted, at most kMaxSelection
    // The requests listed (period, filter, only selected), sorted; empty when nothing narrows the table.
    std::vector<RequestId> listedIds() const;
    bool isNarrowed() const;
    // What narrows it, for the views that cover the listed requests: "period fault · latency>1s: 120 of 1,290 requests".
    QString listedText() const;
    // Another database: its request ids are not the last one's.
    void forgetShown() {
        m_shown = RequestId();
        m_shownName.clear();
    }

signals:
    void currentRequestChanged(RequestId id);  // the request to show; once per change
    void filterTextChanged(const QString& text);
    void selectionChanged();  // the set of selected requests (selectedIds)
    void listedChanged();     // the filter was applied again (the listed requests may differ)

private:
    void applyFilter();
    void restoreSelection(RequestId current, const std::vector<RequestId>& selected);
    void emitCurrent();

    RequestTableModel* m_model;
    RequestTableView* m_view;
    QLineEdit* m_filter;
    QComboBox* m_period;
    QCheckBox* m_onlySelected;
    QLabel* m_message;
    std::vector<RequestId> m_only;  // "show only selected": these requests
    RequestId m_shown;              // the last current request announced
    std::string m_shownName;        // its name: a request stored again under a new id (a live capture's) is still it
};

} // namespace tracelight::widgets
