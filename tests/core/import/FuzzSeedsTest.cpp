// The fuzzers' seed corpus (tests/fuzz/seeds: the hostile inputs of issue 10 and cuts of real files)
// as a regression suite that needs no clang: each seed, as its target's format and as auto, must import
// or fail with a message, leave nothing behind when it fails, and raise no sanitizer report (the asan
// preset runs this with UBSan fatal).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;
namespace fs = std::filesystem;

TEST(FuzzSeeds, EachImportsOrFailsCleanly) {
    const fs::path seeds = TRACELIGHT_FUZZ_SEEDS_DIR;
    ASSERT_TRUE(fs::is_directory(seeds)) << seeds;
    int tried = 0;
    for (const auto& entry : fs::recursive_directory_iterator(seeds)) {
        if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
        const fs::path& file = entry.path();
        // seeds/<target>/file: the target's format (events_csv -> events-csv); top-level files by extension.
        std::string format = file.parent_path() == seeds ? (file.extension() == ".csv" ? "events-csv" : "events-jsonl")
                                                         : file.parent_path().filename().string();
        std::replace(format.begin(), format.end(), '_', '-');
        for (const std::string& as : {format, std::string("auto")}) {
            SCOPED_TRACE(file.string() + " as " + as);
            auto store = TraceStore::open(":memory:", TraceStore::Mode::Create);
            ASSERT_TRUE(store) << store.message();
            ImportOptions options;
            options.inputs = {file.string()};
            const auto parsed = inputFormatFromName(as);
            ASSERT_TRUE(parsed.has_value());
            options.format = *parsed;
            auto result = importTraces(*store.value(), options);
            if (result) {
                EXPECT_GT(result.value().events, 0);
            } else {
                EXPECT_FALSE(result.message().empty());
                auto info = store.value()->info();
                ASSERT_TRUE(info);
                EXPECT_EQ(info.value().requests, 0) << result.message();
            }
            ++tried;
        }
    }
    EXPECT_GE(tried, 2 * 40);
}
