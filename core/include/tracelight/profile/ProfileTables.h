#pragma once
// The tables beside a flame graph (pprof's and hotspot's): top frames — each frame name over every stack
// it appears in, its self and total time — and the sandwich of one name — who calls it and what it calls,
// with the time that passes through each.
#include <string>
#include <vector>

#include "tracelight/profile/Profile.h"

namespace tracelight {

struct FrameNameTime {
    std::string name;
    double selfNs = 0;   // mean per request, summed over the name's frames
    double totalNs = 0;  // ... counting a frame under an ancestor of the same name once (recursion)
    std::int64_t stacks = 0;  // frames (distinct stacks) with that name
};

// Every distinct frame name of group g, by self time, largest first.
std::vector<FrameNameTime> topFrames(const ProfileSet& set, std::size_t group);

struct Sandwich {
    FrameNameTime middle;                // the name itself
    std::vector<FrameNameTime> callers;  // parents' names; totalNs: time of `name` under them
    std::vector<FrameNameTime> callees;  // children's names; totalNs: their time under `name`
};
// Callers and callees of every frame named `name` in group g, each list by total time, largest first.
// A top-level frame's caller is "[root]".
Sandwich sandwich(const ProfileSet& set, std::size_t group, const std::string& name);

} // namespace tracelight
