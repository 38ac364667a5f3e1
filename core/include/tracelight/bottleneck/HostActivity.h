#pragma once
// Work on a host that the request traces do not show (Google's cloud-application study, NSDI'18): system
// tasks, compactions, garbage collection, cron jobs — the "(un)predictable load" beside the traced requests —
// and low-level (kernel, system) activity that the application marked with its request context, which the
// paper recovers by "system call steganography" (vertical context injection): such a record is the marked
// request's own low-level work. Each record is an interval on one host's own clock; the index files them by
// host on the analysis's clocks so that a request's temporal context, its strip and the burst windows count
// them as the traced requests are counted (docs/concepts/context-and-bursts.md).
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tracelight/base/LatestEndTree.h"
#include "tracelight/base/Ids.h"
#include "tracelight/base/Time.h"

namespace tracelight {

// One record as an input file gives it (docs/user/input-formats.md, "Host activity").
struct HostActivityInput {
    std::string host;       // the host's name, as the traces name it
    TimeNs startNs = 0, endNs = 0;  // the host's own clock, nanoseconds since the epoch; end >= start
    std::string what;       // what ran: "gc", "compaction", "cron:logrotate", "syscall:read", ...
    std::string request;    // the request context marker: the request's id as imported (trace id); empty: none
    std::string span;       // within that request, the span (or task) the work belongs to; may be empty
};

// One stored record, with interned host and what (label ids of the store).
struct HostActivity {
    LabelId host, what;
    TimeNs startNs = 0, endNs = 0;  // the host's own clock
    RequestId request;              // the marked request when the store holds it; invalid: unmarked or unknown
    std::string requestMarker;      // the marker as given (empty: unmarked)
    std::string span;
};

struct HostActivitySet {
    std::vector<HostActivity> records;                     // by host, then start
    std::unordered_map<std::uint32_t, std::string> names;  // the texts of their host and what labels
    const std::string& name(LabelId id) const;             // "" for an id it lacks
};

// What one request's context reads of the stored host activity: on each of its hosts the records overlapping a
// window on that host's own clock, and every record marked with the request wherever it ran.
struct HostActivityQuery {
    struct HostWindow {
        LabelId host;
        TimeNs fromNs = 0, toNs = 0;  // the host's own clock
    };
    std::vector<HostWindow> hosts;
    std::string request;  // its name as imported; empty: no marked records
};

// The analysis's clock offsets by host label (local = true + offset); a host without one keeps its clock.
using HostOffsets = std::unordered_map<std::uint32_t, TimeNs>;

// A record on the analysis's clocks (or the hosts' own, when built with no offsets).
struct PlacedActivity {
    const HostActivity* record = nullptr;
    TimeNs startNs = 0, endNs = 0;
};

// The records filed per host by start on the clocks given. "What overlaps [from, to] on host H" is two
// binary searches — between from minus the host's longest record and to — plus the records in that range.
// It points into the set it was built from, which must outlive it unchanged.
class HostActivityIndex {
public:
    HostActivityIndex() = default;
    HostActivityIndex(const HostActivitySet& set, const HostOffsets& offsets);

    bool empty() const { return m_byHost.empty(); }
    // visit(const PlacedActivity&) for each record on host that overlaps [fromNs, toNs] (touching counts).
    void forEachOverlapping(LabelId host, TimeNs fromNs, TimeNs toNs, const std::function<void(const PlacedActivity&)>& visit) const;
    // The same on every host.
    void forEachOverlappingAnywhere(TimeNs fromNs, TimeNs toNs, const std::function<void(const PlacedActivity&)>& visit) const;
    // The records whose context marker names this request, by start.
    std::vector<PlacedActivity> markedWith(RequestId request) const;

    const HostActivitySet* set() const { return m_set; }

private:
    struct HostRecords {
        std::vector<PlacedActivity> items;  // by start
        LatestEndTree ends;                 // over items
    };
    const HostActivitySet* m_set = nullptr;
    std::unordered_map<std::uint32_t, HostRecords> m_byHost;  // by host label
    std::unordered_map<std::uint32_t, std::vector<PlacedActivity>> m_byRequest;
};

// The length of [aFrom, aTo] ∩ [bFrom, bTo] (0 when apart).
inline TimeNs overlapNs(TimeNs aFrom, TimeNs aTo, TimeNs bFrom, TimeNs bTo) {
    const TimeNs from = aFrom > bFrom ? aFrom : bFrom, to = aTo < bTo ? aTo : bTo;
    return to > from ? to - from : 0;
}

// Per "what", how many records and how much of their time fell in a window: a summary of what ran.
struct ActivityKind {
    std::string what;
    std::int64_t records = 0;
    TimeNs overlapNs = 0;  // their time inside the window, summed
};
// Records summed by what as they come: kinds() in the order summarizeActivity gives, most time first (ties by what).
class ActivityTally {
public:
    void add(LabelId what, std::string_view name, TimeNs overlapNs);
    std::vector<ActivityKind> kinds() const;

private:
    std::map<std::uint32_t, ActivityKind> m_byWhat;
};
// The records given (each counted once), grouped by what, most time first.
std::vector<ActivityKind> summarizeActivity(std::span<const PlacedActivity> placed, TimeNs fromNs, TimeNs toNs,
                                            const HostActivitySet& set);

} // namespace tracelight
