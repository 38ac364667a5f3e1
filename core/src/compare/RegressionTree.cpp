#include "tracelight/compare/RegressionTree.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace tracelight {
namespace {

struct Case {
    const TreeRow* row;
    double weight;
};

double info(double neg, double pos) {
    const double n = neg + pos;
    if (n <= 0) return 0;
    double h = 0;
    for (double c : {neg, pos})
        if (c > 0) h -= c / n * std::log2(c / n);
    return h;
}

struct Split {
    int attribute = -1;
    bool valid = false;
    double gain = 0;
    double ratio = 0;
    double threshold = 0; // numeric: the midpoint
    std::vector<std::string> values; // categorical branches
};

std::string formatNumber(double v) {
    char buf[64];
    if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

class Builder {
public:
    Builder(const std::vector<TreeAttribute>& attrs, const std::vector<TreeRow>& rows, const TreeOptions& o)
        : m_attrs(attrs), m_rows(rows), m_opt(o) {}

    TreeNode build(std::vector<Case> cases) {
        TreeNode node;
        for (const auto& c : cases) node.counts[c.row->positive ? 1 : 0] += c.weight;
        node.majority = node.counts[1] > node.counts[0];
        const double total = node.total();
        if (node.counts[0] <= 1e-9 || node.counts[1] <= 1e-9 || total < 2 * m_opt.minRowsPerBranch) return node;

        // Evaluate every attribute; keep C4.5's rule: among the splits with at least the
        // average gain, the one with the best gain ratio.
        std::vector<Split> splits;
        for (int a = 0; a < static_cast<int>(m_attrs.size()); ++a) {
            if (m_opt.dropped.count(m_attrs[a].name)) continue;
            Split s = m_attrs[a].kind == TreeAttributeKind::Numeric ? numericSplit(a, cases) : categoricalSplit(a, cases);
            if (s.valid) splits.push_back(std::move(s));
        }
        if (splits.empty()) return node;
        double avg = 0;
        for (const auto& s : splits) avg += s.gain;
        avg /= static_cast<double>(splits.size());
        const Split* best = nullptr;
        for (const auto& s : splits)
            if (s.gain >= avg - 1e-9 && s.gain > 1e-9 && (!best || s.ratio > best->ratio + 1e-12)) best = &s;
        if (!best) return node;

        const TreeAttribute& attr = m_attrs[best->attribute];
        node.attribute = best->attribute;
        node.numeric = attr.kind == TreeAttributeKind::Numeric;
        std::vector<std::vector<Case>> parts;
        std::vector<Case> missing;
        if (node.numeric) {
            node.threshold = best->threshold;
            if (m_opt.thresholdRule == ThresholdRule::GreatestBelow) node.threshold = greatestBelow(best->attribute, best->threshold);
            parts.resize(2);
            for (const auto& c : cases) {
                const TreeValue& v = c.row->values[best->attribute];
                if (v.missing) missing.push_back(c);
                else parts[v.number <= node.threshold ? 0 : 1].push_back(c);
            }
            node.branchTests = {"<= " + formatNumber(node.threshold), "> " + formatNumber(node.threshold)};
        } else {
            node.branchValues = best->values;
            parts.resize(best->values.size());
            for (const auto& c : cases) {
                const TreeValue& v = c.row->values[best->attribute];
                if (v.missing) { missing.push_back(c); continue; }
                const auto it = std::find(best->values.begin(), best->values.end(), v.text);
                parts[it - best->values.begin()].push_back(c);
            }
            for (const auto& v : best->values) node.branchTests.push_back("= " + v);
        }
        // Rows without a value go down every branch, weighted by the branch's share of the known rows.
        double known = 0;
        std::vector<double> partWeight(parts.size(), 0);
        for (size_t i = 0; i < parts.size(); ++i) {
            for (const auto& c : parts[i]) partWeight[i] += c.weight;
            known += partWeight[i];
        }
        for (size_t i = 0; i < parts.size(); ++i)
            for (const auto& c : missing) parts[i].push_back({c.row, c.weight * partWeight[i] / known});
        for (auto& p : parts) {
            TreeNode child = p.empty() ? leafLike(node) : build(std::move(p));
            node.children.push_back(std::move(child));
        }
        return node;
    }

private:
    static TreeNode leafLike(const TreeNode& parent) {
        TreeNode leaf;
        leaf.majority = parent.majority;
        return leaf;
    }

    double greatestBelow(int a, double cut) const {
        double best = -std::numeric_limits<double>::infinity();
        for (const auto& r : m_rows) {
            const TreeValue& v = r.values[a];
            if (!v.missing && v.number <= cut && v.number > best) best = v.number;
        }
        return std::isfinite(best) ? best : cut;
    }

    Split categoricalSplit(int a, const std::vector<Case>& cases) const {
        Split s;
        s.attribute = a;
        std::map<std::string, std::pair<double, double>> byValue;
        double known[2] = {0, 0}, missing = 0, total = 0;
        for (const auto& c : cases) {
            total += c.weight;
            const TreeValue& v = c.row->values[a];
            if (v.missing) { missing += c.weight; continue; }
            auto& p = byValue[v.text];
            (c.row->positive ? p.second : p.first) += c.weight;
            known[c.row->positive ? 1 : 0] += c.weight;
        }
        if (byValue.size() < 2) return s;
        int bigEnough = 0;
        for (const auto& [value, counts] : byValue)
            if (counts.first + counts.second >= m_opt.minRowsPerBranch) ++bigEnough;
        if (bigEnough < 2) return s;
        const double knownTotal = known[0] + known[1];
        double after = 0, splitInfo = 0;
        for (const auto& [value, counts] : byValue) {
            const double n = counts.first + counts.second;
            after += n / knownTotal * info(counts.first, counts.second);
            splitInfo -= n / total * std::log2(n / total);
            s.values.push_back(value);
        }
        if (missing > 0) splitInfo -= missing / total * std::log2(missing / total);
        s.gain = knownTotal / total * (info(known[0], known[1]) - after);
        if (splitInfo <= 1e-12) return s;
        s.ratio = s.gain / splitInfo;
        s.valid = true;
        return s;
    }

    Split numericSplit(int a, const std::vector<Case>& cases) const {
        Split s;
        s.attribute = a;
        std::vector<std::pair<double, const Case*>> known;
        double missing = 0, total = 0, k[2] = {0, 0};
        for (const auto& c : cases) {
            total += c.weight;
            const TreeValue& v = c.row->values[a];
            if (v.missing) missing += c.weight;
            else {
                known.push_back({v.number, &c});
                k[c.row->positive ? 1 : 0] += c.weight;
            }
        }
        const double knownTotal = k[0] + k[1];
        if (known.size() < 2) return s;
        std::sort(known.begin(), known.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        const double before = info(k[0], k[1]);
        double left[2] = {0, 0};
        double bestGain = -1, bestCut = 0, bestLeft = 0;
        for (size_t i = 0; i + 1 < known.size(); ++i) {
            left[known[i].second->row->positive ? 1 : 0] += known[i].second->weight;
            if (known[i + 1].first <= known[i].first) continue; // cut only between distinct values
            const double nl = left[0] + left[1], nr = knownTotal - nl;
            if (nl < m_opt.minRowsPerBranch || nr < m_opt.minRowsPerBranch) continue;
            const double after = nl / knownTotal * info(left[0], left[1]) +
                                 nr / knownTotal * info(k[0] - left[0], k[1] - left[1]);
            const double gain = before - after;
            if (gain > bestGain + 1e-12) {
                bestGain = gain;
                bestCut = (known[i].first + known[i + 1].first) / 2;
                bestLeft = nl;
            }
        }
        if (bestGain < 0) return s;
        s.threshold = bestCut;
        s.gain = knownTotal / total * bestGain;
        const double nr = knownTotal - bestLeft;
        double splitInfo = -(bestLeft / total) * std::log2(bestLeft / total) - (nr / total) * std::log2(nr / total);
        if (missing > 0) splitInfo -= missing / total * std::log2(missing / total);
        if (splitInfo <= 1e-12) return s;
        s.ratio = s.gain / splitInfo;
        s.valid = true;
        return s;
    }

    const std::vector<TreeAttribute>& m_attrs;
    const std::vector<TreeRow>& m_rows;
    const TreeOptions& m_opt;
};

// Bottom-up subtree replacement: a subtree whose estimated errors are not clearly below those of
// a leaf in its place becomes that leaf. Returns the subtree's estimated errors.
double prune(TreeNode& node, double cf) {
    const double leafErrors = node.errors() + c45AddedErrors(node.total(), node.errors(), cf);
    if (node.isLeaf()) return leafErrors;
    double treeErrors = 0;
    for (auto& child : node.children) treeErrors += prune(child, cf);
    if (leafErrors <= treeErrors + 0.1) {
        node.children.clear();
        node.branchTests.clear();
        node.branchValues.clear();
        node.attribute = -1;
        return leafErrors;
    }
    return treeErrors;
}

int depthOf(const TreeNode& n) {
    int d = 0;
    for (const auto& c : n.children) d = std::max(d, 1 + depthOf(c));
    return d;
}
int leavesOf(const TreeNode& n) {
    if (n.isLeaf()) return 1;
    int s = 0;
    for (const auto& c : n.children) s += leavesOf(c);
    return s;
}

std::string countText(const TreeNode& n) {
    std::string s = "(" + formatNumber(std::round(n.total() * 10) / 10);
    if (n.errors() > 1e-9) s += "/" + formatNumber(std::round(n.errors() * 10) / 10);
    return s + ")";
}

void textOf(const RegressionTree& t, const TreeNode& n, int level, std::string& out) {
    const std::string& name = t.attributes[n.attribute].name;
    for (size_t i = 0; i < n.children.size(); ++i) {
        const TreeNode& c = n.children[i];
        for (int l = 0; l < level; ++l) out += "|   ";
        out += name + " " + n.branchTests[i] + ":";
        if (c.isLeaf()) out += " " + t.classNames[c.majority ? 1 : 0] + " " + countText(c) + "\n";
        else {
            out += "\n";
            textOf(t, c, level + 1, out);
        }
    }
}

std::string jsonString(const std::string& s) {
    std::string o = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\') { o += '\\'; o += ch; }
        else if (static_cast<unsigned char>(ch) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", ch);
            o += buf;
        } else o += ch;
    }
    return o + "\"";
}

void jsonOf(const RegressionTree& t, const TreeNode& n, const std::string* test, std::string& out) {
    out += "{";
    if (test) out += "\"test\":" + jsonString(*test) + ",";
    if (n.isLeaf()) {
        out += "\"class\":" + jsonString(t.classNames[n.majority ? 1 : 0]) + ",\"count\":" +
               formatNumber(std::round(n.total() * 1000) / 1000) + ",\"errors\":" +
               formatNumber(std::round(n.errors() * 1000) / 1000) + "}";
        return;
    }
    out += "\"attribute\":" + jsonString(t.attributes[n.attribute].name) + ",\"children\":[";
    for (size_t i = 0; i < n.children.size(); ++i) {
        if (i) out += ",";
        jsonOf(t, n.children[i], &n.branchTests[i], out);
    }
    out += "]}";
}

} // namespace

double c45AddedErrors(double n, double e, double cf) {
    static const double val[] = {0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00};
    static const double dev[] = {4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00};
    if (n <= 0) return 0;
    int i = 1;
    while (i < 8 && cf > val[i]) ++i;
    double coeff = dev[i - 1] + (dev[i] - dev[i - 1]) * (cf - val[i - 1]) / (val[i] - val[i - 1]);
    coeff *= coeff;
    if (e < 1e-6) return n * (1 - std::exp(std::log(cf) / n));
    if (e < 0.9999) {
        const double v0 = n * (1 - std::exp(std::log(cf) / n));
        return v0 + e * (c45AddedErrors(n, 1.0, cf) - v0);
    }
    if (e + 0.5 >= n) return 0.67 * (n - e);
    const double pr = (e + 0.5 + coeff / 2 + std::sqrt(coeff * ((e + 0.5) * (1 - (e + 0.5) / n) + coeff / 4))) / (n + coeff);
    return n * pr - e;
}

RegressionTree buildRegressionTree(const std::vector<TreeAttribute>& attributes, const std::vector<TreeRow>& rows,
                                   const TreeOptions& options) {
    RegressionTree tree;
    tree.attributes = attributes;
    tree.classNames[0] = options.classNames[0];
    tree.classNames[1] = options.classNames[1];
    // Normalise rows: a value of the wrong kind, or a missing column, counts as missing.
    std::vector<TreeRow> clean = rows;
    for (auto& r : clean) {
        r.values.resize(attributes.size());
        for (size_t a = 0; a < attributes.size(); ++a) {
            TreeValue& v = r.values[a];
            if (!v.missing && attributes[a].kind == TreeAttributeKind::Numeric && !std::isfinite(v.number)) v.missing = true;
        }
    }
    std::vector<Case> cases;
    cases.reserve(clean.size());
    for (const auto& r : clean) cases.push_back({&r, 1.0});
    Builder builder(attributes, clean, options);
    tree.root = builder.build(std::move(cases));
    if (options.prune) prune(tree.root, options.confidence);
    return tree;
}

int RegressionTree::depth() const { return depthOf(root); }
int RegressionTree::leafCount() const { return leavesOf(root); }

std::string RegressionTree::toText() const {
    if (root.isLeaf()) return classNames[root.majority ? 1 : 0] + " " + countText(root) + "\n";
    std::string out;
    textOf(*this, root, 0, out);
    return out;
}

std::string RegressionTree::toJson() const {
    std::string out;
    jsonOf(*this, root, nullptr, out);
    return out;
}

} // namespace tracelight
