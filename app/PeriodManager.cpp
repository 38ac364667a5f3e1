#include "PeriodManager.h"
#include "Session.h"

#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "tracelight/store/RequestTable.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/Periods.h"

namespace tracelight {

namespace {
constexpr const char* kDateTimeFormat = "yyyy-MM-dd HH:mm:ss.zzz";
std::int64_t toNs(const QDateTime& t) { return t.toMSecsSinceEpoch() * 1000000; }
} // namespace

PeriodManager::PeriodManager(const app::Session& session, QWidget* parent) : QDialog(parent), m_session(session) {
    setWindowTitle(tr("Periods"));
    m_table = new QTableWidget(0, 3, this);
    m_table->setHorizontalHeaderLabels({tr("Period"), tr("Requests"), tr("Definition")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);

    auto* renameButton = new QPushButton(tr("&Rename…"), this);
    auto* deleteButton = new QPushButton(tr("&Delete"), this);
    auto* listButtons = new QHBoxLayout;
    listButtons->addWidget(renameButton);
    listButtons->addWidget(deleteButton);
    listButtons->addStretch(1);

    // Defining a period: its name, then a time range or a predicate.
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("name of the new period"));
    m_from = new QDateTimeEdit(this);
    m_to = new QDateTimeEdit(this);
    for (auto* edit : {m_from, m_to}) {
        edit->setTimeSpec(Qt::UTC);
        edit->setDisplayFormat(QString::fromLatin1(kDateTimeFormat));
        edit->setCalendarPopup(true);
    }
    m_where = new QLineEdit(this);
    m_where->setPlaceholderText(tr("ATTR=V, ATTR!=V, ATTR<N, ATTR>N (e.g. connection = 3g, bytes > 1e6)"));
    auto* byTime = new QPushButton(tr("Add by &time range"), this);
    auto* byWhere = new QPushButton(tr("Add by &attribute"), this);
    auto* define = new QGroupBox(tr("Define a period"), this);
    auto* form = new QFormLayout(define);
    form->addRow(tr("Name:"), m_name);
    auto* range = new QHBoxLayout;
    range->addWidget(m_from, 1);
    range->addWidget(new QLabel(tr("to"), this));
    range->addWidget(m_to, 1);
    range->addWidget(byTime);
    form->addRow(tr("Start time (UTC):"), range);
    auto* where = new QHBoxLayout;
    where->addWidget(m_where, 1);
    where->addWidget(byWhere);
    form->addRow(tr("Where:"), where);

    auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("A request may belong to several periods: its import batch and any defined over it."), this));
    layout->addWidget(m_table, 1);
    layout->addLayout(listButtons);
    layout->addWidget(define);
    layout->addWidget(m_message);
    layout->addWidget(close);
    resize(760, 520);

    connect(close, &QDialogButtonBox::rejected, this, &QDialog::accept);
    connect(byTime, &QPushButton::clicked, this, [this] { addByTime(m_name->text(), m_from->dateTime(), m_to->dateTime()); });
    connect(byWhere, &QPushButton::clicked, this, [this] { addWhere(m_name->text(), m_where->text()); });
    connect(m_where, &QLineEdit::returnPressed, this, [this] { addWhere(m_name->text(), m_where->text()); });
    connect(renameButton, &QPushButton::clicked, this, [this] {
        const QString from = selectedName();
        if (from.isEmpty()) return;
        bool ok = false;
        const QString to = QInputDialog::getText(this, tr("Rename period"), tr("New name for %1:").arg(from), QLineEdit::Normal, from, &ok);
        if (ok && to != from) rename(from, to);
    });
    connect(deleteButton, &QPushButton::clicked, this, [this] {
        const QString name = selectedName();
        if (name.isEmpty()) return;
        if (QMessageBox::question(this, tr("Delete period"), tr("Delete the period %1? Its requests stay in the database.").arg(name)) ==
            QMessageBox::Yes)
            remove(name);
    });
    refresh();

    // The time range starts as the data's own: the first and last request start.
    auto store = m_session.reader() ? m_session.reader()() : Result<std::unique_ptr<TraceStore>>(Status::error("no database"));
    if (store) {
        if (auto table = loadRequestTable(*store.value()); table && table->size() > 0) {
            const auto [lo, hi] = std::minmax_element(table->startNs.begin(), table->startNs.end());
            m_from->setDateTime(QDateTime::fromMSecsSinceEpoch(*lo / 1000000, Qt::UTC));
            m_to->setDateTime(QDateTime::fromMSecsSinceEpoch(*hi / 1000000 + 1, Qt::UTC));
        }
    }
}

