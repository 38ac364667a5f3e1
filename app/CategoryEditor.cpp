#include "CategoryEditor.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "tracelight/base/Json.h"

namespace tracelight::app {

namespace {
const QStringList kFields = {QStringLiteral("network"), QStringLiteral("host"), QStringLiteral("task"), QStringLiteral("event")};
}

CategoryEditor::CategoryEditor(const CategoryRules& rules, QWidget* parent) : QDialog(parent), m_rules(rules) {
    setWindowTitle(tr("Categories"));
    m_table = new QTableWidget(0, 3, this);
    m_table->setHorizontalHeaderLabels({tr("Category"), tr("Matches"), tr("Pattern (regular expression)")});
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_table->verticalHeader()->setVisible(false);
    for (const auto& r : rules.rules()) addRow(r);
    auto* add = new QPushButton(tr("Add"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    auto* defaults = new QPushButton(tr("Defaults"), this);
    connect(add, &QPushButton::clicked, this, [this] { addRow({"server", CategoryRule::Field::Host, "^(web|api)"}); });
    connect(remove, &QPushButton::clicked, this, [this] { m_table->removeRow(m_table->currentRow()); });
    connect(defaults, &QPushButton::clicked, this, [this] {
        m_table->setRowCount(0);
        const CategoryRules defaults = CategoryRules::defaults();  // named: rules() refers into it
        for (const auto& r : defaults.rules()) addRow(r);
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &CategoryEditor::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* rowButtons = new QHBoxLayout;
    rowButtons->addWidget(add);
    rowButtons->addWidget(remove);
    rowButtons->addWidget(defaults);
    rowButtons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("The first matching rule names a segment type's category; types no rule matches are named "
                                    "after the role of their host (web-8 → web)."),
                                 this));
    layout->addWidget(m_table, 1);
    layout->addLayout(rowButtons);
    layout->addWidget(buttons);
    resize(640, 360);
}

void CategoryEditor::addRow(const CategoryRule& rule) {
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(rule.category)));
    auto* field = new QComboBox(m_table);
    field->addItems(kFields);
    field->setCurrentIndex(static_cast<int>(rule.field == CategoryRule::Field::Network ? 0
                                            : rule.field == CategoryRule::Field::Host  ? 1
                                            : rule.field == CategoryRule::Field::Task  ? 2
                                                                                       : 3));
    m_table->setCellWidget(row, 1, field);
    m_table->setItem(row, 2, new QTableWidgetItem(QString::fromStdString(rule.pattern)));
}

void CategoryEditor::accept() {
    // Through the rules' own parser, so a bad pattern is reported before anything is saved.
    JsonWriter w;
    w.beginArray();
    for (int row = 0; row < m_table->rowCount(); ++row) {
        auto* field = qobject_cast<QComboBox*>(m_table->cellWidget(row, 1));
        w.beginObject()
            .key("category").value(m_table->item(row, 0) ? m_table->item(row, 0)->text().trimmed().toStdString() : std::string())
            .key("field").value(field ? field->currentText().toStdString() : std::string("host"))
            .key("pattern").value(m_table->item(row, 2) ? m_table->item(row, 2)->text().toStdString() : std::string())
            .endObject();
    }
    w.endArray();
    auto parsed = CategoryRules::fromJson(w.text());
    if (!parsed) {
        QMessageBox::warning(this, tr("Categories"), QString::fromStdString(parsed.message()));
        return;
    }
    m_rules = parsed.value();
    QDialog::accept();
}

} // namespace tracelight::app
