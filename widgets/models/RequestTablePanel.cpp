#include "models/RequestTablePanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>
#include <algorithm>

#include "models/RequestFilter.h"
#include "models/RequestTableModel.h"
#include "common/HoverText.h"

namespace tracelight::widgets {

namespace {
constexpr std::size_t kMaxSelection = 20000;  // a selection that large is only a count to a person
}

QItemSelectionModel::SelectionFlags RequestTableView::selectionCommand(const QModelIndex& index, const QEvent* event) const {
    if (event && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<const QKeyEvent*>(event);
        switch (key->key()) {
        case Qt::Key_Up:
        case Qt::Key_Down:
        case Qt::Key_PageUp:
        case Qt::Key_PageDown:
        case Qt::Key_Home:
        case Qt::Key_End:
            if (!(key->modifiers() & Qt::ShiftModifier)) return QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows;
            break;
        default: break;
        }
    }
    return QTableView::selectionCommand(index, event);
}

RequestTablePanel::RequestTablePanel(RequestTableModel* model, QWidget* parent) : QWidget(parent), m_model(model) {
    m_filter = new QLineEdit(this);
    m_filter->setClearButtonEnabled(true);
    m_filter->setPlaceholderText(tr("Filter (Ctrl+F): name or id, attr=value, latency>250ms, 100ms..2s, period:NAME"));
    m_filter->setToolTip(tr("Terms separated by spaces, all of which a request must meet:\n"
                            "  checkout — part of the request's name, or its id\n"
                            "  browser=Chrome, browser!=Chrome — a request attribute\n"
                            "  latency>250ms, latency<=1s — latency bounds (ns, us, ms, s, min)\n"
                            "  100ms..2s — a latency range\n"
                            "  period:baseline — one period"));
    m_period = new QComboBox(this);
    m_period->setToolTip(tr("Show the requests of one period"));
    keepComboNarrow(m_period, 16);
    m_period->addItem(tr("All periods"));
    m_onlySelected = new QCheckBox(tr("Only selected"), this);
    m_onlySelected->setToolTip(tr("Show only the selected requests (select rows, or brush in the slack scatter)"));
    m_message = new QLabel(this);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setVisible(false);

    m_view = new RequestTableView(this);
    m_view->setModel(model);
    m_view->setSortingEnabled(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_period);
    bar->addWidget(m_onlySelected);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(m_message);
    layout->addWidget(m_view, 1);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        applyFilter();
        emit filterTextChanged(text);
    });
    connect(m_period, &QComboBox::currentIndexChanged, this, [this] { applyFilter(); });
    connect(m_onlySelected, &QCheckBox::toggled, this, [this](bool on) {
        m_only.clear();
        if (on) {
            m_only = selectedIds();
            if (m_only.empty()) {
                const QSignalBlocker block(m_onlySelected);
                m_onlySelected->setChecked(false);
                m_message->setText(tr("Select requests first (rows, or a brush in the slack scatter)."));
                m_message->setStyleSheet(QString());
                m_message->setVisible(true);
                return;
            }
            std::sort(m_only.begin(), m_only.end());
        }
        applyFilter();
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { emitCurrent(); });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RequestTablePanel::selectionChanged);
    // Sorting keeps the selection (persistent indexes); keep it in view as well.
    connect(model, &QAbstractItemModel::layoutChanged, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        if (current.isValid()) m_view->scrollTo(current, QAbstractItemView::PositionAtCenter);
    });
}

