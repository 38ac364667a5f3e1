#include "tracelight/studies/Categories.h"

#include <algorithm>

#include "tracelight/base/Json.h"

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

std::string hostRole(const std::string& host) {
    std::string h = host.substr(0, host.find('@'));
    for (;;) {
        const auto dash = h.rfind('-');
        if (dash == std::string::npos || dash == 0) break;
        const std::string tail = h.substr(dash + 1);
        if (tail.empty() || std::none_of(tail.begin(), tail.end(), [](char c) { return c >= '0' && c <= '9'; })) break;
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
        if (match) return r.category;
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