QString PeriodManager::lastMessage() const { return m_message->text(); }

QString PeriodManager::selectedName() const {
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        m_message->setText(tr("Select a period first."));
        return {};
    }
    return m_table->item(rows.front().row(), 0)->text();
}

void PeriodManager::refresh() {
    m_table->setRowCount(0);
    if (!m_session.isOpen()) return;
    for (const auto& p : listPeriods(*m_session.store())) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(p.name)));
        auto* count = new QTableWidgetItem(QString::number(p.requests));
        count->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, 1, count);
        m_table->setItem(row, 2, new QTableWidgetItem(QString::fromStdString(p.definition)));
    }
    m_table->resizeColumnToContents(0);
}

bool PeriodManager::report(const QString& what, const QString& error) {
    if (!error.isEmpty()) {
        m_message->setText(tr("<span style='color:#b00020'>%1: %2</span>").arg(what, error.toHtmlEscaped()));
        return false;
    }
    m_changed = true;
    m_message->setText(what);
    refresh();
    return true;
}

bool PeriodManager::addByTime(const QString& name, const QDateTime& from, const QDateTime& to) {
    if (name.trimmed().isEmpty()) return report(tr("Add period"), tr("give it a name"));
    std::int64_t added = 0;
    const Status s = m_session.write([&](TraceStore& store) {
        auto n = addPeriodByTime(store, name.trimmed().toStdString(), toNs(from), toNs(to));
        if (n) added = n.value();
        return n.status();
    });
    if (!s) return report(tr("Add period"), QString::fromStdString(s.message()));
    return report(tr("Period %1: %L2 requests started in [%3, %4)")
                      .arg(name.trimmed())
                      .arg(added)
                      .arg(from.toString(QString::fromLatin1(kDateTimeFormat)), to.toString(QString::fromLatin1(kDateTimeFormat))),
                  {});
}

bool PeriodManager::addWhere(const QString& name, const QString& predicate) {
    if (name.trimmed().isEmpty()) return report(tr("Add period"), tr("give it a name"));
    std::int64_t added = 0;
    const Status s = m_session.write([&](TraceStore& store) {
        auto n = addPeriodWhere(store, name.trimmed().toStdString(), predicate.toStdString());
        if (n) added = n.value();
        return n.status();
    });
    if (!s) return report(tr("Add period"), QString::fromStdString(s.message()));
    return report(tr("Period %1: %L2 requests where %3").arg(name.trimmed()).arg(added).arg(predicate), {});
}

bool PeriodManager::rename(const QString& from, const QString& to) {
    if (Status s = m_session.write([&](TraceStore& store) { return renamePeriod(store, from.toStdString(), to.trimmed().toStdString()); }); !s)
        return report(tr("Rename"), QString::fromStdString(s.message()));
    return report(tr("Renamed %1 to %2").arg(from, to.trimmed()), {});
}

bool PeriodManager::remove(const QString& name) {
    if (Status s = m_session.write([&](TraceStore& store) { return deletePeriod(store, name.toStdString()); }); !s)
        return report(tr("Delete"), QString::fromStdString(s.message()));
    return report(tr("Deleted %1").arg(name), {});
}

} // namespace tracelight
