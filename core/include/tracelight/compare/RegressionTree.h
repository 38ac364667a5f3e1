#pragma once
// A C4.5 decision ("regression") tree over rows of named attributes with a binary class, as
// Spectroscope uses it to tell which request attributes separate problem-period requests from
// their precursors (Sambasivan et al., NSDI'11, section 4.3; Quinlan, C4.5: Programs for Machine
// Learning, 1993). Gain ratio, numeric thresholds, fractional cases for missing values,
// error-based pruning, and a set of attributes the user asked to leave out.
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tracelight {

enum class TreeAttributeKind { Categorical, Numeric };

struct TreeAttribute {
    std::string name;
    TreeAttributeKind kind = TreeAttributeKind::Categorical;
};

// One attribute value of a row: missing, a category, or a number (as the attribute's kind says).
struct TreeValue {
    bool missing = true;
    std::string text;
    double number = 0;
    static TreeValue category(std::string s) { return {false, std::move(s), 0}; }
    static TreeValue numeric(double v) { return {false, {}, v}; }
    static TreeValue none() { return {}; }
};

struct TreeRow {
    std::vector<TreeValue> values; // one per attribute, in the attributes' order
    bool positive = false;         // the class
};

enum class ThresholdRule {
    Midpoint,        // the midpoint between adjacent distinct values
    GreatestBelow,   // C4.5's: the greatest value in the whole training set not above that midpoint
};

struct TreeOptions {
    double minRowsPerBranch = 2;      // C4.5's MINOBJS
    bool prune = true;
    double confidence = 0.25;         // C4.5's CF for error-based pruning
    ThresholdRule thresholdRule = ThresholdRule::Midpoint;
    std::set<std::string> dropped;    // attributes not to test (the paper's interactive loop)
    std::string classNames[2] = {"negative", "positive"}; // [false], [true]
};

struct TreeNode {
    // Class counts (weights; fractional when rows had missing values) of the rows reaching here.
    double counts[2] = {0, 0};
    bool majority = false;
    // Internal node: the tested attribute and one child per branch, with the branch's test text
    // ("= sunny", "<= 75", "> 75").
    int attribute = -1;
    bool numeric = false;
    double threshold = 0;
    std::vector<std::string> branchValues; // categorical: the value of each branch
    std::vector<std::string> branchTests;
    std::vector<TreeNode> children;

    bool isLeaf() const { return children.empty(); }
    double total() const { return counts[0] + counts[1]; }
    double errors() const { return majority ? counts[0] : counts[1]; }
};

struct RegressionTree {
    std::vector<TreeAttribute> attributes;
    std::string classNames[2];
    TreeNode root;

    int depth() const;
    int leafCount() const;
    // C4.5-style text: one line per branch, "|   " per level, leaves as "class (n)" or "class (n/errors)".
    std::string toText() const;
    // Nested JSON: {"attribute","test","children":[...]} for internal nodes (test on each child),
    // {"class","count","errors"} for leaves.
    std::string toJson() const;
};

// The rows' values must match the attributes (same count; a kind mismatch counts as missing).
RegressionTree buildRegressionTree(const std::vector<TreeAttribute>& attributes, const std::vector<TreeRow>& rows,
                                   const TreeOptions& options = {});

// C4.5's estimate of the extra errors of a leaf covering n cases with e errors at confidence cf
// (the upper limit of the binomial, normal approximation), so predicted errors = e + addedErrors.
double c45AddedErrors(double n, double e, double cf = 0.25);

} // namespace tracelight
