// libFuzzer target for one importer (the format is fixed at compile time by TRACELIGHT_FUZZ_FORMAT):
// any bytes must give a clean error or an import, never a crash, a hang or a sanitizer report.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string input = "/tmp/tracelight-fuzz-" + std::to_string(::getpid()) + ".in";
    std::FILE* f = std::fopen(input.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    auto store = TraceStore::open(":memory:", TraceStore::Mode::Create);
    if (!store) __builtin_trap();
    ImportOptions options;
    options.inputs = {input};
    options.format = *inputFormatFromName(TRACELIGHT_FUZZ_FORMAT);
    options.period = "fuzz";
    auto result = importTraces(*store.value(), options);
    // A failed import must leave nothing behind.
    if (!result && store.value()->info()->requests != 0) __builtin_trap();
    return 0;
}
