#include "models/RequestFilter.h"

#include <QObject>
#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace tracelight::widgets {

namespace {

constexpr TimeNs kMaxTime = std::numeric_limits<TimeNs>::max();

// Words split on spaces; a double-quoted run is one word (its quotes kept to mark it as free text).
QStringList tokenize(const QString& text, QString* error) {
    QStringList words;
    QString word;
    bool quoted = false;
    for (const QChar c : text) {
        if (c == QLatin1Char('"')) {
            quoted = !quoted;
            word += c;
        } else if (c.isSpace() && !quoted) {
            if (!word.isEmpty()) words << word;
            word.clear();
        } else {
            word += c;
        }
    }
    if (quoted) {
        *error = QObject::tr("unclosed quote in \"%1\"").arg(text);
        return {};
    }
    if (!word.isEmpty()) words << word;
    return words;
}

} // namespace

bool RequestFilter::parseDuration(const QString& text, TimeNs* out) {
    static const QRegularExpression re(QStringLiteral("^\\s*([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)\\s*(ns|us|µs|ms|s|sec|min|m)\\s*$"),
                                       QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(text);
    if (!m.hasMatch()) return false;
    const double value = m.captured(1).toDouble();
    const QString unit = m.captured(2).toLower();
    double scale = 1.0;
    if (unit == QLatin1String("us") || unit == QStringLiteral("µs")) scale = 1e3;
    else if (unit == QLatin1String("ms")) scale = 1e6;
    else if (unit == QLatin1String("s") || unit == QLatin1String("sec")) scale = 1e9;
    else if (unit == QLatin1String("min") || unit == QLatin1String("m")) scale = 60e9;
    const double ns = value * scale;
    if (!std::isfinite(ns) || ns >= 9e18) return false;
    *out = static_cast<TimeNs>(std::llround(ns));
    return true;
}

RequestFilter RequestFilter::parse(const QString& text, QString* error) {
    error->clear();
    RequestFilter filter;
    const QStringList words = tokenize(text, error);
    if (!error->isEmpty()) return {};
    static const QRegularExpression latencyRe(QStringLiteral("^latency\\s*(>=|<=|>|<|=)\\s*(.*)$"), QRegularExpression::CaseInsensitiveOption);
    for (const QString& word : words) {
        Term term;
        if (word.startsWith(QLatin1Char('"'))) {
            term.text = word.mid(1, word.size() - 2);
            if (term.text.isEmpty()) continue;
            filter.m_terms.push_back(term);
            continue;
        }
        if (const auto m = latencyRe.match(word); m.hasMatch()) {
            const QString op = m.captured(1);
            TimeNs bound = 0;
            if (!parseDuration(m.captured(2), &bound)) {
                *error = QObject::tr("\"%1\": the latency needs a number and a unit (ns, us, ms, s, min), e.g. latency>250ms").arg(word);
                return {};
            }
            term.kind = Term::Kind::Latency;
            term.minNs = 0;
            term.maxNs = kMaxTime;
            if (op == QLatin1String(">")) { term.minNs = bound; term.minInclusive = false; }
            else if (op == QLatin1String(">=")) term.minNs = bound;
            else if (op == QLatin1String("<")) { term.maxNs = bound; term.maxInclusive = false; }
            else if (op == QLatin1String("<=")) term.maxNs = bound;
            else term.minNs = term.maxNs = bound;
            filter.m_terms.push_back(term);
            continue;
        }
        if (word.startsWith(QLatin1String("latency"), Qt::CaseInsensitive) && word.size() > 7 && !word[7].isLetterOrNumber() &&
            word[7] != QLatin1Char('_') && word[7] != QLatin1Char('=') && word[7] != QLatin1Char('!')) {
            *error = QObject::tr("\"%1\": write latency>250ms, latency<1s or a range 100ms..2s").arg(word);
            return {};
        }
        if (const int dots = word.indexOf(QLatin1String("..")); dots >= 0) {
            QString range = word;
            if (range.startsWith(QLatin1String("latency:"), Qt::CaseInsensitive)) range = range.mid(8);
            const int at = range.indexOf(QLatin1String(".."));
            const QString lo = range.left(at), hi = range.mid(at + 2);
            term.kind = Term::Kind::Latency;
            term.minNs = 0;
            term.maxNs = kMaxTime;
            if ((!lo.isEmpty() && !parseDuration(lo, &term.minNs)) || (!hi.isEmpty() && !parseDuration(hi, &term.maxNs)) ||
                (lo.isEmpty() && hi.isEmpty())) {
                *error = QObject::tr("\"%1\": a latency range is two durations with units, e.g. 100ms..2s").arg(word);
                return {};
            }
            if (term.minNs > term.maxNs) {
                *error = QObject::tr("\"%1\": the range's lower end is above its upper end").arg(word);
                return {};
            }
            filter.m_terms.push_back(term);
            continue;
        }
        if (word.startsWith(QLatin1String("period:"), Qt::CaseInsensitive)) {
            term.kind = Term::Kind::Period;
            term.text = word.mid(7);
            if (term.text.isEmpty()) {
                *error = QObject::tr("\"%1\": name the period, e.g. period:baseline").arg(word);
                return {};
            }
            filter.m_terms.push_back(term);
            continue;
        }
        if (const int eq = word.indexOf(QLatin1Char('=')); eq >= 0) {
            const bool negated = eq > 0 && word[eq - 1] == QLatin1Char('!');
            term.kind = negated ? Term::Kind::NotAttribute : Term::Kind::Attribute;
            term.text = word.left(negated ? eq - 1 : eq);
            term.value = word.mid(eq + 1);
            if (term.value.startsWith(QLatin1Char('"')) && term.value.endsWith(QLatin1Char('"')) && term.value.size() >= 2)
                term.value = term.value.mid(1, term.value.size() - 2);
            if (term.text.isEmpty()) {
                *error = QObject::tr("\"%1\": name the attribute before '=', e.g. browser=Chrome").arg(word);
                return {};
            }
            filter.m_terms.push_back(term);
            continue;
        }
        term.text = word;
        filter.m_terms.push_back(term);
    }
    return filter;
}

std::vector<std::uint8_t> RequestFilter::match(const RequestTable& table, QString* error) const {
    error->clear();
    const std::size_t n = table.size();
    std::vector<std::uint8_t> keep(n, 1);
    for (const Term& term : m_terms) {
        switch (term.kind) {
        case Term::Kind::Text: {
            const std::string needle = term.text.toLower().toStdString();
            bool isNumber = false;
            const qulonglong id = term.text.toULongLong(&isNumber);
            for (std::size_t i = 0; i < n; ++i) {
                if (!keep[i]) continue;
                const std::string& name = table.names[i];
                bool found = isNumber && table.ids[i].value == id;
                if (!found) {
                    auto it = std::search(name.begin(), name.end(), needle.begin(), needle.end(),
                                          [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
                    found = it != name.end() || needle.empty();
                }
                keep[i] = found;
            }
            break;
        }
        case Term::Kind::Latency:
            for (std::size_t i = 0; i < n; ++i) {
                const TimeNs l = table.latencyNs[i];
                const bool above = term.minInclusive ? l >= term.minNs : l > term.minNs;
                const bool below = term.maxInclusive ? l <= term.maxNs : l < term.maxNs;
                keep[i] = keep[i] && above && below;
            }
            break;
        case Term::Kind::Period: {
            std::vector<std::uint8_t> wanted(table.periodNames.size(), 0);
            bool any = false;
            for (std::size_t p = 0; p < table.periodNames.size(); ++p)
                if (QString::fromStdString(table.periodNames[p]).compare(term.text, Qt::CaseInsensitive) == 0) wanted[p] = any = true;
            if (!any) {
                QStringList names;
                for (const auto& p : table.periodNames) names << QString::fromStdString(p);
                *error = QObject::tr("no period named \"%1\" (periods: %2)").arg(term.text, names.join(QStringLiteral(", ")));
                return std::vector<std::uint8_t>(n, 0);
            }
            for (std::size_t i = 0; i < n; ++i) {
                if (!keep[i]) continue;
                bool member = false;
                for (std::size_t p = 0; p < wanted.size() && !member; ++p) member = wanted[p] && table.inPeriod(i, static_cast<std::uint32_t>(p));
                keep[i] = member;
            }
            break;
        }
        case Term::Kind::Attribute:
        case Term::Kind::NotAttribute: {
            // Which label slots are this key, and which are this value (any case).
            const std::string key = term.text.toStdString();
            std::vector<std::uint8_t> isKey(table.attrLabels.size(), 0), isValue(table.attrLabels.size(), 0);
            bool keyKnown = false;
            for (std::size_t s = 0; s < table.attrLabels.size(); ++s) {
                if (table.attrLabels[s] == key) isKey[s] = keyKnown = true;
                isValue[s] = QString::fromStdString(table.attrLabels[s]).compare(term.value, Qt::CaseInsensitive) == 0;
            }
            if (!keyKnown) {
                *error = QObject::tr("no request has an attribute \"%1\"").arg(term.text);
                return std::vector<std::uint8_t>(n, 0);
            }
            const bool negated = term.kind == Term::Kind::NotAttribute;
            for (std::size_t i = 0; i < n; ++i) {
                if (!keep[i]) continue;
                bool has = false;
                if (i + 1 < table.attrBegin.size())
                    for (std::uint32_t a = table.attrBegin[i]; a < table.attrBegin[i + 1]; ++a)
                        if (isKey[table.attrKey[a]] && isValue[table.attrValue[a]]) has = true;
                keep[i] = negated ? !has : has;
            }
            break;
        }
        }
    }
    return keep;
}

} // namespace tracelight::widgets
