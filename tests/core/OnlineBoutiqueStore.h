#pragma once
// Online Boutique minutes of the shared real data (../shared/realdata/nezha-onlineboutique) in a new trace
// database, each group of files as a period of its own, analysed when asked. Tests skip without the data.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tracelight/analysis/Analysis.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::test {

inline const std::string kOnlineBoutique = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/nezha-onlineboutique/";
inline const std::string kObNormalMinute = "normal/2022-08-23_17_00_trace.csv";  // relative to kOnlineBoutique

inline bool haveOnlineBoutique() { return std::filesystem::exists(kOnlineBoutique + kObNormalMinute); }

struct ObPeriod {
    std::string name;
    std::vector<std::string> files;  // relative to kOnlineBoutique
};

// The database at `file`, made new; null after a failed expectation.
inline std::unique_ptr<TraceStore> onlineBoutiqueStore(const std::string& file, const std::vector<ObPeriod>& periods, bool analyse) {
    auto store = TraceStore::open(file, TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    if (!store) return nullptr;
    for (const ObPeriod& p : periods) {
        ImportOptions options;
        options.period = p.name;
        for (const auto& f : p.files) options.inputs.push_back(kOnlineBoutique + f);
        auto imported = importTraces(*store.value(), options);
        EXPECT_TRUE(imported) << imported.message();
        if (!imported) return nullptr;
    }
    if (analyse) {
        auto analysed = analyzeStore(*store.value(), AnalysisOptions{});
        EXPECT_TRUE(analysed) << analysed.message();
        if (!analysed) return nullptr;
    }
    return std::move(store.value());
}

// The normal minute against the network delay injected into currencyservice (05:27 and 05:28), analysed:
// periods "normal" and "fault".
inline std::unique_ptr<TraceStore> currencyDelayStore(const std::string& file) {
    return onlineBoutiqueStore(file, {{"normal", {kObNormalMinute}}, {"fault", {"fault/05_27_trace.csv", "fault/05_28_trace.csv"}}}, true);
}

} // namespace tracelight::test
