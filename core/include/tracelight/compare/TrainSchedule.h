#pragma once
// Spectroscope's train schedule zoomed out to components (its Figure 8): one request drawn as a Marey chart,
// the components (hosts) as stations and each piece of its work as a leg from the component and time where it
// starts to the component and time where it ends. Work inside one component runs along its station; a call or
// a reply between components crosses from one station to another, so a slow hop, a long stay or a detour
// through another component shows as the shape of the line.
#include <cstdint>
#include <string>
#include <vector>

#include "tracelight/base/Time.h"

namespace tracelight {

struct RequestDetail;

struct TrainLeg {
    std::uint32_t from = 0, to = 0;  // stations (indices into components) where it starts and ends
    TimeNs startNs = 0, endNs = 0;   // from the request's first event, on adjusted clocks
    bool critical = false;           // on the request's critical path
};

struct TrainSchedule {
    std::vector<std::string> components;  // the request's hosts, in order of first visit
    // In start order. A task's consecutive segments within one component, back to back and equally critical
    // or not, are one leg: zoomed out, a stay is not cut at every trace point.
    std::vector<TrainLeg> legs;
    TimeNs latencyNs = 0;
};

TrainSchedule trainSchedule(const RequestDetail& detail);

} // namespace tracelight
