#pragma once
// A trace database holding n generated page loads, imported through events-csv as a user would (each host
// on its own skewed clock, nanosecond decimals in ts_us). Not analysed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "TestUtil.h"
#include "generator/PageLoadGenerator.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::test {

inline std::unique_ptr<TraceStore> generatedStore(const ScratchDir& dir, std::int64_t n, std::uint64_t seed) {
    samples::GeneratorOptions options;
    options.seed = seed;
    options.requests = n;
    const samples::PageLoadGenerator gen(options);
    const std::string csv = dir.file("sample.csv");
    {
        std::ofstream out(csv);
        out << "request,host,task,event,ts_us,seq\n";
        for (std::int64_t i = 0; i < n; ++i) {
            const auto r = gen.generate(i);
            for (const auto& e : r.events)
                out << r.name << ',' << gen.hostName(e.host) << ',' << samples::PageLoadGenerator::taskNames()[e.task] << ','
                    << samples::PageLoadGenerator::eventNames()[e.event] << ','
                    << formatMicroseconds(e.trueNs + gen.clockOffsetNs(e.host)) << ',' << e.seq << '\n';
        }
    }
    auto store = TraceStore::open(dir.file("s.tldb"), TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    ImportOptions import;
    import.inputs = {csv};
    EXPECT_TRUE(importTraces(*store.value(), import));
    return std::move(store.value());
}

// Two of the real Jaeger traces (span requests: known links, per-trace operations) added to `store`, when
// the shared real data is here.
inline void addRealJaegerTraces(TraceStore& store) {
    const std::string jaeger = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/jaeger";
    if (!std::filesystem::is_directory(jaeger)) return;
    ImportOptions import;
    for (const char* f : {"TraceStatistics__testTrace.json", "TraceGraph__testTrace.json"}) import.inputs.push_back(jaeger + "/" + f);
    EXPECT_TRUE(importTraces(store, import));
}

} // namespace tracelight::test
