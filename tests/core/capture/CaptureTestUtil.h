#pragma once
// OTLP requests for the capture's tests, written with the protocol's own classes.
#include <zlib.h>

#include <string>

#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"

namespace tracelight::test {

namespace otlppb = opentelemetry::proto;

inline std::string bytesOfHex(const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

// A span id of 16 hex digits and a trace id of 32 from small numbers.
inline std::string spanHex(int n) {
    char text[17];
    std::snprintf(text, sizeof text, "%016x", n);
    return text;
}
inline std::string traceHex(int n) { return std::string(16, 'a') + spanHex(n); }

struct TestSpan {
    int trace = 1, span = 1, parent = 0;  // parent 0: a root
    std::string name = "op";
    std::int64_t startNs = 1'700'000'000'000'000'000, endNs = 1'700'000'000'010'000'000;
};

inline void addSpan(otlppb::trace::v1::ScopeSpans& scope, const TestSpan& t) {
    auto* s = scope.add_spans();
    s->set_trace_id(bytesOfHex(traceHex(t.trace)));
    s->set_span_id(bytesOfHex(spanHex(t.span)));
    if (t.parent) s->set_parent_span_id(bytesOfHex(spanHex(t.parent)));
    s->set_name(t.name);
    s->set_kind(otlppb::trace::v1::Span::SPAN_KIND_SERVER);
    s->set_start_time_unix_nano(static_cast<std::uint64_t>(t.startNs));
    s->set_end_time_unix_nano(static_cast<std::uint64_t>(t.endNs));
    auto* a = s->add_attributes();
    a->set_key("http.route");
    a->mutable_value()->set_string_value("/item/" + std::to_string(t.span));
    auto* e = s->add_events();
    e->set_name("cache miss");
    e->set_time_unix_nano(static_cast<std::uint64_t>(t.startNs + 1000));
}

inline std::string protobufRequest(const std::vector<TestSpan>& spans, const std::string& service = "shop") {
    otlppb::collector::trace::v1::ExportTraceServiceRequest request;
    auto* rs = request.add_resource_spans();
    auto* attr = rs->mutable_resource()->add_attributes();
    attr->set_key("service.name");
    attr->mutable_value()->set_string_value(service);
    auto* scope = rs->add_scope_spans();
    for (const auto& t : spans) addSpan(*scope, t);
    return request.SerializeAsString();
}

inline std::string jsonRequest(const std::vector<TestSpan>& spans, const std::string& service = "shop") {
    std::string out = R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":")" + service +
                      R"("}}]},"scopeSpans":[{"spans":[)";
    bool first = true;
    for (const auto& t : spans) {
        if (!first) out += ",";
        first = false;
        out += R"({"traceId":")" + traceHex(t.trace) + R"(","spanId":")" + spanHex(t.span) + R"(",)" +
               (t.parent ? R"("parentSpanId":")" + spanHex(t.parent) + R"(",)" : std::string()) + R"("name":")" + t.name +
               R"(","kind":2,"startTimeUnixNano":")" + std::to_string(t.startNs) + R"(","endTimeUnixNano":")" + std::to_string(t.endNs) +
               R"(","attributes":[{"key":"http.route","value":{"stringValue":"/item/)" + std::to_string(t.span) + R"("}}]})";
    }
    return out + "]}]}]}";
}

inline std::string gzipped(const std::string& data) {
    z_stream z{};
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, data.size()) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

} // namespace tracelight::test
