#include "tracelight/store/LabelTexts.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tracelight {
namespace {

// Enough texts to fill several blocks: every text reads back as set, and views taken early stay valid
// while later texts are added (blocks never move, as one growing buffer did).
TEST(LabelTexts, TextsSpanningManyBlocksReadBackAndEarlyViewsStayValid) {
    LabelTexts texts;
    auto spell = [](std::uint32_t id) { return "frontend:call checkout#" + std::to_string(id); };
    constexpr std::uint32_t kCount = 200'000;  // about 6 MB of text: six blocks and more
    texts.set(0, spell(0));
    const std::string_view first = texts.text(0);
    const char* firstData = first.data();
    for (std::uint32_t id = 1; id < kCount; ++id) texts.set(id * 2, spell(id * 2));  // every other id set
    EXPECT_EQ(texts.text(0).data(), firstData);  // not moved
    EXPECT_EQ(first, spell(0));
    for (std::uint32_t id = 0; id < 2 * kCount; ++id) EXPECT_EQ(texts.text(id), id % 2 ? "" : spell(id)) << id;
    EXPECT_EQ(texts.idEnd(), 2 * kCount - 1);
    EXPECT_EQ(texts.text(2 * kCount + 5), "");  // past the end: empty, as a label the store lacks
}

TEST(LabelTexts, ATextLongerThanABlockAndEmptyTextsReadBack) {
    LabelTexts texts(4);
    const std::string longText(3 << 20, 'x');  // three blocks' worth
    texts.set(1, "short");
    texts.set(2, longText);
    texts.set(3, "");
    texts.set(7, "after");  // grows the id range
    EXPECT_EQ(texts.text(0), "");
    EXPECT_EQ(texts.text(1), "short");
    EXPECT_EQ(texts.text(2), longText);
    EXPECT_EQ(texts.text(3), "");
    EXPECT_EQ(texts.text(7), "after");
    EXPECT_EQ(texts.idEnd(), 8u);
    // A copy reads the same texts from its own blocks.
    const LabelTexts copy = texts;
    EXPECT_EQ(copy.text(2), longText);
    EXPECT_NE(copy.text(1).data(), texts.text(1).data());
    EXPECT_EQ(copy.text(7), "after");
}

// A copy of a few short texts, added to: a view taken from it stays valid while more blocks follow (a
// copied block as small as its text would have moved; under the sanitizers that read is use-after-free).
TEST(LabelTexts, ACopyAddedToKeepsItsViews) {
    LabelTexts small;
    small.set(0, "abc");
    LabelTexts copy = small;
    copy.set(1, "defg");
    const std::string_view early = copy.text(1);
    const char* data = early.data();
    for (std::uint32_t id = 2; id < 2000; ++id) copy.set(id, std::string(4000, 'a' + id % 26));
    EXPECT_EQ(copy.text(1).data(), data);
    EXPECT_EQ(early, "defg");
    EXPECT_EQ(copy.text(0), "abc");
    EXPECT_EQ(small.idEnd(), 1u);
}

} // namespace
} // namespace tracelight
