#pragma once
// Bottleneck types (BOSS): what a person is told to fix. A rule maps a span or a segment to a type with an
// actionable name ("Ads calls") and a "how to fix" text; the first matching rule wins. With no match the
// default type applies: for span data the span's service, for event logs the segment's category
// (studies/Categories.h). Time with nothing active is the type "gaps".
//
// Rules as JSON (a user-editable list, kept in the database: loadBottleneckRules / saveBottleneckRules; the
// app's Analysis > Bottleneck types… edits them, `bottlenecks --rules FILE --save-rules` stores a file's):
//   [{"type": "Ads calls", "how_to_fix": "Ads calls should not block the following calls",
//     "service": "^ads", "host": "...", "task": "...", "event": "...", "kind": "client"}, ...]
// "type" is required; "host", "service", "task", "event" are ECMAScript regular expressions searched in that
// field, "kind" is a span kind compared exactly; every condition given must hold (none given: always).
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "tracelight/base/Status.h"

namespace tracelight {

inline constexpr std::string_view kGapsType = "gaps";
inline constexpr std::string_view kAsyncType = "[async]";  // span data: work no caller waited for

struct BottleneckRule {
    std::string type, howToFix;
    std::string host, service, task, event;  // regexes; empty: any
    std::string kind;                        // exact span kind; empty: any
};

// What a rule looks at. A span: its host, service, task (`service:operation`), its operation as the event,
// and its kind. A segment type (event logs): its first instance's host, that host's role as the service,
// its task, its start and end events (either may match), no kind.
struct ActivityFacts {
    std::string host, service, task, startEvent, endEvent, kind;
};

class BottleneckRules {
public:
    BottleneckRules() = default;
    explicit BottleneckRules(std::vector<BottleneckRule> rules);

    const std::vector<BottleneckRule>& rules() const { return m_rules; }
    bool empty() const { return m_rules.empty(); }
    // The first rule that matches, or nullptr.
    const BottleneckRule* match(const ActivityFacts& facts) const;

    std::string toJson() const;
    // Errors name the rule (1-based) and what is wrong with it: a missing type, a bad pattern, an unknown key.
    static Result<BottleneckRules> fromJson(std::string_view json);

private:
    struct Compiled {
        std::regex host, service, task, event;
    };
    std::vector<BottleneckRule> m_rules;
    std::vector<Compiled> m_compiled;
};

class TraceStore;
// The rules stored in the database (none stored, or unreadable: none, so the defaults apply).
BottleneckRules loadBottleneckRules(const TraceStore& store);
Status saveBottleneckRules(TraceStore& store, const BottleneckRules& rules);

// The default types' "how to fix" texts.
std::string gapsHowToFix();
std::string asyncHowToFix();  // span data's work no caller waited for
std::string serviceHowToFix(const std::string& service);    // span data: one type per service
std::string hopHowToFix(const std::string& caller, const std::string& callee);  // span data: a call's hop
std::string categoryHowToFix(const std::string& category);  // event logs: one type per category

} // namespace tracelight
