#pragma once
// The request table's search box: a few terms, all of which a request must meet.
//   checkout          free text: part of the request's name (or its id), any case
//   browser=Chrome    a request attribute (value any case); browser!=Chrome for the others
//   latency>250ms     latency bounds: >, >=, <, <=; units ns, us, µs, ms, s, min
//   100ms..2s         a latency range (both ends included)
//   period:baseline   requests of that period
// A term in double quotes is free text as written ("a b"). Parsing is in the widget layer; matching
// is a pass over core's RequestTable columns.
#include <QString>
#include <cstdint>
#include <vector>

#include "tracelight/base/Time.h"
#include "tracelight/store/RequestTable.h"

namespace tracelight::widgets {

class RequestFilter {
public:
    struct Term {
        enum class Kind { Text, Attribute, NotAttribute, Latency, Period } kind = Kind::Text;
        QString text;   // free text, attribute key, or period name
        QString value;  // attribute value
        TimeNs minNs = 0;
        TimeNs maxNs = 0;
        bool minInclusive = true;
        bool maxInclusive = true;
    };

    // An empty text gives an empty filter (every row). On a bad term, error names it and the filter is empty.
    static RequestFilter parse(const QString& text, QString* error);
    // A duration such as "250ms", "1.5 s", "800us"; false when it is not one.
    static bool parseDuration(const QString& text, TimeNs* out);

    bool isEmpty() const { return m_terms.empty(); }
    const std::vector<Term>& terms() const { return m_terms; }

    // One flag per table row (in table order): 1 when the row meets every term. A term that names what
    // the table lacks (an unknown period or attribute key) gives an error and matches nothing.
    std::vector<std::uint8_t> match(const RequestTable& table, QString* error) const;

private:
    std::vector<Term> m_terms;
};

} // namespace tracelight::widgets
