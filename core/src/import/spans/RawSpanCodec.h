#pragma once
// A RawSpan as one compact JSON text and back: how spans wait in a table of the store (the import's
// staging table past its memory budget, the live capture's received spans) until their trace is assembled.
#include <string>
#include <string_view>

#include "tracelight/base/Json.h"
#include "tracelight/base/Status.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/spans/Spans.h"

namespace tracelight {

// Every field but the trace id, which the table keeps as its key.
inline std::string encodeRawSpan(const RawSpan& s) {
    JsonWriter w;
    w.beginObject().key("s").value(s.spanId).key("p").value(s.parentId).key("sv").value(s.service).key("h").value(s.host)
        .key("o").value(s.operation).key("b").value(s.startNs).key("e").value(s.endNs).key("sh").value(s.shared)
        .key("t").value(s.hasTimestamp).key("te").value(s.timeError).key("a").beginArray();
    for (const auto& [k, v] : s.attributes) w.beginArray().value(k).value(v).endArray();
    w.endArray().key("pa").beginArray();
    for (const auto& [k, v] : s.processAttributes) w.beginArray().value(k).value(v).endArray();
    w.endArray().key("ev").beginArray();
    for (const auto& [name, ts] : s.events) w.beginArray().value(name).value(ts).endArray();
    w.endArray().key("ff").beginArray();
    for (const auto& id : s.followsFrom) w.value(id);
    w.endArray().key("pf").value(s.parentFollowsFrom).endObject();
    return w.text();
}

// The span encodeRawSpan wrote, with its trace id; an error when the text is not such a span.
inline Result<RawSpan> decodeRawSpan(std::string_view traceId, std::string_view data) {
    JsonValue v;
    if (!JsonValue::parse(data, v, nullptr, nullptr) || !v.isObject()) return Status::error("damaged staged span");
    for (const char* key : {"s", "p", "sv", "h", "o", "b", "e", "sh", "t", "te", "a", "ev"})
        if (!v.find(key)) return Status::error("damaged staged span");
    RawSpan s;
    s.traceId = std::string(traceId);
    s.spanId = v.find("s")->string();
    s.parentId = v.find("p")->string();
    s.service = v.find("sv")->string();
    s.host = v.find("h")->string();
    s.operation = v.find("o")->string();
    // Integers from their literal text: a double would round nanoseconds at today's epoch.
    auto integer = [](const JsonValue* n) { return parseNanoseconds(n->string()).value_or(0); };
    s.startNs = integer(v.find("b"));
    s.endNs = integer(v.find("e"));
    s.shared = v.find("sh")->boolean();
    s.hasTimestamp = v.find("t")->boolean();
    s.timeError = v.find("te")->string();
    auto pair = [](const JsonValue& a, std::size_t i) { return i < a.array().size() ? a.array()[i].string() : std::string(); };
    for (const auto& a : v.find("a")->array()) s.attributes.emplace_back(pair(a, 0), pair(a, 1));
    if (const JsonValue* pa = v.find("pa"))
        for (const auto& a : pa->array()) s.processAttributes.emplace_back(pair(a, 0), pair(a, 1));
    for (const auto& e : v.find("ev")->array())
        s.events.emplace_back(pair(e, 0), e.array().size() > 1 ? integer(&e.array()[1]) : 0);
    if (const JsonValue* ff = v.find("ff"))
        for (const auto& id : ff->array()) s.followsFrom.push_back(id.string());
    if (const JsonValue* pf = v.find("pf")) s.parentFollowsFrom = pf->boolean();
    return s;
}

} // namespace tracelight
