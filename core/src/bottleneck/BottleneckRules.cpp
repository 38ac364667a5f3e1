#include "tracelight/bottleneck/BottleneckRules.h"

#include "tracelight/base/Json.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/ResultCache.h"

namespace tracelight {

namespace {
// An empty pattern matches anything (".*" would too, but costs a regex search per span).
bool matches(const std::string& pattern, const std::regex& compiled, const std::string& text) {
    return pattern.empty() || std::regex_search(text, compiled);
}
} // namespace

BottleneckRules::BottleneckRules(std::vector<BottleneckRule> rules) : m_rules(std::move(rules)) {
    for (const auto& r : m_rules) m_compiled.push_back({std::regex(r.host), std::regex(r.service), std::regex(r.task), std::regex(r.event)});
}

const BottleneckRule* BottleneckRules::match(const ActivityFacts& facts) const {
    for (std::size_t i = 0; i < m_rules.size(); ++i) {
        const BottleneckRule& r = m_rules[i];
        const Compiled& c = m_compiled[i];
        if (!r.kind.empty() && r.kind != facts.kind) continue;
        if (!matches(r.host, c.host, facts.host) || !matches(r.service, c.service, facts.service) || !matches(r.task, c.task, facts.task))
            continue;
        if (!r.event.empty() && !std::regex_search(facts.startEvent, c.event) && !std::regex_search(facts.endEvent, c.event)) continue;
        return &r;
    }
    return nullptr;
}

std::string BottleneckRules::toJson() const {
    JsonWriter w;
    w.beginArray();
    for (const auto& r : m_rules) {
        w.beginObject().key("type").value(r.type);
        if (!r.howToFix.empty()) w.key("how_to_fix").value(r.howToFix);
        for (auto [key, value] : {std::pair{"host", &r.host}, {"service", &r.service}, {"task", &r.task}, {"event", &r.event}, {"kind", &r.kind}})
            if (!value->empty()) w.key(key).value(*value);
        w.endObject();
    }
    w.endArray();
    return w.text();
}

Result<BottleneckRules> BottleneckRules::fromJson(std::string_view json) {
    JsonValue v;
    std::string error;
    std::size_t offset = 0;
    if (!JsonValue::parse(json, v, &error, &offset)) return Status::error("bottleneck rules: byte " + std::to_string(offset) + ": " + error);
    if (!v.isArray()) return Status::error("bottleneck rules: not a JSON array of rules");
    std::vector<BottleneckRule> rules;
    for (std::size_t i = 0; i < v.array().size(); ++i) {
        const JsonValue& item = v.array()[i];
        const std::string where = "bottleneck rule " + std::to_string(i + 1) + ": ";
        if (!item.isObject()) return Status::error(where + "not an object");
        BottleneckRule r;
        for (const auto& [key, value] : item.object()) {
            std::string* field = key == "type"         ? &r.type
                                 : key == "how_to_fix" ? &r.howToFix
                                 : key == "host"       ? &r.host
                                 : key == "service"    ? &r.service
                                 : key == "task"       ? &r.task
                                 : key == "event"      ? &r.event
                                 : key == "kind"       ? &r.kind
                                                       : nullptr;
            // A misspelt key would silently widen the rule: refuse it.
            if (!field) return Status::error(where + "unknown key '" + std::string(key) + "' (type, how_to_fix, host, service, task, event, kind)");
            if (!value.isString()) return Status::error(where + "'" + std::string(key) + "' is not a string");
            *field = value.string();
        }
        if (r.type.empty()) return Status::error(where + "no type");
        for (auto [key, pattern] : {std::pair{"host", &r.host}, {"service", &r.service}, {"task", &r.task}, {"event", &r.event}}) {
            try {
                std::regex check(*pattern);
            } catch (const std::regex_error& e) {
                return Status::error(where + "bad " + key + " pattern '" + *pattern + "': " + e.what());
            }
        }
        rules.push_back(std::move(r));
    }
    return BottleneckRules(std::move(rules));
}

namespace {
constexpr const char* kStoredRules = "bottleneck_rules";  // a result row, as the category rules are
} // namespace

BottleneckRules loadBottleneckRules(const TraceStore& store) {
    if (auto json = latestResult(store, kStoredRules, 0))
        if (auto rules = BottleneckRules::fromJson(*json)) return std::move(rules.value());
    return {};
}

Status saveBottleneckRules(TraceStore& store, const BottleneckRules& rules) {
    return putResult(store, kStoredRules, 0, "", rules.toJson());
}

std::string gapsHowToFix() {
    return "Nothing traced was running: untraced work (script execution, parsing, rendering), queueing, or a missing "
           "span. Add instrumentation (markers) there to see what it is.";
}

std::string asyncHowToFix() {
    return "Work no caller waited for (a child after its parent ended, or the part of it past its parent's end; "
           "detached work): it does not delay the response itself, only competes with it for the same machines. Move "
           "it off the request's hosts, or schedule it when they are idle.";
}

std::string hopHowToFix(const std::string& caller, const std::string& callee) {
    return "Time " + caller + "'s calls to " + callee + " spent between the two: its client spans waiting while " + callee +
           "'s server spans had not started or had already returned (network, queues, connection pools, serialisation). "
           "Look at the path between them and at " + callee + "'s intake, not at either's own code.";
}

std::string serviceHowToFix(const std::string& service) {
    return "Time " + service + " spent in its own work and its network trips, not waiting on the calls it makes: speed up " +
           service + "'s processing, or run it beside other work instead of blocking it.";
}

std::string categoryHowToFix(const std::string& category) {
    if (category == "network")
        return "Time on the network between hosts: fewer or smaller round trips, or overlap them with other work.";
    return "Time in work on " + category + " hosts: speed it up, or run it beside other work instead of blocking it.";
}

} // namespace tracelight
