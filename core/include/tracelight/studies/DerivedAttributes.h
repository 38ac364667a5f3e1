#pragma once
// Derived request attributes: one computed from others and from the request's categories' times, as the Mystery
// Machine stratified page loads by measured bandwidth (bytes over network time, Fig. 7). A definition is
// NAME=EXPR: + - * / and parentheses over numbers, attribute names, time(C) (the request's summed time in category
// C), critical(C) (its time on the critical path in C) and latency() (end to end), times in seconds. Definitions
// kept in the database are offered wherever requests are stratified by an attribute (the app and the CLI).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tracelight/base/Status.h"
#include "tracelight/studies/Aggregates.h"

namespace tracelight {

class TraceStore;

struct DerivedAttribute {
    // One step of the expression in postfix order: push a number, an attribute or a category's time, or apply
    // an operator to the two values on top.
    struct Step {
        enum class Kind { Number, Attribute, Time, Critical, Latency, Add, Subtract, Multiply, Divide } kind = Kind::Number;
        double number = 0;
        std::string name;  // the attribute or the category
    };
    std::string name;
    std::string expression;  // as written, trimmed
    std::vector<Step> program;

    std::string definition() const { return name + "=" + expression; }
    // The attributes and categories it reads (each once, in order of appearance).
    std::vector<std::string> attributes() const;
    std::vector<std::string> categories() const;
};

// "NAME=EXPR"; an error names what is wrong and where (the character's position, from 1).
Result<DerivedAttribute> parseDerivedAttribute(std::string_view definition);

// Its value for every row of `a`, as text (numbers as stratify cuts them into quantiles): empty where an
// attribute is absent or not a number, or where it divides by zero. attribute(key) gives a stored attribute per
// row of `a`. A category `a` does not have is an error naming the categories there are.
Result<std::vector<std::string>> derivedValues(const DerivedAttribute& derived, const RequestAggregates& a,
                                               const std::function<std::vector<std::string>(std::string_view)>& attribute);

// The definitions kept in the database, in the order saved (none when none were; a damaged one is skipped).
std::vector<DerivedAttribute> loadDerivedAttributes(const TraceStore& store);
// Replaces them (each checked first: nothing is saved when one does not parse; two of one name are refused).
Status saveDerivedAttributes(TraceStore& store, const std::vector<DerivedAttribute>& derived);

// An attribute per row of `a`, as the views and commands that stratify read it: one of `extra`, else one kept in
// the database, else the period (kPeriodKey) or a stored attribute.
Result<std::vector<std::string>> requestAttributeValues(const TraceStore& store, const RequestAggregates& a, std::string_view key,
                                                        const std::vector<DerivedAttribute>& extra = {});

} // namespace tracelight
