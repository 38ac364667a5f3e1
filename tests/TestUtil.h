#pragma once
// Shared test helpers: a scratch directory per test and small file writers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "StoreAccess.h"
#include "tracelight/store/Periods.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::test {

class ScratchDir {
public:
    ScratchDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_path = std::filesystem::temp_directory_path() /
                 ("tracelight-test-" + std::string(info ? info->test_suite_name() : "x") + "-" +
                  std::string(info ? info->name() : "y") + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
        std::filesystem::remove_all(m_path);
        std::filesystem::create_directories(m_path);
    }
    ~ScratchDir() { std::filesystem::remove_all(m_path); }

    std::string file(const std::string& name) const { return (m_path / name).string(); }
    std::string write(const std::string& name, const std::string& content) const {
        const std::string p = file(name);
        std::ofstream(p, std::ios::binary) << content;
        return p;
    }

private:
    static int& counter() {
        static int n = 0;
        return n;
    }
    std::filesystem::path m_path;
};

// The names of the requests in the store's periods, period by period.
inline std::vector<std::string> storedRequestNames(const TraceStore& store) {
    std::vector<std::string> out;
    for (const auto& period : listPeriods(store))
        for (RequestId id : requestsInPeriod(store, period.name))
            if (auto name = requestName(store, id)) out.push_back(*name);
    return out;
}

// `traces` Jaeger traces of five spans: a root calling a backend (client span, its server joined into the
// client's task, which queries a database) and then rendering; each trace at its own time.
inline std::string jaegerCalls(int traces) {
    std::string data;
    for (int t = 0; t < traces; ++t) {
        const std::string id = "t" + std::to_string(t);
        const std::int64_t at = 1700000000000000 + 10000 * std::int64_t(t);
        auto spanJson = [&](const char* span, const char* parent, const char* op, std::int64_t start, std::int64_t duration,
                            const char* process, const char* kind) {
            std::string s = R"({"traceID":")" + id + R"(","spanID":")" + id + span + R"(","operationName":")" + op + R"(","references":[)";
            if (*parent) s += R"({"refType":"CHILD_OF","traceID":")" + id + R"(","spanID":")" + id + parent + R"("})";
            s += R"(],"startTime":)" + std::to_string(at + start) + R"(,"duration":)" + std::to_string(duration) +
                 R"(,"processID":")" + process + R"(","tags":[)";
            if (*kind) s += R"({"key":"span.kind","type":"string","value":")" + std::string(kind) + R"("})";
            return s + "]}";
        };
        data += std::string(t ? "," : "") + R"({"traceID":")" + id + R"(","spans":[)" + spanJson("a", "", "GET /", 0, 1000, "p1", "server") +
                "," + spanJson("b", "a", "call backend", 100, 500, "p1", "client") + "," +
                spanJson("c", "b", "handle", 150, 400, "p2", "server") + "," + spanJson("d", "c", "query", 200, 100, "p2", "client") +
                "," + spanJson("e", "a", "render", 700, 200 + t, "p1", "") +
                R"(],"processes":{"p1":{"serviceName":"frontend","tags":[]},"p2":{"serviceName":"backend","tags":[]}}})";
    }
    return R"({"data":[)" + data + "]}";
}

} // namespace tracelight::test
