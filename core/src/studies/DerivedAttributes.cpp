#include "tracelight/studies/DerivedAttributes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>

#include "tracelight/store/ResultCache.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

namespace {

constexpr const char* kStoredDerived = "derived_attributes";  // a result row, as the category rules are

using Step = DerivedAttribute::Step;
using Kind = DerivedAttribute::Step::Kind;

bool isNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// Recursive descent over EXPR, writing its steps in postfix order.
class Parser {
public:
    explicit Parser(std::string_view text) : m_text(text) {}

    Status parse(std::vector<Step>& out) {
        if (Status s = expression(out); !s) return s;
        skipSpace();
        if (m_at < m_text.size()) return error("unexpected '" + std::string(1, m_text[m_at]) + "'");
        return Status::ok();
    }

private:
    Status expression(std::vector<Step>& out) {
        if (Status s = term(out); !s) return s;
        for (;;) {
            skipSpace();
            if (m_at >= m_text.size() || (m_text[m_at] != '+' && m_text[m_at] != '-')) return Status::ok();
            const Kind op = m_text[m_at++] == '+' ? Kind::Add : Kind::Subtract;
            if (Status s = term(out); !s) return s;
            out.push_back({op, 0, {}});
        }
    }
    Status term(std::vector<Step>& out) {
        if (Status s = factor(out); !s) return s;
        for (;;) {
            skipSpace();
            if (m_at >= m_text.size() || (m_text[m_at] != '*' && m_text[m_at] != '/')) return Status::ok();
            const Kind op = m_text[m_at++] == '*' ? Kind::Multiply : Kind::Divide;
            if (Status s = factor(out); !s) return s;
            out.push_back({op, 0, {}});
        }
    }
    Status factor(std::vector<Step>& out) {
        skipSpace();
        if (m_at >= m_text.size()) return error("a number, an attribute or time(C) is missing at the end");
        const char c = m_text[m_at];
        if (c == '(') {
            ++m_at;
            if (Status s = expression(out); !s) return s;
            skipSpace();
            if (m_at >= m_text.size() || m_text[m_at] != ')') return error("')' is missing");
            ++m_at;
            return Status::ok();
        }
        if (c == '-') {  // a negative operand: 0 - it
            ++m_at;
            out.push_back({Kind::Number, 0, {}});
            if (Status s = factor(out); !s) return s;
            out.push_back({Kind::Subtract, 0, {}});
            return Status::ok();
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            double v = 0;
            const char* begin = m_text.data() + m_at;
            const auto [end, ec] = std::from_chars(begin, m_text.data() + m_text.size(), v);
            if (ec != std::errc()) return error("not a number");
            m_at += static_cast<std::size_t>(end - begin);
            out.push_back({Kind::Number, v, {}});
            return Status::ok();
        }
        if (!isNameStart(c)) return error("unexpected '" + std::string(1, c) + "'");
        const std::size_t start = m_at;
        while (m_at < m_text.size() && isNameChar(m_text[m_at])) ++m_at;
        const std::string name(m_text.substr(start, m_at - start));
        skipSpace();
        if (m_at >= m_text.size() || m_text[m_at] != '(') {
            out.push_back({Kind::Attribute, 0, name});
            return Status::ok();
        }
        // A function: its argument is the text up to the closing parenthesis (a category's name may hold spaces
        // and arrows: "frontend → cart").
        const std::size_t open = m_at++;
        const std::size_t close = m_text.find(')', m_at);
        if (close == std::string_view::npos) return error("')' is missing", open);
        const std::string argument(trim(m_text.substr(m_at, close - m_at)));
        m_at = close + 1;
        if (name == "latency") {
            if (!argument.empty()) return error("latency() takes nothing", open);
            out.push_back({Kind::Latency, 0, {}});
        } else if (name == "time" || name == "critical") {
            if (argument.empty()) return error(name + "() needs a category, as in " + name + "(network)", open);
            out.push_back({name == "time" ? Kind::Time : Kind::Critical, 0, argument});
        } else {
            return error("unknown function '" + name + "' (time(C), critical(C) and latency() are known)", start);
        }
        return Status::ok();
    }
    void skipSpace() {
        while (m_at < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_at]))) ++m_at;
    }
    Status error(const std::string& what) const { return error(what, m_at); }
    Status error(const std::string& what, std::size_t at) const {
        return Status::error(what + " at character " + std::to_string(at + 1) + " of '" + std::string(m_text) + "'");
    }

    std::string_view m_text;
    std::size_t m_at = 0;
};

std::optional<double> number(std::string_view text) {
    text = trim(text);
    if (text.empty()) return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::string formatNumber(double v) {
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    return ec == std::errc() ? std::string(buffer, end) : std::string();
}

std::vector<std::string> namesOf(const DerivedAttribute& d, std::initializer_list<Kind> kinds) {
    std::vector<std::string> out;
    for (const Step& s : d.program)
        if (std::find(kinds.begin(), kinds.end(), s.kind) != kinds.end() && std::find(out.begin(), out.end(), s.name) == out.end())
            out.push_back(s.name);
    return out;
}

} // namespace

std::vector<std::string> DerivedAttribute::attributes() const { return namesOf(*this, {Kind::Attribute}); }
std::vector<std::string> DerivedAttribute::categories() const { return namesOf(*this, {Kind::Time, Kind::Critical}); }