void RequestTablePanel::focusFilter() {
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

QString RequestTablePanel::filterText() const { return m_filter->text(); }

void RequestTablePanel::setFilterText(const QString& text) { m_filter->setText(text); }

RequestId RequestTablePanel::currentRequest() const {
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? m_model->requestAt(current.row()) : RequestId();
}

std::vector<RequestId> RequestTablePanel::selectedIds() const {
    std::vector<RequestId> ids;
    const QItemSelection selection = m_view->selectionModel()->selection();
    for (const QItemSelectionRange& range : selection) {
        for (int row = range.top(); row <= range.bottom() && ids.size() < kMaxSelection; ++row) ids.push_back(m_model->requestAt(row));
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

void RequestTablePanel::emitCurrent() {
    const RequestId id = currentRequest();
    if (!id.isValid() || id == m_shown) return;
    m_shown = id;
    const RequestTable* table = m_model->table();
    const auto at = table ? std::lower_bound(table->ids.begin(), table->ids.end(), id) : std::vector<RequestId>::const_iterator();
    m_shownName = table && at != table->ids.end() && *at == id ? table->names[static_cast<std::size_t>(at - table->ids.begin())] : std::string();
    emit currentRequestChanged(id);
}

void RequestTablePanel::tableReplaced() {
    const QString period = m_period->currentIndex() > 0 ? m_period->currentText() : QString();
    {
        const QSignalBlocker block(m_period);
        m_period->clear();
        m_period->addItem(tr("All periods"));
        if (const RequestTable* table = m_model->table())
            for (const auto& name : table->periodNames) m_period->addItem(QString::fromStdString(name));
        const int again = period.isEmpty() ? 0 : m_period->findText(period);
        m_period->setCurrentIndex(std::max(again, 0));
        m_period->setVisible(m_period->count() > 2);  // one period: nothing to choose
    }
    RequestId keep = m_shown;
    if (const RequestTable* table = m_model->table(); table && keep.isValid() && !m_shownName.empty() &&
                                                       !std::binary_search(table->ids.begin(), table->ids.end(), keep)) {
        // Stored again under another id (a live capture replaces a trace a late span reached): the same request.
        const auto same = std::find(table->names.begin(), table->names.end(), m_shownName);
        keep = same == table->names.end() ? RequestId() : table->ids[static_cast<std::size_t>(same - table->names.begin())];
        m_view->setCurrentIndex({});
        m_shown = RequestId();
        if (keep.isValid()) selectRequest(keep);
    }
    applyFilter();
    if (m_model->rowCount() > 0 && !m_view->currentIndex().isValid()) {
        if (!keep.isValid() || !selectRequest(keep)) selectRequest(m_model->requestAt(0));
    }
}

void RequestTablePanel::applyFilter() {
    const RequestTable* table = m_model->table();
    const RequestId current = currentRequest().isValid() ? currentRequest() : m_shown;
    const std::vector<RequestId> selected = selectedIds();

    QString error;
    const RequestFilter filter = RequestFilter::parse(m_filter->text(), &error);
    std::vector<std::uint8_t> keep;
    if (table && error.isEmpty()) {
        if (!filter.isEmpty()) keep = filter.match(*table, &error);
        const int period = m_period->currentIndex() - 1;
        if (period >= 0 || !m_only.empty()) {
            if (keep.empty()) keep.assign(table->size(), 1);
            for (std::size_t i = 0; i < table->size(); ++i) {
                if (period >= 0 && !table->inPeriod(i, static_cast<std::uint32_t>(period))) keep[i] = 0;
                if (!m_only.empty() && !std::binary_search(m_only.begin(), m_only.end(), table->ids[i])) keep[i] = 0;
            }
        }
    }
    if (!error.isEmpty()) {
        // The table keeps what the last good filter showed; the line under the box says what is wrong.
        m_message->setText(tr("Filter: %1").arg(error));
        m_message->setStyleSheet(QStringLiteral("color: #b00020;"));
        m_message->setVisible(true);
        return;
    }
    m_model->setRowFilter(std::move(keep));
    if (m_model->isFiltered()) {
        m_message->setText(tr("%L1 of %L2 requests").arg(m_model->rowCount()).arg(m_model->totalCount()));
        m_message->setStyleSheet(QString());
        m_message->setVisible(true);
    } else {
        m_message->setVisible(false);
    }
    restoreSelection(current, selected);
    emit listedChanged();
}

bool RequestTablePanel::isNarrowed() const { return m_model->isFiltered(); }

std::vector<RequestId> RequestTablePanel::listedIds() const {
    std::vector<RequestId> ids;
    if (!m_model->isFiltered()) return ids;
    const int rows = m_model->rowCount();
    ids.reserve(static_cast<std::size_t>(rows));
    for (int r = 0; r < rows; ++r) ids.push_back(m_model->requestAt(r));
    std::sort(ids.begin(), ids.end());
    return ids;
}

QString RequestTablePanel::listedText() const {
    QStringList parts;
    if (m_period->currentIndex() > 0) parts << tr("period %1").arg(m_period->currentText());
    if (const QString text = m_filter->text().trimmed(); !text.isEmpty()) parts << text;
    if (!m_only.empty()) parts << tr("only selected");
    if (!m_model->isFiltered()) return m_model->totalCount() == 1 ? tr("the only request") : tr("all %L1 requests").arg(m_model->totalCount());
    return tr("%1: %L2 of %L3 requests").arg(parts.join(QStringLiteral(" · "))).arg(m_model->rowCount()).arg(m_model->totalCount());
}

void RequestTablePanel::restoreSelection(RequestId current, const std::vector<RequestId>& selected) {
    if (m_model->rowCount() == 0) return;
    const std::vector<int> rows = m_model->rowsOf(selected);
    const int currentRow = current.isValid() ? m_model->rowOf(current) : -1;
    if (currentRow < 0) {
        // The request shown is gone from the list: the first row becomes the one selected and shown.
        selectRequest(m_model->requestAt(0));
        return;
    }
    QItemSelection selection;
    for (std::size_t i = 0; i < rows.size();) {
        std::size_t j = i;
        while (j + 1 < rows.size() && rows[j + 1] == rows[j] + 1) ++j;
        selection.select(m_model->index(rows[i], 0), m_model->index(rows[j], RequestTableModel::ColumnCount - 1));
        i = j + 1;
    }
    m_view->selectionModel()->setCurrentIndex(m_model->index(currentRow, 0), QItemSelectionModel::NoUpdate);
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    if (rows.empty()) m_view->selectionModel()->select(m_model->index(currentRow, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    m_view->scrollTo(m_model->index(currentRow, 0), QAbstractItemView::PositionAtCenter);
}

bool RequestTablePanel::selectRequest(RequestId id) {
    const int row = id.isValid() ? m_model->rowOf(id) : -1;
    if (row < 0) return false;
    m_view->selectionModel()->setCurrentIndex(m_model->index(row, 0),
                                              QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(m_model->index(row, 0), QAbstractItemView::PositionAtCenter);
    return true;
}

void RequestTablePanel::selectRequests(const std::vector<RequestId>& ids) {
    if (m_onlySelected->isChecked()) {
        m_only.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), kMaxSelection)));
        std::sort(m_only.begin(), m_only.end());
        if (m_only.empty()) {
            const QSignalBlocker block(m_onlySelected);
            m_onlySelected->setChecked(false);
        }
        applyFilter();
    }
    std::vector<RequestId> limited(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), kMaxSelection)));
    const std::vector<int> rows = m_model->rowsOf(limited);
    if (rows.empty()) return;
    QItemSelection selection;
    for (std::size_t i = 0; i < rows.size();) {
        std::size_t j = i;
        while (j + 1 < rows.size() && rows[j + 1] == rows[j] + 1) ++j;
        selection.select(m_model->index(rows[i], 0), m_model->index(rows[j], RequestTableModel::ColumnCount - 1));
        i = j + 1;
    }
    // The first brushed row becomes current (and so the request shown), inside the selection.
    m_view->selectionModel()->setCurrentIndex(m_model->index(rows.front(), 0), QItemSelectionModel::NoUpdate);
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    m_view->scrollTo(m_model->index(rows.front(), 0));
}

} // namespace tracelight::widgets
