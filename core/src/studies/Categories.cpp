#include "tracelight/studies/Categories.h"

#include <algorithm>
#include <string_view>

#include "tracelight/base/Json.h"
#include "tracelight/studies/SpanCalls.h"

namespace tracelight {

namespace {
const char* fieldName(CategoryRule::Field f) {
    switch (f) {
    case CategoryRule::Field::Network: return "network";
    case CategoryRule::Field::Host: return "host";
    case CategoryRule::Field::Task: return "task";
    case CategoryRule::Field::Event: return "event";
    }
    return "host";
}
} // namespace

namespace {
// Kubernetes names generated suffixes from this alphabet (no vowels, no 0, 1, 3): a ReplicaSet's hash
// (`cf787dd48`) and a pod's own suffix (`vpjrd`, `t2dbm`).
bool looksGenerated(std::string_view part) {
    if (part.size() < 5 || part.size() > 10) return false;
    return std::all_of(part.begin(), part.end(), [](char c) { return std::string_view("bcdfghjklmnpqrstvwxz2456789").find(c) != std::string_view::npos; });
}
} // namespace

std::string hostRole(const std::string& host) {
    std::string h = host.substr(0, host.find('@'));
    // Trailing dash-separated parts that hold digits go ("web-8", "cf787dd48-t2dbm"), and up to two that
    // Kubernetes generated ("-cf787dd48-vpjrd": a digit-free pod suffix is still generated).
    int generated = 0;
    for (;;) {
        const auto dash = h.rfind('-');
        if (dash == std::string::npos || dash == 0) break;
        const std::string_view tail = std::string_view(h).substr(dash + 1);
        const bool digits = !tail.empty() && std::any_of(tail.begin(), tail.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits && !(generated < 2 && looksGenerated(tail))) break;
        ++generated;
        h.erase(dash);
    }
    while (h.size() > 1 && h.back() >= '0' && h.back() <= '9') h.pop_back();
    return h.empty() ? host : h;
}

CategoryRules::CategoryRules(std::vector<CategoryRule> rules) : m_rules(std::move(rules)) {
    for (const auto& r : m_rules) m_compiled.emplace_back(r.field == CategoryRule::Field::Network ? std::string(".*") : r.pattern);
}

CategoryRules CategoryRules::defaults() { return CategoryRules({{"network", CategoryRule::Field::Network, ""}}); }

std::string CategoryRules::categorize(const SegmentTypeFacts& facts) const {
    for (std::size_t i = 0; i < m_rules.size(); ++i) {
        const CategoryRule& r = m_rules[i];
        bool match = false;
        switch (r.field) {
        case CategoryRule::Field::Network: match = facts.network; break;
        case CategoryRule::Field::Host: match = std::regex_search(facts.host, m_compiled[i]); break;
        case CategoryRule::Field::Task: match = std::regex_search(facts.task, m_compiled[i]); break;
        case CategoryRule::Field::Event:
            match = std::regex_search(facts.startEvent, m_compiled[i]) || std::regex_search(facts.endEvent, m_compiled[i]);
            break;
        }
        if (!match) continue;
        // Span data: the default network category is the call's hop, `caller → callee` (studies/SpanCalls).
        if (facts.fromSpans && r.field == CategoryRule::Field::Network && r.category == "network") {
            const std::string from = hostRole(facts.host), to = hostRole(facts.endHost);
            std::string name;
            return assignHopName(name, spanHop(isTripBack(facts.startEvent), from, to));
        }
        return r.category;
    }
    return hostRole(facts.host);
}

std::string CategoryRules::toJson() const {
    JsonWriter w;
    w.beginArray();
    for (const auto& r : m_rules)
        w.beginObject().key("category").value(r.category).key("field").value(fieldName(r.field)).key("pattern").value(r.pattern).endObject();
    w.endArray();
    return w.text();
}

Result<CategoryRules> CategoryRules::fromJson(std::string_view json) {
    JsonValue v;
    std::string error;
    if (!JsonValue::parse(json, v, &error, nullptr) || !v.isArray()) return Status::error("category rules: not a JSON array");
    std::vector<CategoryRule> rules;
    for (std::size_t i = 0; i < v.array().size(); ++i) {
        const JsonValue& item = v.array()[i];
        const std::string where = "category rule " + std::to_string(i + 1) + ": ";
        const JsonValue* category = item.find("category");
        const JsonValue* field = item.find("field");
        if (!category || !category->isString() || category->string().empty()) return Status::error(where + "no category");
        if (!field || !field->isString()) return Status::error(where + "no field");
        CategoryRule r;
        r.category = category->string();
        const std::string& f = field->string();
        if (f == "network") r.field = CategoryRule::Field::Network;
        else if (f == "host") r.field = CategoryRule::Field::Host;
        else if (f == "task") r.field = CategoryRule::Field::Task;
        else if (f == "event") r.field = CategoryRule::Field::Event;
        else return Status::error(where + "field '" + f + "' is not network, host, task or event");
        if (const JsonValue* p = item.find("pattern"); p && p->isString()) r.pattern = p->string();
        if (r.field != CategoryRule::Field::Network) {
            try {
                std::regex check(r.pattern);
            } catch (const std::regex_error& e) {
                return Status::error(where + "bad pattern '" + r.pattern + "': " + e.what());
            }
        }
        rules.push_back(std::move(r));
    }
    return CategoryRules(std::move(rules));
}

} // namespace tracelight
