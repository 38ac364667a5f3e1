// Mutation fuzzing of the event-log importers: any byte soup gets a clean error naming the file, or
// imports; never a crash, a hang or a half-written database.
#include <gtest/gtest.h>

#include <random>

#include "TestUtil.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

std::string seedCsv() {
    return "request,host,task,event,ts_us,seq,browser\n"
           "r1,c,main,START,1000,1,Chrome\n"
           "r1,s,main,RECV,5000,2,\n"
           "r1,s,main,SEND,5090.5,3,\n"
           "r1,c,main,DONE,1200,4,\n"
           "r2,c,\"m,2\",START,10,1,\"Fire\"\"fox\"\n"
           "r2,c,\"m,2\",DONE,20,2,\n";
}

std::string seedJsonl() {
    return R"({"request":"r1","host":"c","task":"main","event":"START","ts_us":1000,"seq":1,"attrs":{"browser":"Chrome"}})"
           "\n"
           R"({"request":"r1","host":"s","task":"main","event":"RECV","ts_us":5000,"seq":2})"
           "\n"
           R"({"request":"r1","host":"c","task":"main","event":"DONE","ts_us":1200.5,"seq":3,"x":true})"
           "\n";
}

std::string mutate(std::string s, std::mt19937& rng) {
    static const char kInteresting[] = {',', '"', '\n', '{', '}', '[', ':', '\\', '\0', '-', 'e', '9', ' ', '\r'};
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
        const std::size_t at = rng() % s.size();
        switch (rng() % 5) {
        case 0: s[at] = static_cast<char>(rng() % 256); break;                       // flip a byte
        case 1: s.erase(at, 1 + rng() % 8); break;                                     // delete a run
        case 2: s.insert(at, 1, kInteresting[rng() % sizeof kInteresting]); break;     // insert a syntax char
        case 3: s.resize(at); break;                                                   // truncate
        case 4: s.insert(at, s.substr(rng() % s.size(), 1 + rng() % 20)); break;      // duplicate a piece
        }
    }
    return s;
}

void fuzz(const std::string& seed, const std::string& extension, InputFormat format, unsigned rngSeed) {
    test::ScratchDir dir;
    std::mt19937 rng(rngSeed);
    int accepted = 0, rejected = 0;
    for (int i = 0; i < 250; ++i) {
        const std::string input = dir.write("in" + std::to_string(i) + extension, mutate(seed, rng));
        const std::string db = dir.file("db" + std::to_string(i) + ".tldb");
        auto store = TraceStore::open(db, TraceStore::Mode::Create);
        ASSERT_TRUE(store);
        ImportOptions options;
        options.inputs = {input};
        options.format = format;
        auto result = importTraces(*store.value(), options);
        auto info = store.value()->info();
        ASSERT_TRUE(info) << "database unreadable after input " << i;
        if (result) {
            ++accepted;
            EXPECT_EQ(info->events, result->events);
        } else {
            ++rejected;
            EXPECT_EQ(result.message().rfind(input, 0), 0u) << "error does not start with the file: " << result.message();
            EXPECT_EQ(result.message().find('\n'), std::string::npos);
            EXPECT_EQ(info->requests, 0) << "a failed import left requests behind";
            EXPECT_EQ(info->events, 0);
        }
    }
    EXPECT_GT(rejected, 20);  // the mutations do reach the error paths
    EXPECT_GT(accepted, 5);   // and some still parse
}

} // namespace

TEST(ImportFuzz, EventsCsvMutations) { fuzz(seedCsv(), ".csv", InputFormat::EventsCsv, 1); }
TEST(ImportFuzz, EventsJsonlMutations) { fuzz(seedJsonl(), ".jsonl", InputFormat::EventsJsonl, 2); }
TEST(ImportFuzz, AutoDetectedMutations) { fuzz(seedCsv(), ".dat", InputFormat::Auto, 3); }
