#pragma once
// Shared test helpers: a scratch directory per test and small file writers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "StoreAccess.h"
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

} // namespace tracelight::test
