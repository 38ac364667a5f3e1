// Import throughput of the span formats on generated files of about a million spans (not run by CTest).
// Run: tracelight_bench --benchmark_filter=Spans
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <string>

#include "ImportTiming.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

constexpr int kTraces = 80000;  // 13 spans each: 1,040,000 spans

struct GenSpan {
    std::string trace, id, parent, service, op;
    std::int64_t startNs, endNs;
    bool client;
};

// A front end calls three services; each server does two database calls.
void forEachTrace(const std::function<void(const std::vector<GenSpan>&)>& f) {
    std::mt19937_64 rng(42);
    std::vector<GenSpan> spans;
    const char* services[] = {"cart", "currency", "shipping"};
    for (int t = 0; t < kTraces; ++t) {
        spans.clear();
        char trace[40];
        std::snprintf(trace, sizeof trace, "%032llx", static_cast<unsigned long long>(rng()));
        std::int64_t now = 1700000000000000000LL + std::int64_t(t) * 50000000;
        int next = 1;
        auto id = [&] {
            char b[20];
            std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(t) * 64 + next++);
            return std::string(b);
        };
        const std::string root = id();
        const std::int64_t rootStart = now;
        std::int64_t cursor = now + 100000;
        std::vector<GenSpan> children;
        for (const char* s : services) {
            const std::string client = id(), server = id();
            const std::int64_t cs = cursor, ss = cs + 200000, se = ss + 3000000 + std::int64_t(rng() % 2000000), ce = se + 200000;
            children.push_back({trace, client, root, "frontend", std::string("call-") + s, cs, ce, true});
            children.push_back({trace, server, client, s, std::string("grpc.") + s, ss, se, false});
            children.push_back({trace, id(), server, s, "db-read", ss + 100000, ss + 900000, false});
            children.push_back({trace, id(), server, s, "db-write", ss + 1000000, ss + 1900000, false});
            cursor = ce + 50000;
        }
        spans.push_back({trace, root, "", "frontend", "Recv", rootStart, cursor + 100000, false});
        spans.insert(spans.end(), children.begin(), children.end());
        f(spans);
    }
}

std::string path(const char* name) { return (std::filesystem::temp_directory_path() / name).string(); }

std::string writeOtlp() {
    const std::string p = path("tl-bench-spans.otlp.jsonl");
    if (std::filesystem::exists(p)) return p;
    std::FILE* f = std::fopen(p.c_str(), "wb");
    forEachTrace([&](const std::vector<GenSpan>& spans) {
        for (const auto& s : spans)
            std::fprintf(f,
                         "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"%s\"}}]},"
                         "\"scopeSpans\":[{\"spans\":[{\"traceId\":\"%s\",\"spanId\":\"%s\",\"parentSpanId\":\"%s\",\"name\":\"%s\","
                         "\"kind\":%d,\"startTimeUnixNano\":\"%lld\",\"endTimeUnixNano\":\"%lld\"}]}]}]}\n",
                         s.service.c_str(), s.trace.c_str(), s.id.c_str(), s.parent.c_str(), s.op.c_str(), s.client ? 3 : 2,
                         static_cast<long long>(s.startNs), static_cast<long long>(s.endNs));
    });
    std::fclose(f);
    return p;
}

