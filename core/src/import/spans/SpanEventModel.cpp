#include "tracelight/import/spans/SpanEventModel.h"

#include <algorithm>
#include <utility>

#include "tracelight/base/Grouping.h"

namespace tracelight {

namespace {
constexpr std::uint32_t kNone = ~0u;
} // namespace

SpanEventModel deriveSpanEvents(const SpanEventModelInput& in) {
    SpanEventModel out;
    const auto& spans = in.spans;
    const std::size_t n = spans.size();
    if (n == 0) return out;
    // Each span's children (the spans it waited for) in start order, which is their index order.
    const Grouping childrenOf = Grouping::ofIndices(n, n, [&](std::size_t i) -> std::int64_t { return spans[i].waitedBy; });
    const auto children = [&](std::size_t i) { return childrenOf.of(i); };
    const auto length = [&](std::size_t i) { return spans[i].endNs - spans[i].startNs; };

    // An RPC: a client span whose one child runs on another host is one thread of control that moves
    // there and back, as the Mystery Machine's tasks do. The child joins the client's task, so the
    // trip out and back become network segments and the pair is an RPC pattern for clock skew.
    // A server runs within its client's round trip: a remote child longer than its parent is
    // asynchronous work of its own (a skewed server still fits in length, and is moved to fit). Whether
    // the clocks are apart is the analysis's decision, over every round trip of the host pair: a server
    // that ends after its client on the recorded clocks is joined all the same, and if its clock stays,
    // its part past the client's end is work the client did not wait for.
    std::vector<std::int32_t> absorbedInto(n, -1);  // child -> the client span whose task it joins
    std::vector<std::int32_t> serverOf(n, -1);      // client span -> the child that joined its task
    for (std::size_t i = 0; i < n; ++i) {
        std::int32_t remote = -1;
        int remotes = 0;
        for (auto c : children(i))
            if (!spans[c].detached && !spans[c].moved && spans[c].host != spans[i].host && length(c) <= length(i)) {
                remote = static_cast<std::int32_t>(c);
                ++remotes;
            }
        if (remotes == 1 && (spans[i].client || children(i).size() == 1)) {
            absorbedInto[static_cast<std::size_t>(remote)] = static_cast<std::int32_t>(i);
            serverOf[i] = remote;
        }
    }
    // The task a span's events land in: the top of its chain of joined servers, remembered on the way so
    // each span is walked once.
    out.taskOf.resize(n);
    {
        std::vector<std::int32_t> top(n, -1);
        std::vector<std::size_t> walk;
        for (std::size_t i = 0; i < n; ++i) {
            walk.clear();
            std::size_t v = i;
            while (top[v] < 0 && absorbedInto[v] >= 0) {
                walk.push_back(v);
                v = static_cast<std::size_t>(absorbedInto[v]);
            }
            const std::int32_t t = top[v] >= 0 ? top[v] : static_cast<std::int32_t>(v);
            top[v] = t;
            for (auto w : walk) top[w] = t;
            out.taskOf[i] = spans[static_cast<std::size_t>(t)].task;
        }
    }
    // Whether span i calls child c, and c returns into it, as events of i. Detached work (FOLLOWS_FROM, a
    // consumer) never returns into its parent, nor does asynchronous work that outlives its parent (and
    // work "started" before its parent is skew): those ends get no event, so nesting is never invented.
    // Nor does a child that starts after its parent ended (or ends before it started) give the parent an
    // event outside its own span: its own time stays within it.
    auto callsInto = [&](std::size_t i, std::size_t c) {
        return absorbedInto[c] != static_cast<std::int32_t>(i) && spans[c].startNs >= spans[i].startNs && spans[c].startNs <= spans[i].endNs;
    };
    auto returnsInto = [&](std::size_t i, std::size_t c) {
        return absorbedInto[c] != static_cast<std::int32_t>(i) && !spans[c].detached && spans[c].endNs <= spans[i].endNs &&
               spans[c].endNs >= spans[i].startNs;
    };
    struct Pending {
        TimeNs ts;
        int rank;
        TraceName name;
        std::int32_t child;
        bool isCall;
        std::uint32_t spanEvent = kNone;  // its index in in.events, for a span event
    };
    // A span's own events: start, call/return per (non-joined) child, span events, end; in time order.
    // A server joined into its client's task is named, so chains of calls stay readable and unique.
    // The start event (rank 0) carries the span's tags (AssembledEvent::tagsOf).
    auto spanEvents = [&](std::size_t i, bool served) {
        const SpanCallShape& s = spans[i];
        const auto self = static_cast<std::uint32_t>(i);
        std::vector<Pending> pending;
        pending.reserve(2 + 2 * children(i).size() + s.eventCount);  // one allocation per span
        pending.push_back({s.startNs, 0, served ? in.verb(self, SpanVerb::Serve) : in.start, -1, false});
        for (auto c : children(i)) {
            if (callsInto(i, c)) pending.push_back({spans[c].startNs, 1, in.verb(c, SpanVerb::Call), static_cast<std::int32_t>(c), true});
            if (returnsInto(i, c)) pending.push_back({spans[c].endNs, 1, in.verb(c, SpanVerb::Return), static_cast<std::int32_t>(c), false});
        }
        for (std::uint32_t k = s.firstEvent; k < s.firstEvent + s.eventCount; ++k)
            pending.push_back({in.events[k].tsNs, 1, in.events[k].name, -1, false, k});
        pending.push_back({s.endNs, 2, served ? in.verb(self, SpanVerb::Served) : in.end, -1, false});
        const auto before = [](const Pending& a, const Pending& b) { return a.ts != b.ts ? a.ts < b.ts : a.rank < b.rank; };
        // Most spans have a few events, nearly in order: sorted in place (stable), without the buffer
        // std::stable_sort allocates per call.
        if (pending.size() <= 32) {
            for (std::size_t k = 1; k < pending.size(); ++k)
                for (std::size_t j = k; j > 0 && before(pending[j], pending[j - 1]); --j) std::swap(pending[j], pending[j - 1]);
        } else {
            std::stable_sort(pending.begin(), pending.end(), before);
        }
        return pending;
    };
    // A span's events, with the server it called (and the one that called further, and so on) spliced in
    // between its start and the rest: the events of one moving task, each part on its own host. Built
    // without recursion, so a chain of 100,000 RPCs deep does not exhaust the stack.
    using Parts = std::vector<std::pair<std::size_t, std::vector<Pending>>>;
    auto chain = [&](std::size_t i, Parts& parts) {
        Parts rests;  // what follows each server's part, innermost last
        for (std::int32_t v = static_cast<std::int32_t>(i); v >= 0; v = serverOf[static_cast<std::size_t>(v)]) {
            const auto part = static_cast<std::size_t>(v);
            auto own = spanEvents(part, part != i);
            if (serverOf[part] < 0) {
                parts.emplace_back(part, std::move(own));
                break;
            }
            // The client's own events up to the server's start (its logs, calls to local children) come
            // before the trip out; the rest after the trip back. Its start always comes first.
            const TimeNs serverStart = spans[static_cast<std::size_t>(serverOf[part])].startNs;
            auto split = own.begin() + 1;
            while (split != own.end() && split->rank == 1 && split->ts <= serverStart) ++split;
            parts.emplace_back(part, std::vector<Pending>(own.begin(), split));
            rests.emplace_back(part, std::vector<Pending>(split, own.end()));
        }
        for (auto r = rests.rbegin(); r != rests.rend(); ++r) parts.push_back(std::move(*r));
    };
    // Each call and return of a child as it is numbered; the links are made from them once every child's
    // start and end have their numbers. One flat list, not two lists per span.
    struct ChildEvent {
        std::uint32_t owner, child;
        std::int64_t seq;
        bool isCall;
    };
    std::vector<ChildEvent> childEvents;
    {
        // Exactly: start and end per span, its calls and returns, its span events. Reserved at once, so a
        // trace of a million spans does not hold two copies while the vector grows.
        std::size_t calls = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (auto c : children(i)) calls += std::size_t(callsInto(i, c)) + std::size_t(returnsInto(i, c));
        if (in.withEvents) out.events.reserve(2 * n + calls + in.events.size());
        childEvents.reserve(calls);
    }
    out.startSeq.assign(n, 0);
    out.eventNames.reserve(in.events.size());
    for (const auto& e : in.events) out.eventNames.push_back(e.name);
    out.endSeq.assign(n, 0);
    std::vector<std::uint32_t> rootsFirst;
    if (in.order.empty()) {
        rootsFirst.reserve(n);
        for (std::size_t i = 0; i < n; ++i)
            if (spans[i].waitedBy < 0) rootsFirst.push_back(static_cast<std::uint32_t>(i));
        for (std::size_t i = 0; i < n; ++i)
            if (spans[i].waitedBy >= 0) rootsFirst.push_back(static_cast<std::uint32_t>(i));
    }
    // A span event that repeats a name within its task becomes that name's next occurrence ("retry#2"),
    // so each event of a task is told apart by its name; the task's starts, ends, calls and returns keep
    // theirs (a span event named "end" is the one renamed).
    std::vector<std::pair<std::size_t, std::uint32_t>> spanEventsAt;  // the current task's span events: place in out.events, input index
    std::vector<std::pair<std::uint64_t, std::size_t>> byName;  // (name, place) of those, sorted
    std::vector<std::uint32_t> structural;                       // by group of byName: structural events of that name
    const auto key = [](TraceName n) { return std::uint64_t(n.name) << 32 | n.occurrence; };
    auto numberRepeatedSpanEvents = [&](std::size_t first) {
        if (spanEventsAt.empty()) return;
        byName.clear();
        for (const auto& place : spanEventsAt) byName.emplace_back(key(out.events[place.first].event), place.first);
        std::sort(byName.begin(), byName.end());
        std::vector<std::uint64_t> names;
        for (const auto& [name, at] : byName)
            if (names.empty() || names.back() != name) names.push_back(name);
        structural.assign(names.size(), 0);
        std::size_t next = 0;  // spanEventsAt rises with place
        for (std::size_t e = first; e < out.events.size(); ++e) {
            if (next < spanEventsAt.size() && spanEventsAt[next].first == e) {
                ++next;
                continue;
            }
            const auto it = std::lower_bound(names.begin(), names.end(), key(out.events[e].event));
            if (it != names.end() && *it == key(out.events[e].event)) ++structural[static_cast<std::size_t>(it - names.begin())];
        }
        std::size_t group = 0;
        std::uint32_t rank = 0;
        for (std::size_t j = 0; j < byName.size(); ++j) {
            if (j > 0 && byName[j].first != byName[j - 1].first) ++group, rank = 0;
            if (const std::uint32_t k = structural[group] + ++rank; k > 1) {
                out.events[byName[j].second].event.occurrence = k;
                ++out.renamedEvents;
            }
        }
        for (auto [at, input] : spanEventsAt) out.eventNames[input] = out.events[at].event;
        spanEventsAt.clear();
    };
    // A sink takes the tasks in task order: the chains' tops sorted by their task.
    if (in.eventSink && in.order.empty()) {
        rootsFirst.clear();
        for (std::size_t i = 0; i < n; ++i)
            if (absorbedInto[i] < 0) rootsFirst.push_back(static_cast<std::uint32_t>(i));
        std::sort(rootsFirst.begin(), rootsFirst.end(), [&](auto a, auto b) {
            return std::pair(out.taskOf[a].name, out.taskOf[a].occurrence) < std::pair(out.taskOf[b].name, out.taskOf[b].occurrence);
        });
    }
    Parts parts;
    for (auto i : in.order.empty() ? std::span<const std::uint32_t>(rootsFirst) : in.order) {
        if (absorbedInto[i] >= 0) continue;  // made with its client
        parts.clear();
        chain(i, parts);
        // To a sink a task's events go as they are made, unless a span event of it may need its number
        // (then the task's events are held until they are numbered).
        bool direct = static_cast<bool>(in.eventSink);
        for (const auto& part : parts) direct = direct && spans[part.first].eventCount == 0;
        std::int64_t seq = 0;
        const std::size_t first = out.events.size();
        for (auto& [owner, pending] : parts) {
            for (const auto& p : pending) {
                ++seq;
                if (p.rank == 0) out.startSeq[owner] = seq;
                if (p.rank == 2) out.endSeq[owner] = seq;
                if (p.child >= 0) childEvents.push_back({static_cast<std::uint32_t>(owner), static_cast<std::uint32_t>(p.child), seq, p.isCall});
                if (!in.withEvents || out.stopped) continue;
                const AssembledEvent event{out.taskOf[i], p.name, spans[owner].host, p.rank == 0 ? static_cast<std::int32_t>(owner) : -1, p.ts, seq};
                if (direct) {
                    out.stopped = !in.eventSink(event);
                    continue;
                }
                out.events.push_back(event);
                if (p.spanEvent != kNone) spanEventsAt.push_back({out.events.size() - 1, p.spanEvent});
            }
        }
        numberRepeatedSpanEvents(first);
        if (in.eventSink && !direct) {
            for (std::size_t k = first; k < out.events.size() && !out.stopped; ++k) out.stopped = !in.eventSink(out.events[k]);
            out.events.resize(first);
        }
    }
    // Known causal edges: the parent's call -> the child's start, the child's end -> the parent's return.
    // By waiting span, its calls then its returns, each in time order: a counting sort of the list above.
    {
        auto slot = [](const ChildEvent& e) { return 2 * std::size_t(e.owner) + (e.isCall ? 0 : 1); };
        std::vector<std::uint32_t> first(2 * n + 1, 0);
        for (const auto& e : childEvents) ++first[slot(e) + 1];
        for (std::size_t k = 1; k < first.size(); ++k) first[k] += first[k - 1];
        std::vector<std::uint32_t> sorted(childEvents.size());
        for (std::size_t j = 0; j < childEvents.size(); ++j) sorted[first[slot(childEvents[j])]++] = static_cast<std::uint32_t>(j);
        if (!in.linkSink) out.links.reserve(childEvents.size());
        for (auto j : sorted) {
            const ChildEvent& e = childEvents[j];
            const AssembledLink link = e.isCall ? AssembledLink{out.taskOf[e.owner], e.seq, out.taskOf[e.child], out.startSeq[e.child]}
                                                : AssembledLink{out.taskOf[e.child], out.endSeq[e.child], out.taskOf[e.owner], e.seq};
            if (in.linkSink) in.linkSink(link);
            else out.links.push_back(link);
        }
    }
    return out;
}

} // namespace tracelight
