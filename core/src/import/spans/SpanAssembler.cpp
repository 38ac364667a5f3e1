#include "tracelight/import/spans/Spans.h"
#include "tracelight/base/Grouping.h"
#include "tracelight/base/StringMap.h"
#include "tracelight/studies/Categories.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <span>
#include <thread>
#include <array>

namespace tracelight {

namespace {
constexpr TimeNs kFarOutsideNs = TimeNs{24} * 3600 * 1000000000;  // a span a day away from its trace is garbage
constexpr std::size_t kThreadFrom = 10000;  // spans: from here a second thread's work is worth its start

// Span positions found by the span's id, which stays in the span: open addressing in one array, no copy
// of an id. A million spans take 16 MB in one block, where a node map of copied ids took 92 MB in two
// million small pieces that stayed in the heap after it went.
class SpanIdIndex {
public:
    static constexpr std::uint32_t kAbsent = ~0u;

    explicit SpanIdIndex(std::size_t most) {
        std::size_t size = 16;
        while (size < 2 * most) size *= 2;  // at most half full: probes stay short
        m_slots.assign(size, Slot{});
    }

    // The position stored for id and false, or `position`, newly stored, and true. idOf(position): that span's id.
    template <typename IdOf>
    std::pair<std::uint32_t, bool> emplace(std::string_view id, std::uint32_t position, const IdOf& idOf) {
        const std::uint64_t h = hash(id);
        for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
            Slot& slot = m_slots[i];
            if (slot.position == kAbsent) {
                slot = {position, static_cast<std::uint32_t>(h >> 32)};
                return {position, true};
            }
            if (slot.tag == static_cast<std::uint32_t>(h >> 32) && idOf(slot.position) == id) return {slot.position, false};
        }
    }

    template <typename IdOf>
    std::uint32_t find(std::string_view id, const IdOf& idOf) const {
        const std::uint64_t h = hash(id);
        for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
            const Slot& slot = m_slots[i];
            if (slot.position == kAbsent) return kAbsent;
            if (slot.tag == static_cast<std::uint32_t>(h >> 32) && idOf(slot.position) == id) return slot.position;
        }
    }

private:
    struct Slot {
        std::uint32_t position = kAbsent;
        std::uint32_t tag = 0;  // the hash's high half: most mismatches are told without reading the id
    };
    static std::uint64_t hash(std::string_view id) {
        std::uint64_t h = std::hash<std::string_view>{}(id);
        h ^= h >> 29;  // mixed, so that both halves (slot and tag) vary
        h *= 0xBF58476D1CE4E5B9ull;
        return h ^ (h >> 32);
    }
    std::size_t mask() const { return m_slots.size() - 1; }
    std::vector<Slot> m_slots;  // a power of two in size
};
} // namespace

// One rule for a pod's service everywhere: the categories' (tracelight/studies/Categories.h).
std::string serviceFromPodName(const std::string& pod) { return hostRole(pod); }

SpanBlocks::SpanBlocks(std::vector<RawSpan> spans) {
    if (spans.size() <= kBlock) {
        m_size = spans.size();
        if (m_size > 0) m_blocks.push_back(std::move(spans));
        return;
    }
    for (auto& span : spans) push_back(std::move(span));
}