Result<DerivedAttribute> parseDerivedAttribute(std::string_view definition) {
    const std::size_t equals = definition.find('=');
    if (equals == std::string_view::npos)
        return Status::error("a derived attribute is NAME=EXPR, as in bandwidth=bytes/time(network); '" + std::string(definition) +
                             "' has no '='");
    DerivedAttribute d;
    d.name = std::string(trim(definition.substr(0, equals)));
    d.expression = std::string(trim(definition.substr(equals + 1)));
    if (d.name.empty() || !isNameStart(d.name.front()) ||
        !std::all_of(d.name.begin(), d.name.end(), [](char c) { return isNameChar(c); }))
        return Status::error("'" + d.name + "' cannot name a derived attribute (letters, digits, '_' and '.', not first a digit)");
    if (d.name == kPeriodKey) return Status::error("'period' names the requests' periods: choose another name");
    if (d.expression.empty()) return Status::error("the derived attribute '" + d.name + "' has no expression after '='");
    if (Status s = Parser(d.expression).parse(d.program); !s) return Status::error(d.name + ": " + s.message());
    return d;
}

Result<std::vector<std::string>> derivedValues(const DerivedAttribute& derived, const RequestAggregates& a,
                                               const std::function<std::vector<std::string>(std::string_view)>& attribute) {
    // Every operand resolved once: attributes read, categories found.
    std::vector<std::vector<std::string>> attributeValues;
    std::vector<int> categoryOf;  // per step
    std::vector<std::size_t> attributeOf(derived.program.size(), 0);
    std::vector<std::string> attributeNames;
    categoryOf.assign(derived.program.size(), -1);
    for (std::size_t i = 0; i < derived.program.size(); ++i) {
        const Step& s = derived.program[i];
        if (s.kind == Kind::Attribute) {
            auto it = std::find(attributeNames.begin(), attributeNames.end(), s.name);
            if (it == attributeNames.end()) {
                attributeNames.push_back(s.name);
                attributeValues.push_back(attribute(s.name));
                it = attributeNames.end() - 1;
            }
            attributeOf[i] = static_cast<std::size_t>(it - attributeNames.begin());
        } else if (s.kind == Kind::Time || s.kind == Kind::Critical) {
            categoryOf[i] = a.categoryIndex(s.name);
            if (categoryOf[i] < 0) {
                std::string known;
                for (const auto& c : a.categories) known += (known.empty() ? "" : ", ") + c;
                return Status::error(derived.name + ": no category '" + s.name + "' (categories: " + known + ")");
            }
        }
    }
    std::vector<std::string> out(a.requests());
    std::vector<double> stack;
    for (std::size_t r = 0; r < a.requests(); ++r) {
        stack.clear();
        bool ok = true;
        for (std::size_t i = 0; ok && i < derived.program.size(); ++i) {
            const Step& s = derived.program[i];
            switch (s.kind) {
            case Kind::Number: stack.push_back(s.number); break;
            case Kind::Attribute: {
                const auto& values = attributeValues[attributeOf[i]];
                const auto v = r < values.size() ? number(values[r]) : std::nullopt;
                if (v) stack.push_back(*v);
                else ok = false;
                break;
            }
            case Kind::Time: stack.push_back(double(a.summed(r, static_cast<std::size_t>(categoryOf[i]))) / 1e9); break;
            case Kind::Critical: stack.push_back(double(a.critical(r, static_cast<std::size_t>(categoryOf[i]))) / 1e9); break;
            case Kind::Latency: stack.push_back(double(a.latencyNs[r]) / 1e9); break;
            default: {
                const double y = stack.back();
                stack.pop_back();
                double& x = stack.back();
                if (s.kind == Kind::Add) x += y;
                else if (s.kind == Kind::Subtract) x -= y;
                else if (s.kind == Kind::Multiply) x *= y;
                else if (y == 0) ok = false;  // no value rather than infinity
                else x /= y;
            }
            }
        }
        if (ok && stack.size() == 1 && std::isfinite(stack.back())) out[r] = formatNumber(stack.back());
    }
    return out;
}

std::vector<DerivedAttribute> loadDerivedAttributes(const TraceStore& store) {
    std::vector<DerivedAttribute> out;
    const auto text = latestResult(store, kStoredDerived, 0);
    if (!text) return out;
    std::size_t start = 0;
    while (start < text->size()) {
        std::size_t end = text->find('\n', start);
        if (end == std::string::npos) end = text->size();
        if (auto d = parseDerivedAttribute(std::string_view(*text).substr(start, end - start)))
            out.push_back(std::move(d.value()));
        start = end + 1;
    }
    return out;
}

Status saveDerivedAttributes(TraceStore& store, const std::vector<DerivedAttribute>& derived) {
    std::string text;
    std::set<std::string> names;
    for (const DerivedAttribute& d : derived) {
        if (!names.insert(d.name).second) return Status::error("two derived attributes are named '" + d.name + "'");
        if (auto again = parseDerivedAttribute(d.definition()); !again) return again.status();
        text += d.definition() + "\n";
    }
    return putResult(store, kStoredDerived, 0, "", text);
}

Result<std::vector<std::string>> requestAttributeValues(const TraceStore& store, const RequestAggregates& a, std::string_view key,
                                                        const std::vector<DerivedAttribute>& extra) {
    auto stored = [&](std::string_view k) { return attributeValues(store, a.ids, k); };
    for (const DerivedAttribute& d : extra)
        if (d.name == key) return derivedValues(d, a, stored);
    for (const DerivedAttribute& d : loadDerivedAttributes(store))
        if (d.name == key) return derivedValues(d, a, stored);
    return stored(key);
}

} // namespace tracelight
