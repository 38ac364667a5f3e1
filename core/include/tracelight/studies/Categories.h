#pragma once
// Categories of segment types (server / network / client / ...), by rules a user can edit. The
// default rules come from the data: a segment that crosses hosts is "network"; any other is named
// after the role of the host it runs on ("web-8" -> "web", "frontend-579b9bff58-t2dbm" -> "frontend").
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "tracelight/base/Status.h"

namespace tracelight {

struct CategoryRule {
    enum class Field { Network, Host, Task, Event };
    std::string category;
    Field field = Field::Host;
    std::string pattern;  // ECMAScript regex, searched in the field (unused for Network)
};

// What a rule looks at for one segment type.
struct SegmentTypeFacts {
    std::string task, startEvent, endEvent, host;  // host: where the type's first instance started
    bool network = false;                           // its first instance crossed hosts
};

class CategoryRules {
public:
    CategoryRules() = default;
    explicit CategoryRules(std::vector<CategoryRule> rules);

    // "network" for crossing segments, then the host role.
    static CategoryRules defaults();
    const std::vector<CategoryRule>& rules() const { return m_rules; }

    // The first matching rule's category; with no match, the host's role.
    std::string categorize(const SegmentTypeFacts& facts) const;

    std::string toJson() const;
    static Result<CategoryRules> fromJson(std::string_view json);  // errors name the bad rule or pattern

private:
    std::vector<CategoryRule> m_rules;
    std::vector<std::regex> m_compiled;
};

// "client-49" -> "client", "cache-1" -> "cache", "servicea@127.0.0.1" -> "servicea",
// "frontend-579b9bff58-t2dbm" -> "frontend": trailing dash-separated parts holding digits go.
std::string hostRole(const std::string& host);

} // namespace tracelight
