#pragma once
// Categories of segment types (server / network / client / ...), by rules a user can edit. The
// default rules come from the data: a segment that crosses hosts is "network" (for span data named by the
// two services it connects, caller first: "frontend → currencyservice"); any other is named after the
// role of the host it runs on ("web-8" -> "web", "currencyservice-cf787dd48-vpjrd" -> "currencyservice";
// span data whose host is its service, or "service@ip", gives the service).
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
    std::string endHost;                            // where it ended
    bool fromSpans = false;                         // imported from spans
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

// The service (role) of a host or pod, the one function for it (span import's serviceFromPodName is it):
// "client-49" -> "client", "cache-1" -> "cache", "servicea@127.0.0.1" -> "servicea",
// "frontend-579b9bff58-t2dbm" -> "frontend", "currencyservice-cf787dd48-vpjrd" -> "currencyservice",
// "redis-cart-5d5f9c7d8b-2xk9p" -> "redis-cart", "cartservice" -> "cartservice": trailing dash-separated
// parts holding digits go, and up to two that Kubernetes generated (5 to 10 of its consonants and digits).
std::string hostRole(const std::string& host);

} // namespace tracelight
