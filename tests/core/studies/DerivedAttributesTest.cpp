// Derived attributes (the Mystery Machine's measured bandwidth, Fig. 7): the expression language against values
// worked out by hand, and bandwidth = bytes / network time against each request's own segments and against the
// generator's truth (the connection each page load was given).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "TestUtil.h"
#include "generator/PageLoadGenerator.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/analysis/Analysis.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/studies/Aggregates.h"
#include "tracelight/studies/DerivedAttributes.h"

using namespace tracelight;

namespace {

// Three requests, categories network and web (row r's are at 2r and 2r + 1): summed and critical times in whole
// seconds, latency 10 s. Request 1 has no network time.
RequestAggregates handMade() {
    RequestAggregates a;
    a.categories = {"network", "web"};
    a.ids = {RequestId(1), RequestId(2), RequestId(3)};
    a.latencyNs = {10'000'000'000, 10'000'000'000, 10'000'000'000};
    a.blindNs = {0, 0, 0};
    a.summedNs = {2'000'000'000, 4'000'000'000, 0, 1'000'000'000, 4'000'000'000, 8'000'000'000};
    a.criticalNs = {1'000'000'000, 3'000'000'000, 0, 1'000'000'000, 2'000'000'000, 5'000'000'000};
    return a;
}

std::vector<std::string> values(std::string_view definition, const std::map<std::string, std::vector<std::string>>& attrs) {
    auto d = parseDerivedAttribute(definition);
    EXPECT_TRUE(d) << d.message();
    if (!d) return {};
    auto v = derivedValues(d.value(), handMade(), [&](std::string_view key) {
        auto it = attrs.find(std::string(key));
        return it == attrs.end() ? std::vector<std::string>(3) : it->second;
    });
    EXPECT_TRUE(v) << v.message();
    return v ? v.value() : std::vector<std::string>{};
}

// n generated page loads as events-csv, as tracelight-sample writes them: every attribute on a request's first row.
std::unique_ptr<TraceStore> pageLoadsWithAttributes(const test::ScratchDir& dir, std::int64_t n) {
    samples::GeneratorOptions options;
    options.seed = 5;
    options.requests = n;
    const samples::PageLoadGenerator gen(options);
    const std::string csv = dir.file("attrs.csv");
    {
        std::ofstream out(csv);
        out << "request,host,task,event,ts_us,seq";
        for (const auto& [key, value] : gen.generate(0).attributes) out << ',' << key;
        out << '\n';
        for (std::int64_t i = 0; i < n; ++i) {
            const auto r = gen.generate(i);
            bool first = true;
            for (const auto& e : r.events) {
                out << r.name << ',' << gen.hostName(e.host) << ',' << samples::PageLoadGenerator::taskNames()[e.task] << ','
                    << samples::PageLoadGenerator::eventNames()[e.event] << ',' << formatMicroseconds(e.trueNs + gen.clockOffsetNs(e.host))
                    << ',' << e.seq;
                for (const auto& [key, value] : r.attributes) out << ',' << (first ? value : "");
                out << '\n';
                first = false;
            }
        }
    }
    auto store = TraceStore::open(dir.file("attrs.tldb"), TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    if (!store) return nullptr;
    ImportOptions import;
    import.inputs = {csv};
    EXPECT_TRUE(importTraces(*store.value(), import));
    return std::move(store.value());
}

} // namespace

TEST(DerivedAttributes, ArithmeticFollowsPrecedenceParenthesesAndUnits) {
    const std::map<std::string, std::vector<std::string>> attrs = {{"bytes", {"1000", "4000", "12"}}, {"b", {"2", "x", ""}}};
    using V = std::vector<std::string>;
    // Seconds: request 0's network time is 2 s, request 1 has none (a division by zero: no value).
    EXPECT_EQ(values("bandwidth=bytes/time(network)", attrs), (V{"500", "", "3"}));
    EXPECT_EQ(values("x = 1 + 2 * 3", attrs), (V{"7", "7", "7"}));
    EXPECT_EQ(values("x=(1+2)*3-6/4", attrs), (V{"7.5", "7.5", "7.5"}));
    EXPECT_EQ(values("x=-bytes+1", attrs), (V{"-999", "-3999", "-11"}));
    EXPECT_EQ(values("x=10-4-3", attrs), (V{"3", "3", "3"}));  // left to right
    EXPECT_EQ(values("x=critical(web)/latency()", attrs), (V{"0.3", "0.1", "0.5"}));
    EXPECT_EQ(values("x=time(web)-critical(web)", attrs), (V{"1", "0", "3"}));
    // An attribute that is absent, or not a number, leaves the request without a value.
    EXPECT_EQ(values("x=b*bytes", attrs), (V{"2000", "", ""}));
    EXPECT_EQ(values("x=missing+1", attrs), (V{"", "", ""}));
    auto d = parseDerivedAttribute(" bw = bytes / time(network) ");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->definition(), "bw=bytes / time(network)");
    EXPECT_EQ(d->attributes(), (V{"bytes"}));
    EXPECT_EQ(d->categories(), (V{"network"}));
}

TEST(DerivedAttributes, MistakesAreNamedWithTheirPlace) {
    auto message = [](std::string_view definition) {
        auto d = parseDerivedAttribute(definition);
        EXPECT_FALSE(d) << definition;
        return d ? std::string() : d.message();
    };
    EXPECT_NE(message("bandwidth").find("has no '='"), std::string::npos);
    EXPECT_NE(message("x=bytes/").find("missing at the end"), std::string::npos);
    EXPECT_NE(message("x=(1+2").find("')' is missing"), std::string::npos);
    EXPECT_NE(message("x=speed(network)").find("unknown function 'speed'"), std::string::npos);
    EXPECT_NE(message("x=time()").find("needs a category"), std::string::npos);
    EXPECT_NE(message("x=1 $ 2").find("unexpected '$' at character 3"), std::string::npos);
    EXPECT_NE(message("1x=3").find("cannot name"), std::string::npos);
    EXPECT_NE(message("period=1").find("periods"), std::string::npos);
    auto d = parseDerivedAttribute("x=time(disk)");
    ASSERT_TRUE(d);
    auto v = derivedValues(d.value(), handMade(), [](std::string_view) { return std::vector<std::string>(3); });
    ASSERT_FALSE(v);
    EXPECT_NE(v.message().find("no category 'disk' (categories: network, web)"), std::string::npos) << v.message();
}

// Measured bandwidth over generated page loads: per request, its bytes over the time of its own network segments
// (read back one by one); cut into quintiles, the fastest fifth is mostly fibre and cable, the slowest mostly not.
TEST(DerivedAttributes, BandwidthIsBytesOverEachRequestsNetworkTimeAndStratifiesByConnection) {
    test::ScratchDir dir;
    auto store = pageLoadsWithAttributes(dir, 600);
    ASSERT_TRUE(store);
    ASSERT_TRUE(analyzeStore(*store, AnalysisOptions{}));
    auto analysis = loadAnalysis(*store);
    ASSERT_TRUE(analysis) << analysis.message();
    auto a = computeAggregates(analysis.value(), loadCategoryRules(*store), 0, nullptr, nullptr, store.get());
    ASSERT_TRUE(a) << a.message();

    // Kept in the database, and read back by name as the views read an attribute.
    auto bandwidth = parseDerivedAttribute("bandwidth=bytes/time(network)");
    ASSERT_TRUE(bandwidth) << bandwidth.message();
    ASSERT_TRUE(saveDerivedAttributes(*store, {bandwidth.value()}));
    ASSERT_EQ(loadDerivedAttributes(*store).size(), 1u);
    auto values = requestAttributeValues(*store, a.value(), "bandwidth");
    ASSERT_TRUE(values) << values.message();
    ASSERT_EQ(values->size(), a->requests());

    const std::vector<std::string> bytes = attributeValues(*store, a->ids, "bytes");
    for (std::size_t r = 0; r < a->requests(); ++r) {
        const auto name = requestName(*store, a->ids[r]);
        ASSERT_TRUE(name);
        auto detail = loadRequestAnalysis(*store, *name);
        ASSERT_TRUE(detail) << detail.message();
        TimeNs network = 0;
        for (const auto& s : detail->segments) network += s.network ? s.durationNs : 0;
        ASSERT_GT(network, 0) << *name;
        const double want = std::stod(bytes[r]) / (double(network) / 1e9);
        ASSERT_FALSE(values.value()[r].empty()) << *name;
        EXPECT_NEAR(std::stod(values.value()[r]), want, want * 1e-12) << *name;
    }

    // The generator's truth: fibre and cable carry 6 to 12 bytes per microsecond, dsl, 4g and 3g one or less.
    const std::vector<std::string> connection = attributeValues(*store, a->ids, "connection");
    const auto strata = stratify(a.value(), values.value(), 5);
    ASSERT_EQ(strata.size(), 5u);
    auto fastShare = [&](const Stratum& s) {
        double fast = 0;
        for (auto r : s.rows) fast += connection[r] == "fiber" || connection[r] == "cable";
        return fast / double(s.rows.size());
    };
    EXPECT_GT(fastShare(strata.back()), 0.8) << strata.back().value;
    EXPECT_LT(fastShare(strata.front()), 0.2) << strata.front().value;
}
