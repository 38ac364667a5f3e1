#include "FrameTables.h"

#include <QHeaderView>
#include <QLabel>
#include <QVBoxLayout>

#include "common/TimeFormat.h"
#include "tracelight/profile/ProfileTables.h"

namespace tracelight::widgets {

namespace {

// Sorts by the number behind the text (a duration, a count), not by the text.
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(const QString& text, double value) : QTableWidgetItem(text) {
        setData(Qt::UserRole, value);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

void setUpTable(QTableWidget* table, const QStringList& headers) {
    table->setColumnCount(static_cast<int>(headers.size()));
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->setVisible(false);
    // The name takes what the numbers leave: they are sized to their contents.
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < table->columnCount(); ++c) table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    table->setWordWrap(false);
    table->setTextElideMode(Qt::ElideMiddle);
}

QString share(double ns, double latency) { return latency > 0 ? QStringLiteral("%1 %").arg(100.0 * ns / latency, 0, 'f', 1) : QString(); }

// Rows of name, self, total, share of the latency, stacks; kept to the first `limit`.
void fill(QTableWidget* table, const std::vector<FrameNameTime>& rows, double latency, std::size_t limit) {
    table->setSortingEnabled(false);
    table->setRowCount(0);
    for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
        const FrameNameTime& r = rows[i];
        const int row = table->rowCount();
        table->insertRow(row);
        auto* name = new QTableWidgetItem(QString::fromStdString(r.name));
        name->setToolTip(name->text());
        table->setItem(row, 0, name);
        table->setItem(row, 1, new NumberItem(formatDurationNs(static_cast<TimeNs>(r.selfNs)), r.selfNs));
        table->setItem(row, 2, new NumberItem(formatDurationNs(static_cast<TimeNs>(r.totalNs)), r.totalNs));
        table->setItem(row, 3, new NumberItem(share(r.totalNs, latency), r.totalNs));
        table->setItem(row, 4, new NumberItem(QString::number(r.stacks), double(r.stacks)));
    }
}

const QStringList kHeaders = {QObject::tr("Frame"), QObject::tr("Self"), QObject::tr("Total"), QObject::tr("Of latency"),
                              QObject::tr("Stacks")};
constexpr std::size_t kMaxRows = 5000;  // a million distinct frames would not help anyone in a table

} // namespace

TopFramesTable::TopFramesTable(QWidget* parent) : QTableWidget(parent) {
    setUpTable(this, kHeaders);
    setToolTip(tr("Every frame name over all the stacks it is in: self and total mean critical time per request "
                  "(a frame inside one of the same name counted once). Click a header to sort; double-click a row "
                  "for its callers and callees."));
    connect(this, &QTableWidget::itemActivated, this, [this](QTableWidgetItem* item) {
        if (auto* name = this->item(item->row(), 0)) emit nameActivated(name->text());
    });
}

void TopFramesTable::setProfile(std::shared_ptr<const ProfileSet> profile, std::size_t group) {
    if (!profile || group >= profile->groups.size()) {
        setRowCount(0);
        return;
    }
    fill(this, topFrames(*profile, group), profile->meanLatencyNs(group), kMaxRows);
    setSortingEnabled(true);
    sortByColumn(1, Qt::DescendingOrder);
}

SandwichView::SandwichView(QWidget* parent) : QWidget(parent) {
    m_callers = new QTableWidget(this);
    m_callees = new QTableWidget(this);
    for (auto* t : {m_callers, m_callees}) {
        setUpTable(t, kHeaders);
        connect(t, &QTableWidget::itemActivated, this, [this, t](QTableWidgetItem* item) {
            auto* name = t->item(item->row(), 0);
            if (name && name->text() != QLatin1String("[root]")) setName(name->text()), emit nameActivated(name->text());
        });
    }
    m_callers->setToolTip(tr("Who calls the frame: the frame's time under each caller"));
    m_callees->setToolTip(tr("What the frame calls: each callee's time under it"));
    m_middle = new QLabel(this);
    m_middle->setWordWrap(true);
    m_middle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Callers"), this));
    layout->addWidget(m_callers, 1);
    layout->addWidget(m_middle);
    layout->addWidget(new QLabel(tr("Callees"), this));
    layout->addWidget(m_callees, 1);
    refresh();
}

void SandwichView::setProfile(std::shared_ptr<const ProfileSet> profile, std::size_t group) {
    m_profile = std::move(profile);
    m_group = group;
    refresh();
}

void SandwichView::setName(const QString& name) {
    m_name = name;
    refresh();
}

void SandwichView::refresh() {
    if (!m_profile || m_name.isEmpty() || m_group >= m_profile->groups.size()) {
        m_middle->setText(tr("<i>Choose a frame (right-click it, or double-click it in Top frames) to see its callers and callees.</i>"));
        m_callers->setRowCount(0);
        m_callees->setRowCount(0);
        return;
    }
    const Sandwich s = sandwich(*m_profile, m_group, m_name.toStdString());
    const double latency = m_profile->meanLatencyNs(m_group);
    m_middle->setText(tr("<b>%1</b> — self %2, total %3 (%4 of the latency) in %L5 stacks")
                          .arg(m_name.toHtmlEscaped(), formatDurationNs(static_cast<TimeNs>(s.middle.selfNs)),
                               formatDurationNs(static_cast<TimeNs>(s.middle.totalNs)), share(s.middle.totalNs, latency))
                          .arg(s.middle.stacks));
    fill(m_callers, s.callers, latency, kMaxRows);
    fill(m_callees, s.callees, latency, kMaxRows);
}

} // namespace tracelight::widgets
