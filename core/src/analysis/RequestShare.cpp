#include "tracelight/analysis/RequestShare.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "tracelight/base/Bytes.h"

namespace tracelight {

namespace {

// Labels the store never held (operations named from legacy "name#k" texts) have ids of their own in
// each process; they are matched by text. Store labels are matched by id.
constexpr std::uint32_t kFirstSyntheticLabel = 0x80000000u;

void putLabel(std::string& out, const TraceData& data, LabelId label) {
    putValue(out, label.value);
    if (label.value >= kFirstSyntheticLabel) putBytes(out, data.label(label.value));
}

} // namespace

RequestShare shareAcrossGroup(TraceData& data, Collective& group) {
    RequestShare share{&group, 0, 0};
    // Requests: this process's place among all.
    {
        std::string mine;
        putValue(mine, static_cast<std::uint64_t>(data.requestCount()));
        const auto all = group.allGather(mine);
        for (int r = 0; r < group.size(); ++r) {
            std::string_view in(all[static_cast<std::size_t>(r)]);
            std::uint64_t n = 0;
            getValue(in, n);
            if (r < group.rank()) share.firstRequest += static_cast<std::size_t>(n);
            share.totalRequests += static_cast<std::size_t>(n);
        }
    }
    // Hosts: store label ids, the same in every process.
    {
        std::string mine;
        for (LabelId h : data.hostLabels) putValue(mine, h.value);
        const auto all = group.allGather(mine);
        std::vector<LabelId> global;
        std::unordered_map<std::uint32_t, std::uint32_t> index;
        for (const auto& bytes : all) {
            std::string_view in(bytes);
            for (std::uint32_t label = 0; getValue(in, label);)
                if (index.emplace(label, static_cast<std::uint32_t>(global.size())).second) global.emplace_back(label);
        }
        std::vector<std::uint32_t> toGlobal(data.hostLabels.size());
        for (std::size_t h = 0; h < data.hostLabels.size(); ++h) toGlobal[h] = index.at(data.hostLabels[h].value);
        for (EventRecord& e : data.events) e.host = HostId(toGlobal[e.host.value]);
        data.hostLabels = std::move(global);
    }
    // Segment types: <task, start, end> labels; a synthetic label is sent with its text.
    {
        std::string mine;
        putValue(mine, static_cast<std::uint64_t>(data.segmentTypes.size()));
        for (const SegmentType& t : data.segmentTypes)
            for (LabelId l : {t.task, t.startEvent, t.endEvent}) putLabel(mine, data, l);
        const auto all = group.allGather(mine);

        // This process's synthetic labels by text, and the next free synthetic id.
        std::unordered_map<std::string, std::uint32_t> syntheticByText;
        std::uint32_t nextSynthetic = kFirstSyntheticLabel;
        for (const auto& [id, text] : data.labels)
            if (id >= kFirstSyntheticLabel) {
                syntheticByText.emplace(text, id);
                nextSynthetic = std::max(nextSynthetic, id + 1);
            }
        auto localLabel = [&](std::uint32_t id, std::string_view text) {
            if (id < kFirstSyntheticLabel) return id;
            auto [it, fresh] = syntheticByText.emplace(std::string(text), nextSynthetic);
            if (fresh) data.labels.emplace(nextSynthetic++, std::string(text));
            return it->second;
        };
        // Keyed by ids of store labels and texts of synthetic ones, as each process's own builder keys them.
        std::unordered_map<std::string, std::uint32_t> index;
        std::vector<SegmentType> global;
        std::vector<std::uint32_t> toGlobal;
        for (int r = 0; r < group.size(); ++r) {
            std::string_view in(all[static_cast<std::size_t>(r)]);
            std::uint64_t n = 0;
            getValue(in, n);
            for (std::uint64_t i = 0; i < n; ++i) {
                std::string key;
                std::uint32_t ids[3] = {0, 0, 0};
                for (auto& id : ids) {
                    std::uint32_t sent = 0;
                    std::string_view text;
                    getValue(in, sent);
                    if (sent >= kFirstSyntheticLabel) {
                        getBytes(in, text);
                        key.append("t").append(text).push_back('\0');
                    } else {
                        key.append("#").append(std::to_string(sent)).push_back('\0');
                    }
                    id = localLabel(sent, text);
                }
                auto [it, fresh] = index.emplace(std::move(key), static_cast<std::uint32_t>(global.size()));
                if (fresh) global.push_back({LabelId(ids[0]), LabelId(ids[1]), LabelId(ids[2])});
                if (r == group.rank()) toGlobal.push_back(it->second);
            }
        }
        for (EventRecord& e : data.events)
            if (e.segmentType.isValid()) e.segmentType = SegmentTypeId(toGlobal[e.segmentType.value]);
        data.segmentTypes = std::move(global);
    }
    return share;
}

} // namespace tracelight