AssembledTrace assembleTrace(SpanBlocks spans) {
    AssembledTrace out;
    if (spans.empty()) return out;
    out.traceId = spans[0].traceId;
    auto warn = [&](std::string w) { out.warnings.push_back(std::move(w)); };

    // A span event beyond the time range is dropped, its span kept.
    for (std::size_t i = 0; i < spans.size(); ++i)
        if (RawSpan& s = spans[i]; std::erase_if(s.events, [](const auto& e) { return !isPlausibleTimestamp(e.second); }) > 0)
            warn("span " + s.spanId + ": an event's time is out of range (dropped)");
    // Spans without a (usable) time cannot be placed.
    spans.eraseIf([&](const RawSpan& s) {
        if (!s.timeError.empty()) {
            warn("span " + s.spanId + ": " + s.timeError);
            return true;
        }
        if (s.hasTimestamp && (!isPlausibleTimestamp(s.startNs) || !isPlausibleTimestamp(s.endNs))) {
            warn("span " + s.spanId + ": time out of range (not within the years 1824 to 2116)");
            return true;
        }
        if (s.hasTimestamp) return false;
        warn("span " + s.spanId + " has no timestamp");
        return true;
    });
    if (spans.empty()) return out;
    // Zero or negative durations: a negative one is clamped to zero.
    for (std::size_t i = 0; i < spans.size(); ++i)
        if (RawSpan& s = spans[i]; s.endNs < s.startNs) {
            warn("span " + s.spanId + " ends before it starts");
            s.endNs = s.startNs;
        }
    // Spans far outside the trace (a day from its median start) are dropped.
    {
        std::vector<TimeNs> starts;
        starts.reserve(spans.size());
        for (std::size_t i = 0; i < spans.size(); ++i) starts.push_back(spans[i].startNs);
        std::nth_element(starts.begin(), starts.begin() + static_cast<std::ptrdiff_t>(starts.size() / 2), starts.end());
        const TimeNs median = starts[starts.size() / 2];
        // Compared as distances that cannot overflow: both ends are valid 64-bit times.
        auto near = [&](TimeNs t) { return t >= median ? std::uint64_t(t) - std::uint64_t(median) <= std::uint64_t(kFarOutsideNs)
                                                       : std::uint64_t(median) - std::uint64_t(t) <= std::uint64_t(kFarOutsideNs); };
        spans.eraseIf([&](const RawSpan& s) {
            if (near(s.startNs) && near(s.endNs)) return false;
            warn("span " + s.spanId + " lies far outside its trace");
            return true;
        });
    }

    // Identity. A Zipkin server half shares its client's id: it becomes a child of the client half.
    const std::size_t n = spans.size();
    std::vector<bool> dropped(n, false);
    std::vector<long> parent(n, -1);
    {
        bool anyShared = false;
        for (std::size_t i = 0; i < n && !anyShared; ++i) anyShared = spans[i].shared;
        // Spans by id, and server halves by the id they share with their client.
        const auto idOf = [&](std::uint32_t i) -> std::string_view { return spans[i].spanId; };
        SpanIdIndex ids(n), serverIds(anyShared ? n : 0);
        for (std::size_t i = 0; i < n; ++i) {
            auto [at, fresh] = (spans[i].shared ? serverIds : ids).emplace(spans[i].spanId, static_cast<std::uint32_t>(i), idOf);
            if (fresh) continue;
            // The same span reported in pieces (Zipkin does this): one span over their union.
            RawSpan& first = spans[at];
            first.startNs = std::min(first.startNs, spans[i].startNs);
            first.endNs = std::max(first.endNs, spans[i].endNs);
            for (auto& a : spans[i].attributes) first.attributes.push_back(std::move(a));
            if (first.processAttributes.empty()) first.processAttributes = std::move(spans[i].processAttributes);
            for (auto& e : spans[i].events) first.events.push_back(std::move(e));
            if (first.parentId.empty()) first.parentId = spans[i].parentId;
            if (first.operation.empty()) first.operation = spans[i].operation;
            warn("duplicate span id " + spans[i].spanId + " (merged)");
            dropped[i] = true;
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (dropped[i]) continue;
            const bool shared = spans[i].shared;
            const bool hasClient = shared && ids.find(spans[i].spanId, idOf) != SpanIdIndex::kAbsent;
            // A server half's parent is its client half, if this trace has it.
            const std::string_view p = hasClient ? std::string_view(spans[i].spanId) : std::string_view(spans[i].parentId);
            if (p.empty()) continue;
            if (p == spans[i].spanId && !hasClient) {
                warn("span " + spans[i].spanId + " is its own parent (imported as a root)");
                continue;
            }
            // Children of a shared id were made by its server half, which ran on the server.
            std::uint32_t found = !shared && anyShared ? serverIds.find(p, idOf) : SpanIdIndex::kAbsent;
            if (found == SpanIdIndex::kAbsent) found = ids.find(p, idOf);
            if (found == SpanIdIndex::kAbsent) {
                warn("span " + spans[i].spanId + " has a missing parent " + std::string(p));
                continue;
            }
            parent[i] = static_cast<long>(found);
        }
    }  // the indexes go here, before the span records are made
    // A large trace's records (a few hundred bytes each, on fresh pages) are made on a second thread while its
    // spans are ordered here: making them was several per cent of reading a trace of a million spans.
    RequestSpans records;
    std::jthread preparing;  // joined on the way out, an exception included, before `records` goes
    if (n >= kThreadFrom) preparing = std::jthread([&records, n] { records.resize(n); });
    // Cycles (A -> B -> A): the span of the cycle that started first is cut loose and becomes a root.
    // One walk up from each span, marking what it passed, so each span is visited once (no n x depth).
    {
        enum : char { Unseen, OnWalk, Done };
        std::vector<char> state(n, Unseen);
        std::vector<std::size_t> walk;
        for (std::size_t i = 0; i < n; ++i) {
            walk.clear();
            long v = static_cast<long>(i);
            while (v >= 0 && state[static_cast<std::size_t>(v)] == Unseen) {
                state[static_cast<std::size_t>(v)] = OnWalk;
                walk.push_back(static_cast<std::size_t>(v));
                v = parent[static_cast<std::size_t>(v)];
            }
            if (v >= 0 && state[static_cast<std::size_t>(v)] == OnWalk) {  // the walk came back to itself
                std::size_t first = static_cast<std::size_t>(v);
                std::string members;
                std::size_t u = first;
                do {
                    if (spans[u].startNs < spans[first].startNs) first = u;
                    if (members.size() < 200) members += (members.empty() ? "" : " -> ") + spans[u].spanId;
                    u = static_cast<std::size_t>(parent[u]);
                } while (u != static_cast<std::size_t>(v));
                warn("spans " + members + " form a parent cycle; span " + spans[first].spanId + " imported as a root");
                parent[first] = -1;
            }
            for (auto w : walk) state[w] = Done;
        }
    }

    // Names: each distinct text once in out.names. Task names: service:operation, the k-th one of a name
    // in start order its k-th occurrence.
    StringMap<std::uint32_t> nameIndex;
    auto nameOf = [&](std::string_view text) {
        if (auto it = nameIndex.find(text); it != nameIndex.end()) return it->second;
        const auto id = static_cast<std::uint32_t>(out.names.size());
        nameIndex.emplace(std::string(text), id);
        out.names.emplace_back(text);
        return id;
    };
    std::vector<std::size_t> order;
    {
        // Start order, ties in input order: the keys side by side (a comparison that read two spans missed the
        // cache twice; a million spans' sort was 2 % of reading them).
        std::vector<std::pair<TimeNs, std::size_t>> keys;
        keys.reserve(n);
        for (std::size_t i = 0; i < n; ++i)
            if (!dropped[i]) keys.emplace_back(spans[i].startNs, i);
        std::sort(keys.begin(), keys.end());
        order.reserve(keys.size());
        for (const auto& key : keys) order.push_back(key.second);
    }
    // The span kind as the records keep it (a literal: no text is made per span).
    auto kindOf = [](const RawSpan& s) -> std::string_view {
        for (const auto& [k, v] : s.attributes) {
            if (k != "span.kind") continue;
            std::string_view t(v);
            char lower[16];
            if (t.size() >= 10 && t.size() - 10 < sizeof lower) {  // "SPAN_KIND_..." in any case
                bool prefixed = true;
                for (std::size_t j = 0; j < 10 && prefixed; ++j)
                    prefixed = std::tolower(static_cast<unsigned char>(t[j])) == "span_kind_"[j];
                if (prefixed) t.remove_prefix(10);
            }
            if (t.size() >= sizeof lower) return "";
            for (std::size_t j = 0; j < t.size(); ++j) lower[j] = static_cast<char>(std::tolower(static_cast<unsigned char>(t[j])));
            const std::string_view l(lower, t.size());
            if (l == "1" || l == "internal") return "internal";
            if (l == "2" || l == "server") return "server";
            if (l == "3" || l == "client") return "client";
            if (l == "4" || l == "producer") return "producer";
            if (l == "5" || l == "consumer") return "consumer";
            return "";
        }
        return s.shared ? "server" : "";
    };
    std::vector<std::string_view> kinds(n);  // in input order: the spans are read one after another
    for (std::size_t i = 0; i < n; ++i)
        if (!dropped[i]) kinds[i] = kindOf(spans[i]);

    // A call whose caller's span is missing. A server span hanging from a span of another service that is
    // not a client was called from within that service, by whatever span was running there: when an
    // internal span of that service under the parent encloses the whole call, it is the span that waited
    // for it (the innermost one; of siblings, the latest started before the call). The span keeps its
    // parent as written; its call and return, its place on the critical path and its slack follow the
    // caller. Only kinds that say so move a span: a trace without kinds is read as written.
    std::vector<long> writtenParent;  // empty: every span's caller is its parent
    {
        bool anyInternal = false;
        for (const std::string_view kind : kinds) anyInternal |= kind == "internal";
        auto waits = [&](std::size_t i) { return parent[i] >= 0 && !spans[i].parentFollowsFrom; };
        auto up = [&](std::size_t i) { return static_cast<std::size_t>(parent[i]); };
        std::vector<std::size_t> inner;  // internal spans under a parent of their service, in start order
        if (anyInternal)
            for (auto i : order)
                if (kinds[i] == "internal" && waits(i) && spans[i].service == spans[up(i)].service) inner.push_back(i);
        const Grouping innerOf = Grouping::build(n, inner, [&](auto i) -> std::int64_t { return parent[i]; });
        for (auto c : inner.empty() ? std::span<const std::size_t>() : std::span<const std::size_t>(order)) {
            if (kinds[c] != "server" || !waits(c)) continue;
            const std::size_t p = up(c);
            if ((kinds[p] != "server" && kinds[p] != "internal" && kinds[p] != "consumer") || spans[p].service == spans[c].service)
                continue;
            std::size_t at = p;
            for (bool deeper = true; deeper;) {
                deeper = false;
                const auto kids = innerOf.of(at);
                auto it = std::upper_bound(kids.begin(), kids.end(), spans[c].startNs,
                                           [&](TimeNs t, std::uint32_t k) { return t < spans[k].startNs; });
                for (int tries = 0; it != kids.begin() && tries < 8 && !deeper; ++tries)
                    if (--it; spans[*it].endNs >= spans[c].endNs) at = *it, deeper = true;
            }
            if (at == p) continue;
            if (writtenParent.empty()) writtenParent.assign(parent.begin(), parent.end());
            parent[c] = static_cast<long>(at);
        }
    }
    auto moved = [&](std::size_t i) { return !writtenParent.empty() && writtenParent[i] != parent[i]; };
    std::vector<TraceName> task(n);
    std::vector<std::uint32_t> seen;  // by name: spans of it so far
    std::string taskText;
    for (auto i : order) {
        taskText.assign(spans[i].service.empty() ? std::string_view("?") : std::string_view(spans[i].service));
        taskText += ':';
        taskText += spans[i].operation.empty() ? std::string_view("?") : std::string_view(spans[i].operation);
        const std::uint32_t name = nameOf(taskText);
        if (name >= seen.size()) seen.resize(name + 1, 0);
        task[i] = {name, ++seen[name]};
    }
    // A task name that reads as another's occurrence ("web:work#2" beside two spans of "web:work") would be
    // stored as that occurrence, and the two spans' events would land in one task (a repeated seq, the whole
    // import refused): it is told apart by a prime ("web:work#2'"), with a warning.
    // Until nothing changes: a renamed name may be the base of another ("a#2'" of "a#2'#2"); a renamed name
    // never reads as an occurrence again, so this ends.
    for (bool renamed = seen.size() > 1; renamed;) {
        renamed = false;
        for (std::uint32_t name = 0; name < seen.size(); ++name) {
            if (seen[name] == 0) continue;
            auto split = splitOccurrenceName(out.names[name]);
            if (!split) continue;
            auto base = nameIndex.find(split->first);
            if (base == nameIndex.end() || base->second >= seen.size() || seen[base->second] < split->second) continue;
            std::string apart = out.names[name] + "'";
            while (nameIndex.find(apart) != nameIndex.end()) apart += "'";
            warn("task name '" + out.names[name] + "' reads as occurrence " + std::to_string(split->second) + " of '" +
                 std::string(split->first) + "' in this trace: kept apart as '" + apart + "'");
            nameIndex.erase(out.names[name]);
            out.names[name] = apart;
            nameIndex.emplace(apart, name);
            renamed = true;
        }
    }
    // "call NAME", "return NAME", "serve NAME", "served NAME" for a task name, made once per name.
    enum Verb { Call, Return, Serve, Served };
    std::vector<std::array<std::uint32_t, 4>> verbNames;
    auto verbName = [&](TraceName t, Verb verb) -> TraceName {
        static constexpr const char* kVerbs[] = {"call ", "return ", "serve ", "served "};
        if (t.name >= verbNames.size()) verbNames.resize(t.name + 1, {~0u, ~0u, ~0u, ~0u});
        std::uint32_t& slot = verbNames[t.name][verb];
        if (slot == ~0u) slot = nameOf(kVerbs[verb] + std::string(out.names[t.name]));
        return {slot, t.occurrence};
    };
    const TraceName startName{nameOf("start"), 1}, endName{nameOf("end"), 1};
    // Each span's children in start order: one list of all, cut per parent (a million spans: 8 MB in two
    // blocks, where a list per span took 57 MB in half a million pieces).
    const Grouping childrenByParent = Grouping::build(n, order, [&](auto i) -> std::int64_t { return parent[i]; });
    const auto children = [&](std::size_t i) { return childrenByParent.of(i); };

    // The span tree itself, depth first from each root (roots and siblings in start order), without
    // recursion: parents come before their children. Made now, so that the input spans can go before the
    // events are built (a trace of a million spans would otherwise hold both); what follows reads the
    // records. Where each span's events landed is filled in once they are numbered.
    std::vector<std::int32_t> index(n, -1);  // a span's index in out.spans: numbered depth first
    {
        std::vector<std::size_t> stack, roots;
        for (auto i : order)
            if (parent[i] < 0) roots.push_back(i);  // `order`: start order
        for (auto r = roots.rbegin(); r != roots.rend(); ++r) stack.push_back(*r);
        std::int32_t next = 0;
        while (!stack.empty()) {
            const std::size_t i = stack.back();
            stack.pop_back();
            index[i] = next++;
            const auto kids = children(i);
            for (auto c = kids.rbegin(); c != kids.rend(); ++c) stack.push_back(*c);
        }
    }
    // The event model's input, read from the input spans before they become records: each span's shape by its
    // index, its own task, the names its events use (hosts named in input order, events in index order).
    // Tasks are made in `order` (roots first, then start order, ties in input order), as the labels they
    // name are interned in that order.
    const std::size_t count = order.size();
    std::vector<SpanCallShape> shapes(count);
    std::vector<SpanEventName> spanEventNames;
    std::vector<TraceName> ownTask(count);
    std::vector<std::uint32_t> inputOf(count);  // by index: its input span
    for (std::size_t i = 0; i < n; ++i) {
        if (index[i] < 0) continue;  // merged into another piece of it
        const auto r = static_cast<std::size_t>(index[i]);
        const RawSpan& s = spans[i];
        inputOf[r] = static_cast<std::uint32_t>(i);
        SpanCallShape& shape = shapes[r];
        shape.waitedBy = parent[i] >= 0 ? index[static_cast<std::size_t>(parent[i])] : -1;
        shape.moved = moved(i);
        // Not waited for: a FOLLOWS_FROM child, and a consumer under its producer (work the producer only sent).
        const long written = moved(i) ? writtenParent[i] : parent[i];
        shape.detached = written >= 0 && (s.parentFollowsFrom || (kinds[i] == "consumer" && kinds[static_cast<std::size_t>(written)] == "producer"));
        shape.client = kinds[i] == "client";
        const std::string& host = s.host.empty() ? s.service : s.host;
        shape.host = nameOf(host.empty() ? std::string_view("?") : std::string_view(host));
        shape.task = ownTask[r] = task[i];
        shape.startNs = s.startNs;
        shape.endNs = s.endNs;
        shape.eventCount = static_cast<std::uint32_t>(s.events.size());
    }
    for (std::size_t r = 0; r < count; ++r) {
        shapes[r].firstEvent = static_cast<std::uint32_t>(spanEventNames.size());
        if (shapes[r].eventCount == 0) continue;
        for (const auto& [name, ts] : spans[inputOf[r]].events)
            spanEventNames.push_back({{nameOf(name.empty() ? std::string_view("event") : std::string_view(name)), 1}, ts});
    }
    std::vector<std::uint32_t>().swap(inputOf);

    // The records are made in input order, each block of input spans freed once read, each put in its
    // place as it is made: the input spans and their records are never all held at once. A large trace's
    // are made on a second thread while this one derives its events.
    if (preparing.joinable()) preparing.join();
    records.resize(count);
    out.spans = std::move(records);
    const auto makeRecords = [&] {
        for (std::size_t i = 0; i < n; ++i) {
            if (i % SpanBlocks::kBlock == 0) spans.releaseBefore(i);
            if (index[i] < 0) continue;  // merged into another piece of it
            RawSpan& s = spans[i];
            SpanRecord& rec = out.spans[static_cast<std::size_t>(index[i])];
            rec.kind = kinds[i];
            rec.spanId = std::move(s.spanId);
            const long written = moved(i) ? writtenParent[i] : parent[i];
            rec.parent = written >= 0 ? index[static_cast<std::size_t>(written)] : -1;
            if (moved(i)) rec.caller = index[static_cast<std::size_t>(parent[i])];
            rec.service = std::move(s.service);
            rec.operation = std::move(s.operation);
            rec.host = std::move(s.host);
            rec.startNs = s.startNs;
            rec.endNs = s.endNs;
            rec.attributes = std::move(s.attributes);
            rec.processAttributes = std::move(s.processAttributes);
            rec.events.reserve(s.events.size());
            for (auto& [name, ts] : s.events) rec.events.push_back({std::move(name), ts});
            rec.links = std::move(s.followsFrom);
            rec.detached = shapes[static_cast<std::size_t>(index[i])].detached;
        }
    };
    std::jthread making;  // joined before the records are read, and on the way out, an exception included
    if (n >= kThreadFrom) making = std::jthread(makeRecords);
    else makeRecords();

    // Roots first, so the request's attributes come from its root span.
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return (parent[a] < 0) > (parent[b] < 0); });
    std::vector<std::uint32_t> taskOrder;
    taskOrder.reserve(order.size());
    for (auto i : order) taskOrder.push_back(static_cast<std::uint32_t>(index[i]));
    out.modelNames.resize(count);
    for (std::size_t r = 0; r < count; ++r) out.modelNames[r].host = shapes[r].host;
    const auto verb = [&](std::uint32_t r, SpanVerb v) {
        const TraceName name = verbName(ownTask[r], static_cast<Verb>(v));
        (v == SpanVerb::Call || v == SpanVerb::Serve ? out.modelNames[r].enter : out.modelNames[r].leave) = name;
        return name;
    };
    SpanEventModel model = deriveSpanEvents({shapes, spanEventNames, startName, endName, verb, taskOrder, true, {}, {}});
    if (making.joinable()) making.join();
    std::vector<std::int32_t>().swap(index);
    // What is left of a large trace's input spans (their trace and parent ids: two strings each) is freed on
    // a thread of its own while its records are finished.
    std::jthread freeing;  // joined on the way out
    if (n >= kThreadFrom) freeing = std::jthread([rest = std::move(spans)]() mutable { rest.clear(); });
    spans.clear();
    out.spanEventNames = std::move(model.eventNames);
    out.renamedEvents = model.renamedEvents;
    out.events = std::move(model.events);
    out.links = std::move(model.links);
    for (std::size_t r = 0; r < out.spans.size(); ++r) {
        SpanRecord& rec = out.spans[r];
        rec.task = out.names[model.taskOf[r].name];
        rec.taskOccurrence = model.taskOf[r].occurrence;
        rec.startOrd = model.startSeq[r];
        rec.endOrd = model.endSeq[r];
    }
    return out;
}

} // namespace tracelight
