#include "BottleneckRulesEditor.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "tracelight/base/Json.h"

namespace tracelight::app {

namespace {
const QStringList kKinds = {QString(), QStringLiteral("client"), QStringLiteral("server"), QStringLiteral("producer"),
                            QStringLiteral("consumer"), QStringLiteral("internal")};

QString cellText(const QTableWidget* table, int row, int column) {
    const QTableWidgetItem* item = table->item(row, column);
    return item ? item->text().trimmed() : QString();
}
} // namespace

BottleneckRulesEditor::BottleneckRulesEditor(const BottleneckRules& rules, QWidget* parent) : QDialog(parent), m_rules(rules) {
    setWindowTitle(tr("Bottleneck types"));
    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setHorizontalHeaderLabels({tr("Type"), tr("How to fix"), tr("Host"), tr("Service"), tr("Task"), tr("Event"), tr("Span kind")});
    m_table->horizontalHeader()->setSectionResizeMode(HowToFixColumn, QHeaderView::Stretch);
    m_table->verticalHeader()->setVisible(false);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    for (int c = HostColumn; c <= EventColumn; ++c)
        m_table->horizontalHeaderItem(c)->setToolTip(tr("A regular expression searched in the %1; empty: any")
                                                         .arg(m_table->horizontalHeaderItem(c)->text().toLower()));
    for (const auto& r : rules.rules()) addRow(r);

    auto* add = new QPushButton(tr("&Add"), this);
    auto* remove = new QPushButton(tr("&Remove"), this);
    auto* up = new QPushButton(tr("Move &up"), this);
    auto* down = new QPushButton(tr("Move &down"), this);
    auto* clearAll = new QPushButton(tr("&Clear (defaults)"), this);
    clearAll->setToolTip(tr("No rules: one type per service (spans) or per category (event logs)"));
    connect(add, &QPushButton::clicked, this, [this] {
        addRow({"Ads calls", "Ads calls should not block the calls that follow them", "", "^ads", "", "", ""});
        m_table->setCurrentCell(m_table->rowCount() - 1, TypeColumn);
    });
    connect(remove, &QPushButton::clicked, this, [this] { m_table->removeRow(m_table->currentRow()); });
    connect(up, &QPushButton::clicked, this, [this] { moveCurrentRow(-1); });
    connect(down, &QPushButton::clicked, this, [this] { moveCurrentRow(+1); });
    connect(clearAll, &QPushButton::clicked, this, [this] { m_table->setRowCount(0); });
    auto* rowButtons = new QHBoxLayout;
    for (QPushButton* b : {add, remove, up, down, clearAll}) rowButtons->addWidget(b);
    rowButtons->addStretch(1);

    m_error = new QLabel(this);
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->setWordWrap(true);
    m_error->hide();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &BottleneckRulesEditor::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("The first matching row names what a span (its own time) or a segment is charged to, and "
                                    "says how to fix it. Every pattern given must match; a span's event is its operation, a "
                                    "segment's either of its events. Unmatched: one type per service (spans) or per category "
                                    "(event logs); time with nothing active is \"gaps\"."),
                                 this));
    layout->itemAt(0)->widget()->setProperty("wordWrap", true);
    layout->addWidget(m_table, 1);
    layout->addLayout(rowButtons);
    layout->addWidget(m_error);
    layout->addWidget(buttons);
    resize(900, 380);
}

void BottleneckRulesEditor::addRow(const BottleneckRule& rule) {
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    const std::string* texts[] = {&rule.type, &rule.howToFix, &rule.host, &rule.service, &rule.task, &rule.event};
    for (int c = TypeColumn; c <= EventColumn; ++c)
        m_table->setItem(row, c, new QTableWidgetItem(QString::fromStdString(*texts[c])));
    auto* kind = new QComboBox(m_table);
    kind->addItems(kKinds);
    kind->setItemText(0, tr("any"));
    kind->setCurrentIndex(std::max(0, static_cast<int>(kKinds.indexOf(QString::fromStdString(rule.kind)))));
    m_table->setCellWidget(row, KindColumn, kind);
}

void BottleneckRulesEditor::moveCurrentRow(int by) {
    const int row = m_table->currentRow(), to = row + by;
    if (row < 0 || to < 0 || to >= m_table->rowCount()) return;
    for (int c = TypeColumn; c <= EventColumn; ++c) {
        QTableWidgetItem* a = m_table->takeItem(row, c);
        QTableWidgetItem* b = m_table->takeItem(to, c);
        m_table->setItem(row, c, b);
        m_table->setItem(to, c, a);
    }
    auto* ka = qobject_cast<QComboBox*>(m_table->cellWidget(row, KindColumn));
    auto* kb = qobject_cast<QComboBox*>(m_table->cellWidget(to, KindColumn));
    if (ka && kb) {
        const int swap = ka->currentIndex();
        ka->setCurrentIndex(kb->currentIndex());
        kb->setCurrentIndex(swap);
    }
    m_table->setCurrentCell(to, m_table->currentColumn());
}


void BottleneckRulesEditor::accept() {
    // Through the rules' own parser, so a missing type or a bad pattern is reported before anything is saved.
    JsonWriter w;
    w.beginArray();
    for (int row = 0; row < m_table->rowCount(); ++row) {
        w.beginObject().key("type").value(cellText(m_table, row, TypeColumn).toStdString());
        if (const QString fix = cellText(m_table, row, HowToFixColumn); !fix.isEmpty()) w.key("how_to_fix").value(fix.toStdString());
        const char* keys[] = {"host", "service", "task", "event"};
        for (int c = HostColumn; c <= EventColumn; ++c)
            if (const QString pattern = cellText(m_table, row, c); !pattern.isEmpty()) w.key(keys[c - HostColumn]).value(pattern.toStdString());
        if (auto* kind = qobject_cast<QComboBox*>(m_table->cellWidget(row, KindColumn)); kind && kind->currentIndex() > 0)
            w.key("kind").value(kKinds[kind->currentIndex()].toStdString());
        w.endObject();
    }
    w.endArray();
    auto parsed = BottleneckRules::fromJson(w.text());
    if (!parsed) {
        m_lastError = QString::fromStdString(parsed.message());
        m_error->setText(m_lastError);
        m_error->show();
        return;
    }
    m_lastError.clear();
    m_error->hide();
    m_rules = std::move(parsed.value());
    QDialog::accept();
}

} // namespace tracelight::app
