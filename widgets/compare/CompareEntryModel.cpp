#include "CompareEntryModel.h"

#include <QColor>

#include "common/QtText.h"
#include "common/TimeFormat.h"

namespace tracelight::widgets {

void CompareEntryModel::setComparison(std::shared_ptr<const PeriodComparison> comparison) {
    beginResetModel();
    m_comparison = std::move(comparison);
    endResetModel();
}

QString CompareEntryModel::kindLabel(CompareEntry::Kind kind) {
    return kind == CompareEntry::Kind::Structural ? tr("structural") : tr("response time");
}

const CompareEntry* CompareEntryModel::entryAt(int row) const {
    if (!m_comparison || row < 0 || row >= rowCount()) return nullptr;
    return &m_comparison->comparison.entries[static_cast<std::size_t>(row)];
}

int CompareEntryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_comparison ? 0 : static_cast<int>(m_comparison->comparison.entries.size());
}
int CompareEntryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareEntryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Category: return tr("the category: requests of identical structure (hover a row for its canonical string)");
        case RequestType: return tr("what its requests are: for span data the operation the request list names them by and their usual "
                                    "span and host counts; for event logs the first start event the categories do not all share");
        case BaselineCount: return tr("requests of the category in the baseline period");
        case ProblemCount: return tr("requests of the category in the problem period");
        case Kind: return tr("structural: the category gained requests (a new path); response time: its latency distribution changed (KS test)");
        case PValue:
            // Under the paper's statistics nothing is adjusted, and a category is marked by its response times alone.
            if (m_comparison && m_comparison->options.paperStatistics)
                return tr("the Kolmogorov-Smirnov p-value of the category's response times, uncorrected (the paper's statistics: "
                          "each test at α alone)");
            return tr("the smallest Kolmogorov-Smirnov p-value of the category's response times and critical-path edges, adjusted over all categories (Holm, or Benjamini-Hochberg when BH is on)");
        case RawPValue: return tr("the uncorrected p-value");
        case Contribution: return tr("the entry's contribution to the change in mean latency between the periods");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    static const char* names[] = {"#", "Kind", "Contribution", "Cat.", "Request type", "Base n", "Prob. n", "Base mean", "Prob. mean",
                                  "p", "p (raw)"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant CompareEntryModel::data(const QModelIndex& index, int role) const {
    const CompareEntry* e = entryAt(index.row());
    if (!e) return {};
    const ComparedCategory& cc = m_comparison->comparison.categories[e->category];
    const bool structural = e->kind == CompareEntry::Kind::Structural;
    if (role == Qt::ToolTipRole && index.column() == Category && cc.info) return QString::fromStdString(cc.info->canonical).left(2000);
    if (role == Qt::ForegroundRole && index.column() == Kind) return structural ? QColor(0x7b, 0x3f, 0x9e) : QColor(0xc0, 0x39, 0x2b);
    if (role == Qt::ToolTipRole && index.column() == RequestType) return QString::fromStdString(requestTypeOf(*m_comparison, cc));
    if (role == Qt::TextAlignmentRole && index.column() != Kind && index.column() != RequestType)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const bool sort = role == Qt::UserRole;
    if (role != Qt::DisplayRole && !sort) return {};
    auto ns = [&](double v) -> QVariant { return sort ? QVariant(v) : QVariant(formatDurationNs(static_cast<TimeNs>(v))); };
    switch (index.column()) {
    case Rank: return index.row() + 1;
    case Kind: return kindLabel(e->kind);
    case Category: return cc.id;
    case RequestType: return QString::fromStdString(requestTypeOf(*m_comparison, cc));
    case BaselineCount: return static_cast<qlonglong>(cc.baseline.count);
    case ProblemCount: return static_cast<qlonglong>(cc.problem.count);
    case BaselineMean: return cc.baseline.count ? ns(cc.baseline.meanNs) : QVariant(sort ? QVariant(-1.0) : QVariant(QStringLiteral("–")));
    case ProblemMean: return cc.problem.count ? ns(cc.problem.meanNs) : QVariant(sort ? QVariant(-1.0) : QVariant(QStringLiteral("–")));
    case PValue: return structural ? QVariant(sort ? 1.0 : QVariant(QStringLiteral("–"))) : QVariant(sort ? e->pValue : QVariant(formatProbability(e->pValue)));
    case RawPValue:
        return structural ? QVariant(sort ? 1.0 : QVariant(QStringLiteral("–")))
                          : QVariant(sort ? e->rawPValue : QVariant(formatProbability(e->rawPValue)));
    case Contribution: return ns(e->contributionNs);
    default: return {};
    }
}

QString CompareEntryModel::toCsv() const {
    QString out = QStringLiteral("rank,kind,category,root,baseline_count,problem_count,baseline_mean_us,problem_mean_us,p_value,p_value_raw,contribution_us\n");
    if (!m_comparison) return out;
    int rank = 0;
    for (const auto& e : m_comparison->comparison.entries) {
        const ComparedCategory& cc = m_comparison->comparison.categories[e.category];
        QString root = QString::fromStdString(requestTypeOf(*m_comparison, cc));
        root.replace(QLatin1Char('"'), QLatin1String("\"\""));
        out += QStringLiteral("%1,%2,%3,\"%4\",%5,%6,%7,%8,%9,%10,%11\n")
                   .arg(++rank)
                   .arg(QString::fromLatin1(compareKindName(e.kind)))
                   .arg(cc.id)
                   .arg(root)
                   .arg(cc.baseline.count)
                   .arg(cc.problem.count)
                   .arg(cc.baseline.meanNs / 1000.0, 0, 'f', 3)
                   .arg(cc.problem.meanNs / 1000.0, 0, 'f', 3)
                   .arg(e.pValue, 0, 'g', 6)
                   .arg(e.rawPValue, 0, 'g', 6)
                   .arg(e.contributionNs / 1000.0, 0, 'f', 3);
    }
    return out;
}

} // namespace tracelight::widgets
