#include "tracelight/base/LoadableModule.h"

#include <gtest/gtest.h>

namespace tracelight {
namespace {

// The OTLP/gRPC module is built beside the core library: found there, whatever directory the program runs in.
TEST(LoadableModule, AModuleBesideTheCoreLibraryIsFoundAndItsEntryGiven) {
    auto entry = moduleSymbol("tracelight_grpc", "tracelight_otlp_grpc_start");
    ASSERT_TRUE(entry) << entry.message();
    EXPECT_NE(entry.value(), nullptr);
    // Loaded once: the same address again.
    auto again = moduleSymbol("tracelight_grpc", "tracelight_otlp_grpc_start");
    ASSERT_TRUE(again);
    EXPECT_EQ(again.value(), entry.value());
}

TEST(LoadableModule, AMissingModuleOrEntryIsOneLineNamingIt) {
    auto missing = moduleSymbol("tracelight_no_such_module", "anything");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.message().find("libtracelight_no_such_module.so"), std::string::npos) << missing.message();
    EXPECT_EQ(missing.message().find('\n'), std::string::npos);
    auto noEntry = moduleSymbol("tracelight_grpc", "no_such_entry");
    ASSERT_FALSE(noEntry);
    EXPECT_NE(noEntry.message().find("no_such_entry"), std::string::npos) << noEntry.message();
}

} // namespace
} // namespace tracelight