std::string writeJaeger() {
    const std::string p = path("tl-bench-spans.jaeger.json");
    if (std::filesystem::exists(p)) return p;
    std::FILE* f = std::fopen(p.c_str(), "wb");
    std::fputs("{\"data\":[", f);
    bool firstTrace = true;
    forEachTrace([&](const std::vector<GenSpan>& spans) {
        std::fprintf(f, "%s{\"traceID\":\"%s\",\"spans\":[", firstTrace ? "" : ",", spans[0].trace.c_str());
        firstTrace = false;
        for (std::size_t i = 0; i < spans.size(); ++i) {
            const auto& s = spans[i];
            std::fprintf(f, "%s{\"traceID\":\"%s\",\"spanID\":\"%s\",\"operationName\":\"%s\",\"references\":[", i ? "," : "",
                         s.trace.c_str(), s.id.c_str(), s.op.c_str());
            if (!s.parent.empty()) std::fprintf(f, "{\"refType\":\"CHILD_OF\",\"traceID\":\"%s\",\"spanID\":\"%s\"}", s.trace.c_str(), s.parent.c_str());
            std::fprintf(f, "],\"startTime\":%lld,\"duration\":%lld,\"tags\":[{\"key\":\"span.kind\",\"type\":\"string\",\"value\":\"%s\"}],"
                            "\"processID\":\"%s\"}",
                         static_cast<long long>(s.startNs / 1000), static_cast<long long>((s.endNs - s.startNs) / 1000),
                         s.client ? "client" : "server", s.service.c_str());
        }
        std::fputs("],\"processes\":{", f);
        const char* names[] = {"frontend", "cart", "currency", "shipping"};
        for (int k = 0; k < 4; ++k) std::fprintf(f, "%s\"%s\":{\"serviceName\":\"%s\",\"tags\":[]}", k ? "," : "", names[k], names[k]);
        std::fputs("}}", f);
    });
    std::fputs("]}\n", f);
    std::fclose(f);
    return p;
}

std::string writeZipkin() {
    const std::string p = path("tl-bench-spans.zipkin.json");
    if (std::filesystem::exists(p)) return p;
    std::FILE* f = std::fopen(p.c_str(), "wb");
    std::fputs("[", f);
    bool first = true;
    forEachTrace([&](const std::vector<GenSpan>& spans) {
        for (const auto& s : spans) {
            std::fprintf(f, "%s{\"traceId\":\"%s\",\"id\":\"%s\",%s%s%s\"name\":\"%s\",\"kind\":\"%s\",\"timestamp\":%lld,\"duration\":%lld,"
                            "\"localEndpoint\":{\"serviceName\":\"%s\"}}",
                         first ? "" : ",", s.trace.c_str(), s.id.c_str(), s.parent.empty() ? "" : "\"parentId\":\"",
                         s.parent.c_str(), s.parent.empty() ? "" : "\",", s.op.c_str(), s.client ? "CLIENT" : "SERVER",
                         static_cast<long long>(s.startNs / 1000), static_cast<long long>((s.endNs - s.startNs) / 1000), s.service.c_str());
            first = false;
        }
    });
    std::fputs("]\n", f);
    std::fclose(f);
    return p;
}

std::string writeCsv() {
    const std::string p = path("tl-bench-spans.csv");
    if (std::filesystem::exists(p)) return p;
    std::FILE* f = std::fopen(p.c_str(), "wb");
    std::fputs("TraceID,SpanID,ParentID,PodName,OperationName,StartTimeUnixNano,EndTimeUnixNano,Duration\n", f);
    forEachTrace([&](const std::vector<GenSpan>& spans) {
        for (const auto& s : spans)
            std::fprintf(f, "%s,%s,%s,%s-5d8f7c9b6d-x2k4p,%s,%lld,%lld,%lld\n", s.trace.c_str(), s.id.c_str(),
                         s.parent.empty() ? "root" : s.parent.c_str(), s.service.c_str(), s.op.c_str(),
                         static_cast<long long>(s.startNs), static_cast<long long>(s.endNs),
                         static_cast<long long>((s.endNs - s.startNs) / 1000));
    });
    std::fclose(f);
    return p;
}

void runImport(benchmark::State& state, const std::string& file) { bench::timeImport(state, file, "spans"); }

void BM_ImportSpansOtlp(benchmark::State& s) { runImport(s, writeOtlp()); }
void BM_ImportSpansJaeger(benchmark::State& s) { runImport(s, writeJaeger()); }
void BM_ImportSpansZipkin(benchmark::State& s) { runImport(s, writeZipkin()); }
void BM_ImportSpansCsv(benchmark::State& s) { runImport(s, writeCsv()); }
BENCHMARK(BM_ImportSpansOtlp)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_ImportSpansJaeger)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_ImportSpansZipkin)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_ImportSpansCsv)->Unit(benchmark::kSecond)->Iterations(1);

} // namespace
