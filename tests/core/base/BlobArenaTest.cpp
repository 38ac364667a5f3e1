// Views into the arena stay valid and exact however many blobs follow, a blob bigger than a chunk
// included, and adopted messages (short ones too) keep their bytes where the views point.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tracelight/base/BlobArena.h"

using namespace tracelight;

TEST(BlobArena, ViewsStayValidAsBlobsAreAdded) {
    BlobArena arena;
    std::vector<std::string> expected;
    std::vector<std::string_view> views;
    for (int i = 0; i < 40000; ++i) {
        // Mostly small, now and then one past the chunk size, and some empty.
        std::string blob(i % 9973 == 0 ? (3u << 20) + i : std::size_t(i % 97), static_cast<char>('a' + i % 26));
        if (!blob.empty()) blob[0] = static_cast<char>(i);
        views.push_back(arena.keep(blob));
        expected.push_back(std::move(blob));
    }
    for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(views[i], expected[i]) << i;
}

TEST(BlobArena, AdoptedMessagesKeepTheirBytesInPlace) {
    BlobArena arena;
    std::vector<std::string_view> views;
    for (int i = 0; i < 1000; ++i) views.push_back(arena.adopt(std::string(std::size_t(i % 20), static_cast<char>('A' + i % 26))));
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(views[std::size_t(i)], std::string(std::size_t(i % 20), static_cast<char>('A' + i % 26))) << i;
}
