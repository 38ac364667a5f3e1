// The C4.5 tree (issue 12, "Regression tree") against the textbook example and generated ground truth.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tracelight/compare/RegressionTree.h"

namespace tracelight {
namespace {

using K = TreeAttributeKind;

// Quinlan's golf data: J. R. Quinlan, C4.5: Programs for Machine Learning, Morgan Kaufmann 1993,
// ch. 1 (Figure 1-2, the 14 training cases) and ch. 2 (the tree built from them, Figure 1-3):
//   outlook = sunny:  humidity <= 75: Play (2) / humidity > 75: Don't Play (3)
//   outlook = overcast: Play (4)
//   outlook = rain:   windy = true: Don't Play (2) / windy = false: Play (3)
std::vector<TreeAttribute> golfAttributes() {
    return {{"outlook", K::Categorical}, {"temperature", K::Numeric}, {"humidity", K::Numeric}, {"windy", K::Categorical}};
}
std::vector<TreeRow> golfRows() {
    struct R { const char* outlook; double temp, hum; const char* windy; bool play; };
    const R data[] = {
        {"sunny", 75, 70, "true", true},     {"sunny", 80, 90, "true", false},    {"sunny", 85, 85, "false", false},
        {"sunny", 72, 95, "false", false},   {"sunny", 69, 70, "false", true},    {"overcast", 72, 90, "true", true},
        {"overcast", 83, 78, "false", true}, {"overcast", 64, 65, "true", true},  {"overcast", 81, 75, "false", true},
        {"rain", 71, 80, "true", false},     {"rain", 65, 70, "true", false},     {"rain", 75, 80, "false", true},
        {"rain", 68, 80, "false", true},     {"rain", 70, 96, "false", true},
    };
    std::vector<TreeRow> rows;
    for (const auto& r : data)
        rows.push_back({{TreeValue::category(r.outlook), TreeValue::numeric(r.temp), TreeValue::numeric(r.hum),
                         TreeValue::category(r.windy)},
                        r.play});
    return rows;
}

const TreeNode* branch(const TreeNode& n, const std::string& test) {
    for (size_t i = 0; i < n.branchTests.size(); ++i)
        if (n.branchTests[i] == test) return &n.children[i];
    return nullptr;
}

TEST(RegressionTree, GolfReproducesQuinlansTree) {
    TreeOptions opt;
    opt.thresholdRule = ThresholdRule::GreatestBelow; // C4.5 prints the data value 75, not the midpoint 77.5
    opt.classNames[0] = "Don't Play";
    opt.classNames[1] = "Play";
    const RegressionTree t = buildRegressionTree(golfAttributes(), golfRows(), opt);
    EXPECT_EQ(t.toText(),
              "outlook = overcast: Play (4)\n"
              "outlook = rain:\n"
              "|   windy = false: Play (3)\n"
              "|   windy = true: Don't Play (2)\n"
              "outlook = sunny:\n"
              "|   humidity <= 75: Play (2)\n"
              "|   humidity > 75: Don't Play (3)\n");
    EXPECT_EQ(t.leafCount(), 5);
    EXPECT_EQ(t.depth(), 2);
}

TEST(RegressionTree, GolfMidpointThreshold) {
    const RegressionTree t = buildRegressionTree(golfAttributes(), golfRows());
    ASSERT_EQ(t.attributes[t.root.attribute].name, "outlook");
    const TreeNode* sunny = branch(t.root, "= sunny");
    ASSERT_NE(sunny, nullptr);
    ASSERT_FALSE(sunny->isLeaf());
    EXPECT_EQ(t.attributes[sunny->attribute].name, "humidity");
    EXPECT_DOUBLE_EQ(sunny->threshold, 77.5); // between 70 and 85, the sunny cases' values
}

TEST(RegressionTree, GolfJson) {
    const RegressionTree t = buildRegressionTree(golfAttributes(), golfRows());
    const std::string j = t.toJson();
    EXPECT_EQ(j.rfind("{\"attribute\":\"outlook\",\"children\":[{\"test\":\"= overcast\",\"class\":\"positive\",\"count\":4", 0), 0u) << j;
}

// class = size < 65536, noise-free; the other attributes are random.
std::vector<TreeRow> sizeRows(int n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> size(1, 200000), coin(0, 1), browser(0, 2);
    const char* browsers[] = {"firefox", "chrome", "safari"};
    std::vector<TreeRow> rows;
    for (int i = 0; i < n; ++i) {
        const int s = size(rng);
        rows.push_back({{TreeValue::numeric(s), TreeValue::category(browsers[browser(rng)]),
                         TreeValue::category(s < 65536 ? (coin(rng) ? "dsl" : "cable") : (coin(rng) ? "cable" : "lte"))},
                        s < 65536});
    }
    return rows;
}
std::vector<TreeAttribute> sizeAttributes() {
    return {{"bytes", K::Numeric}, {"browser", K::Categorical}, {"connection", K::Categorical}};
}

TEST(RegressionTree, RecoversNumericThreshold) {
    auto rows = sizeRows(400, 7);
    double below = 0, above = 1e18;
    for (const auto& r : rows) {
        const double v = r.values[0].number;
        if (v < 65536) below = std::max(below, v);
        else above = std::min(above, v);
    }
    const RegressionTree t = buildRegressionTree(sizeAttributes(), rows);
    ASSERT_FALSE(t.root.isLeaf());
    EXPECT_EQ(t.attributes[t.root.attribute].name, "bytes");
    EXPECT_DOUBLE_EQ(t.root.threshold, (below + above) / 2);
    EXPECT_EQ(t.leafCount(), 2);
    EXPECT_EQ(t.root.children[0].errors(), 0);
    EXPECT_TRUE(t.root.children[0].majority);
    EXPECT_FALSE(t.root.children[1].majority);
}

TEST(RegressionTree, DroppingTheAttributeUsesAnother) {
    TreeOptions opt;
    opt.dropped = {"bytes"};
    const RegressionTree t = buildRegressionTree(sizeAttributes(), sizeRows(400, 7), opt);
    ASSERT_FALSE(t.root.isLeaf());
    EXPECT_EQ(t.attributes[t.root.attribute].name, "connection");
    EXPECT_EQ(t.toText().find("bytes"), std::string::npos);
}

TEST(RegressionTree, MissingValuesAreSpreadNotLost) {
    auto rows = sizeRows(200, 3);
    for (size_t i = 0; i < rows.size(); i += 10) rows[i].values[0] = TreeValue::none();
    const RegressionTree t = buildRegressionTree(sizeAttributes(), rows);
    ASSERT_FALSE(t.root.isLeaf());
    EXPECT_EQ(t.attributes[t.root.attribute].name, "bytes");
    double sum = 0;
    for (const auto& c : t.root.children) sum += c.total();
    EXPECT_NEAR(sum, 200, 1e-9);
}

// All rows one class except a few scattered ones (label noise): splits on x only fit the noise.
TEST(RegressionTree, PruningCollapsesANoiseSplit) {
    std::vector<TreeAttribute> attrs = {{"x", K::Numeric}};
    std::vector<TreeRow> rows;
    for (int i = 1; i <= 40; ++i) rows.push_back({{TreeValue::numeric(i)}, i % 10 != 5});
    TreeOptions unpruned;
    unpruned.prune = false;
    const RegressionTree full = buildRegressionTree(attrs, rows, unpruned);
    EXPECT_GT(full.leafCount(), 1);
    const RegressionTree pruned = buildRegressionTree(attrs, rows);
    EXPECT_TRUE(pruned.root.isLeaf()) << pruned.toText();
    EXPECT_EQ(pruned.toText(), "positive (40/4)\n");
}

TEST(RegressionTree, MinimumRowsPerBranch) {
    // One odd row cannot get a branch of its own.
    std::vector<TreeAttribute> attrs = {{"x", K::Numeric}};
    std::vector<TreeRow> rows;
    for (int i = 1; i <= 6; ++i) rows.push_back({{TreeValue::numeric(i)}, i != 6});
    TreeOptions opt;
    opt.prune = false;
    const RegressionTree t = buildRegressionTree(attrs, rows, opt);
    for (const auto& c : t.root.children) EXPECT_GE(c.total(), 2);
}

// C4.5 takes the best gain ratio only among tests with at least the average gain: "b" isolates two
// positive rows (gain 0.108, ratio 0.230) and would win on ratio alone over "a" (gain 0.119, ratio
// 0.119), but its gain is below the average 0.1135.
TEST(RegressionTree, GainRatioOnlyAmongAboveAverageGain) {
    std::vector<TreeAttribute> attrs = {{"a", K::Categorical}, {"b", K::Categorical}};
    std::vector<TreeRow> rows;
    auto add = [&](const char* a, const char* b, bool positive, int n) {
        for (int i = 0; i < n; ++i) rows.push_back({{TreeValue::category(a), TreeValue::category(b)}, positive});
    };
    add("l", "x", true, 2);
    add("l", "y", true, 5);
    add("r", "y", true, 3);
    add("l", "y", false, 3);
    add("r", "y", false, 7);
    TreeOptions opt;
    opt.prune = false;
    const RegressionTree t = buildRegressionTree(attrs, rows, opt);
    ASSERT_FALSE(t.root.isLeaf());
    EXPECT_EQ(t.attributes[t.root.attribute].name, "a") << t.toText();
}

TEST(RegressionTree, AddedErrorsMatchC45) {
    EXPECT_NEAR(c45AddedErrors(2, 0), 1.0, 1e-9);    // 2 (1 - 0.25^(1/2))
    EXPECT_NEAR(c45AddedErrors(6, 0), 6 * (1 - std::pow(0.25, 1.0 / 6)), 1e-9);
    EXPECT_GT(c45AddedErrors(16, 1), 1.0);           // Quinlan ch. 4: U_25%(1,16) = 0.157 -> 2.5 errors
    EXPECT_NEAR(1 + c45AddedErrors(16, 1), 16 * 0.157, 0.1);
}

} // namespace
} // namespace tracelight
