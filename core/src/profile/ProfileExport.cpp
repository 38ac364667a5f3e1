// A profile written out: the profile JSON (docs/reference/json.md), Brendan Gregg's folded stacks, speedscope's file format.
#include <cmath>

#include "tracelight/base/Json.h"
#include "tracelight/profile/Profile.h"

namespace tracelight {

namespace {

double us(double ns) { return std::round(ns) / 1000.0; }

std::int64_t selectedOf(const ProfileGroup& g) { return g.selected > 0 ? g.selected : g.requests; }

void frameFields(JsonWriter& w, const ProfileSet& set, std::size_t g, std::size_t f) {
    const ProfileFrameInfo& info = set.frames[f];
    w.key("id").value(static_cast<std::int64_t>(f)).key("parent");
    if (info.parent < 0) w.null();
    else w.value(static_cast<std::int64_t>(info.parent));
    w.key("name").value(info.name).key("kind").value(frameKindName(info.kind)).key("services").beginArray();
    for (const auto& s : info.services) w.value(s);
    w.endArray();
    const double latency = set.meanLatencyNs(g);
    w.key("total_us").value(us(set.meanTotalNs(g, f))).key("self_us").value(us(set.meanSelfNs(g, f)))
        .key("critical_share").value(latency > 0 ? set.meanTotalNs(g, f) / latency : 0.0)
        .key("ci95_us").value(us(set.ci95TotalNs(g, f)))
        .key("on_path_share").value(set.onPathShare(g, f));
}

} // namespace

std::string profileJson(const ProfileSet& set, std::size_t g) {
    JsonWriter w;
    w.beginObject().key("requests").value(set.groups[g].requests).key("selected").value(selectedOf(set.groups[g]))
        .key("total_us").value(us(set.meanLatencyNs(g)));
    w.key("truncated_stacks").value(set.truncatedStacks).key("merged_frames").value(set.mergedFrames);
    w.key("histogram_bins_us").beginArray();
    for (int b = 0; b < kProfileHistogramBins; ++b) w.value(b == 0 ? 0.0 : std::ldexp(1.0, b));
    w.endArray();
    w.key("frames").beginArray();
    for (std::size_t f = 0; f < set.frames.size(); ++f) {
        if (set.groups[g].frames[f].criticalRequests == 0 && set.groups[g].frames[f].totalSum == 0) continue;
        w.beginObject();
        frameFields(w, set, g, f);
        w.key("histogram").beginArray();
        for (auto c : set.groups[g].frames[f].histogram) w.value(static_cast<std::int64_t>(c));
        w.endArray().endObject();
    }
    w.endArray().endObject();
    return w.text();
}

std::string profileDiffJson(const ProfileSet& set, std::size_t base, std::size_t target, const ProfileDiff& diff,
                            std::string_view baseName, std::string_view targetName, double expectedFalsePositives) {
    JsonWriter w;
    w.beginObject();
    w.key("base").beginObject().key("period").value(baseName).key("requests").value(set.groups[base].requests)
        .key("selected").value(selectedOf(set.groups[base]))
        .key("total_us").value(us(set.meanLatencyNs(base))).endObject();
    w.key("target").beginObject().key("period").value(targetName).key("requests").value(set.groups[target].requests)
        .key("selected").value(selectedOf(set.groups[target]))
        .key("total_us").value(us(set.meanLatencyNs(target))).endObject();
    w.key("expected_false_positives").value(expectedFalsePositives).key("significant_frames").value(diff.significantFrames);
    w.key("frames").beginArray();
    for (const FrameChange& c : diff.frames) {
        if (c.baseTotalNs == 0 && c.targetTotalNs == 0) continue;
        w.beginObject();
        frameFields(w, set, target, c.frame);
        w.key("base_total_us").value(us(c.baseTotalNs)).key("target_total_us").value(us(c.targetTotalNs))
            .key("delta_total_us").value(us(c.deltaTotalNs())).key("base_self_us").value(us(c.baseSelfNs))
            .key("target_self_us").value(us(c.targetSelfNs)).key("delta_self_us").value(us(c.deltaSelfNs()))
            .key("self_ratio").value(c.selfRatio)
            .key("p_value").value(c.pValue).key("significant").value(c.significant);
        for (auto [key, g] : {std::pair{"base_histogram", base}, std::pair{"target_histogram", target}}) {
            w.key(key).beginArray();
            for (auto count : set.groups[g].frames[c.frame].histogram) w.value(static_cast<std::int64_t>(count));
            w.endArray();
        }
        w.endObject();
    }
    w.endArray().endObject();
    return w.text();
}

std::string profileFolded(const ProfileSet& set, std::size_t g) {
    std::string out;
    for (std::size_t f = 0; f < set.frames.size(); ++f) {
        const auto self = static_cast<std::int64_t>(std::llround(set.meanSelfNs(g, f)));
        if (self <= 0) continue;
        const std::string path = set.path(f);
        out += path + ' ' + std::to_string(self) + '\n';
    }
    return out;
}

std::string profileSpeedscope(const ProfileSet& set, std::size_t g, std::string_view name) {
    JsonWriter w;
    w.beginObject().key("$schema").value("https://www.speedscope.app/file-format-schema.json");
    w.key("shared").beginObject().key("frames").beginArray();
    for (const auto& f : set.frames) w.beginObject().key("name").value(f.name).endObject();
    w.endArray().endObject();
    std::vector<std::size_t> stacks;
    double total = 0;
    for (std::size_t f = 0; f < set.frames.size(); ++f)
        if (std::llround(set.meanSelfNs(g, f)) > 0) {
            stacks.push_back(f);
            total += double(std::llround(set.meanSelfNs(g, f)));
        }
    w.key("profiles").beginArray().beginObject().key("type").value("sampled").key("name").value(name)
        .key("unit").value("nanoseconds").key("startValue").value(std::int64_t(0))
        .key("endValue").value(static_cast<std::int64_t>(total));
    w.key("samples").beginArray();
    for (auto f : stacks) {
        std::vector<std::int64_t> chain;
        for (std::int64_t x = static_cast<std::int64_t>(f); x >= 0; x = set.frames[static_cast<std::size_t>(x)].parent) chain.push_back(x);
        w.beginArray();
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) w.value(*it);
        w.endArray();
    }
    w.endArray().key("weights").beginArray();
    for (auto f : stacks) w.value(static_cast<std::int64_t>(std::llround(set.meanSelfNs(g, f))));
    w.endArray().endObject().endArray();
    w.key("name").value(name).key("exporter").value("tracelight").endObject();
    return w.text();
}

} // namespace tracelight
