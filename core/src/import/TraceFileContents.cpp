#include "tracelight/import/TraceFileContents.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "import/spans/SpanParsers.h"
#include "import/spans/SpanStager.h"
#include "tracelight/base/OccurrenceName.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/spans/SpanEventModel.h"
#include "tracelight/store/SpanReads.h"

namespace tracelight {

namespace {

// Label ids as a new database gives them (ImportWriter::intern): from 1, a text when first met; an occurrence
// "name#k" of a name when first met, after its name; "name#k" met as text, where name is a name, is that
// occurrence; an occurrence of an occurrence is kept as its text. Only the order of the task labels changes
// what an analysis computes (a request's events are grouped by task in label order), but every label the
// import interns is interned here in the same order, so that no text first met in another role moves one.
class LabelNumbering {
public:
    std::uint32_t text(std::string_view text) {
        // The same few texts come span after span (services, hosts, kinds, tag keys): a small table of texts
        // met recently answers most without hashing them.
        Recent& recent = m_recent[(text.size() * 31 + (text.empty() ? 0 : static_cast<unsigned char>(text.back()) * 7 +
                                                                              static_cast<unsigned char>(text.front()))) % kRecent];
        if (recent.text && *recent.text == text) return recent.id;
        if (auto it = m_ids.find(text); it != m_ids.end()) {
            recent = {&it->first, it->second};
            return it->second;
        }
        if (auto split = splitOccurrenceName(text); split) {
            if (auto name = m_ids.find(split->first); name != m_ids.end() && !isOccurrence(name->second)) {
                const std::uint32_t id = occurrence(name->second, split->second);
                m_ids.emplace(std::string(text), id);
                return id;
            }
        }
        const std::uint32_t id = newId();
        m_ids.emplace(std::string(text), id);
        m_texts.emplace_back(id, std::string(text));
        return id;
    }
    std::uint32_t text(std::string_view text, std::uint32_t occurrenceNumber) {
        const std::uint32_t name = this->text(text);
        return occurrenceNumber <= 1 ? name : occurrence(name, occurrenceNumber);
    }
    std::uint32_t occurrence(std::uint32_t name, std::uint32_t k) {
        if (k <= 1) return name;
        if (isOccurrence(name)) return text(occurrenceName(textOf(name), k));
        // A slot per name and number, grown as names are numbered upwards (as ImportWriter::occurrenceSlot).
        if (name >= m_slots.size()) m_slots.resize(std::max<std::size_t>(std::size_t(name) + 1, m_slots.size() * 2));
        auto& ids = m_slots[name];
        if (k - 2 >= ids.size()) ids.resize(std::max<std::size_t>(k - 1, ids.size() * 2), 0);
        std::uint32_t& id = ids[k - 2];
        if (id == 0) {
            id = newId();
            m_isOccurrence[id] = 1;
            m_occurrences.push_back({id, name, k});
        }
        return id;
    }

    // Into the builder: every text, and the occurrences (by id, as the store gives them).
    void describe(TraceDataBuilder& builder) {
        for (auto& [id, text] : m_texts) builder.setLabel(id, std::move(text));
        m_texts.clear();
        builder.setOccurrences(std::move(m_occurrences));
        m_occurrences.clear();
    }

private:
    std::uint32_t newId() {
        const std::uint32_t id = m_next++;
        if (id >= m_isOccurrence.size()) m_isOccurrence.resize(std::max<std::size_t>(std::size_t(id) + 1, m_isOccurrence.size() * 2), 0);
        return id;
    }
    bool isOccurrence(std::uint32_t id) const { return id < m_isOccurrence.size() && m_isOccurrence[id]; }
    std::string textOf(std::uint32_t id) const {
        if (isOccurrence(id)) {
            const LabelOccurrence* o = findOccurrence(m_occurrences, id);
            return o ? occurrenceName(textOf(o->name), o->occurrence) : std::string();
        }
        auto it = std::lower_bound(m_texts.begin(), m_texts.end(), id, [](const auto& t, std::uint32_t v) { return t.first < v; });
        return it != m_texts.end() && it->first == id ? it->second : std::string();
    }

    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> m_ids;
    struct Recent {
        const std::string* text = nullptr;  // a key of m_ids (whose nodes stay where they are)
        std::uint32_t id = 0;
    };
    static constexpr std::size_t kRecent = 64;
    std::array<Recent, kRecent> m_recent{};
    std::vector<std::vector<std::uint32_t>> m_slots;  // name id -> ids of its occurrences 2, 3, ... (0: none yet)
    std::vector<std::uint8_t> m_isOccurrence;          // by id
    std::vector<std::pair<std::uint32_t, std::string>> m_texts;  // in id order
    std::vector<LabelOccurrence> m_occurrences;                   // in id order
    std::uint32_t m_next = 1;
};

// An event of a trace by label id.
struct NumberedEvent {
    std::uint32_t task, event, host;
    TimeNs tsNs;
    std::int64_t seq;
};

// What a trace keeps, by label id, until every label is numbered: its events, links and spans as the store's
// read derives them (ready: the events its assembly derived, in task order), or, where these would not do,
// what the store keeps of its spans, to derive them from as that read does.
struct NumberedTrace {
    bool ready = false;
    std::vector<NumberedEvent> events;  // ready: in task order, then position
    std::vector<std::pair<std::uint32_t, std::uint32_t>> links;  // ready: by event index
    std::vector<SpanRef> spanRefs;                               // ready
    std::vector<SpanCallShape> shapes;
    std::vector<SpanEventName> spanEvents;
    std::vector<std::uint32_t> enter, leave;
    std::vector<SpanRefRow> refs;
};

// The trace's events (each task's together, in position order, as the assembly derived them) in task order by
// label id, with its links and spans by event index: what the store's read derives from its span rows (by
// label id, the events' names as they are), unless two tasks of the trace became one label, which the
// assembly's names keep apart (false then, the events left as they were). runOfTask: all zero, kept from trace
// to trace (a table by label id, so that an event is found without a search) and left all zero.
template <typename LabelOf>
bool useAssembledEvents(NumberedTrace& t, const std::vector<AssembledLink>& links, const LabelOf& labelOf,
                        std::vector<std::uint32_t>& runOfTask) {
    struct Run {
        std::uint32_t task;
        std::size_t begin, end;
    };
    std::vector<Run> runs;
    for (std::size_t e = 0; e < t.events.size(); ++e)
        if (runs.empty() || t.events[e].task != runs.back().task) runs.push_back({t.events[e].task, e, e + 1});
        else runs.back().end = e + 1;
    const auto byTask = [](const Run& a, const Run& b) { return a.task < b.task; };
    // Tasks are numbered as their events come, so the runs are usually in order already: then they stay put.
    const bool inOrder = std::is_sorted(runs.begin(), runs.end(), byTask);
    if (!inOrder) std::sort(runs.begin(), runs.end(), byTask);
    for (std::size_t k = 1; k < runs.size(); ++k)
        if (runs[k].task == runs[k - 1].task) return false;
    if (!inOrder) {
        std::vector<NumberedEvent> events;
        events.reserve(t.events.size());
        for (Run& run : runs) {
            const std::size_t from = run.begin;
            run.begin = events.size();  // where it is now
            events.insert(events.end(), t.events.begin() + std::ptrdiff_t(from), t.events.begin() + std::ptrdiff_t(run.end));
            run.end = events.size();
        }
        t.events = std::move(events);
    }
    if (!runs.empty() && runs.back().task >= runOfTask.size()) runOfTask.resize(std::size_t(runs.back().task) + 1, 0);
    for (std::size_t k = 0; k < runs.size(); ++k) runOfTask[runs[k].task] = static_cast<std::uint32_t>(k + 1);
    // An event by its task's run and its position in it: a task's positions count 1, 2, ... in its run, so
    // the position says where it is (searched for only where it does not).
    const auto indexOf = [&](std::uint32_t task, std::int64_t seq) -> std::optional<std::uint32_t> {
        if (task >= runOfTask.size() || runOfTask[task] == 0) return std::nullopt;
        const Run& run = runs[runOfTask[task] - 1];
        const std::size_t size = run.end - run.begin;
        if (seq >= 1 && std::uint64_t(seq) <= size) {
            const std::size_t at = run.begin + std::size_t(seq) - 1;
            if (t.events[at].seq == seq && (at == run.begin || t.events[at - 1].seq < seq)) return static_cast<std::uint32_t>(at);
        }
        const auto in = std::lower_bound(t.events.begin() + std::ptrdiff_t(run.begin), t.events.begin() + std::ptrdiff_t(run.end), seq,
                                         [](const NumberedEvent& e, std::int64_t key) { return e.seq < key; });
        if (in == t.events.begin() + std::ptrdiff_t(run.end) || in->seq != seq) return std::nullopt;
        return static_cast<std::uint32_t>(in - t.events.begin());
    };
    t.links.reserve(links.size());
    for (const AssembledLink& l : links) {
        auto from = indexOf(labelOf(l.fromTask), l.fromSeq);
        auto to = indexOf(labelOf(l.toTask), l.toSeq);
        if (from && to) t.links.emplace_back(*from, *to);
    }
    t.spanRefs.reserve(t.refs.size());
    resolveSpanRefs(t.refs, indexOf, [&](SpanRef s) { t.spanRefs.push_back(s); });
    for (const Run& run : runs) runOfTask[run.task] = 0;
    t.ready = true;
    return true;
}

} // namespace

namespace {
constexpr const char* kNotSpanData = "not span data (import it into a database)";
} // namespace

bool needsDatabase(const Status& status) {
    if (status) return false;
    const std::string& message = status.message();
    return message.find(kSpansOverMemoryBudget) != std::string::npos || message.ends_with(kNotSpanData);
}

Result<TraceFileContents> readSpanFiles(const ImportOptions& options, const ProgressSink* progress, const CancelToken* cancel) {
    namespace fs = std::filesystem;
    if (options.inputs.empty()) return Status::error("no input files given");
    std::vector<InputFormat> formats;
    std::uint64_t totalBytes = 0;
    for (const auto& input : options.inputs) {
        std::error_code ec;
        if (fs::is_directory(input, ec)) return Status::error(input + ": is a directory, not a trace file (name the files in it)");
        if (!fs::is_regular_file(input, ec)) return Status::error(input + ": no such file");
        totalBytes += fs::file_size(input, ec);
        InputFormat format = options.format;
        if (format == InputFormat::Auto) {
            auto detected = detectInputFormat(input);
            if (!detected) return detected.status();
            format = detected.value();
        }
        if (!isSpanFormat(format)) return Status::error(input + ": " + kNotSpanData);
        formats.push_back(format);
    }

    ThrottledProgress reporter(progress);
    SpanStager stager(nullptr, options.spanMemoryBudget);
    std::uint64_t bytesBefore = 0;
    constexpr double kReadShare = 0.8;
    for (std::size_t i = 0; i < options.inputs.size(); ++i) {
        const std::string& input = options.inputs[i];
        const std::string stage = "reading " + fs::path(input).filename().string();
        const ByteCounter onBytes = [&](std::uint64_t bytes) {
            if (totalBytes) reporter.report(kReadShare * double(bytesBefore + bytes) / double(totalBytes), stage);
        };
        const SpanSink add = [&](RawSpan&& span) { return stager.add(std::move(span), i); };
        if (Status s = parseSpanFile(formats[i], input, options.spanColumns.value_or(SpanCsvMapping{}), add, onBytes, cancel); !s) return s;
        std::error_code ec;
        bytesBefore += fs::file_size(input, ec);
    }

    TraceFileContents out;
    out.spans = stager.count();
    LabelNumbering labels;
    std::vector<NumberedTrace> traces;
    std::size_t eventTotal = 0;
    std::vector<std::uint32_t> runOfTask;  // useAssembledEvents's table
    std::string firstWarning;
    constexpr std::size_t kFreedBesideFrom = 10000;
    std::jthread freeing;  // joined on every way out, an exception included
    const auto joinFreeing = [&] {
        if (freeing.joinable()) freeing.join();
    };
    // Each trace as the import takes it (Import.cpp): its events' labels, then what its span rows name.
    const auto number = [&](SpanBlocks&& spans, const std::vector<std::size_t>& sources) -> Status {
        AssembledTrace trace = assembleTrace(std::move(spans));
        const auto where = [&] {
            std::string files;
            for (auto source : sources) files += (files.empty() ? "" : ", ") + options.inputs[source];
            return files + ": trace " + trace.traceId + ": ";
        };
        if (!trace.warnings.empty()) {
            ++out.tracesWithWarnings;
            if (firstWarning.empty()) firstWarning = "trace " + trace.traceId + ": " + trace.warnings.front();
        }
        if (trace.events.empty()) return Status::ok();  // no span of it could be placed: no request
        std::vector<std::uint32_t> byName(trace.names.size(), 0);  // label id + 1 of each name (0: not yet)
        auto labelOf = [&](TraceName n) {
            if (byName[n.name] == 0) byName[n.name] = labels.text(trace.names[n.name]) + 1;
            return labels.occurrence(byName[n.name] - 1, n.occurrence);
        };
        NumberedTrace t;
        t.events.reserve(trace.events.size());
        // A span's tags are numbered at its start event, an empty value's key and the empty value left out: the
        // spans' own loop below numbers again only the tags of a span that had none numbered whole there.
        std::vector<bool> tagsNumbered(trace.spans.size(), false);
        for (const AssembledEvent& e : trace.events) {
            if (!isPlausibleTimestamp(e.tsNs))
                return Status::error(where() + "absurd timestamp " + formatMicroseconds(e.tsNs) + " us (not within the years 1824 to 2116)");
            const std::uint32_t host = labelOf({e.host, 1});
            const std::uint32_t task = labelOf(e.task);
            t.events.push_back({task, labelOf(e.event), host, e.tsNs, e.seq});
            if (e.tagsOf < 0) continue;
            const SpanRecord& span = trace.spans[static_cast<std::size_t>(e.tagsOf)];
            bool whole = true;
            for (const auto* tags : {&span.processAttributes, &span.attributes})
                for (const auto& [k, v] : *tags) {
                    if (v.empty()) {  // empty = absent
                        whole = false;
                        continue;
                    }
                    labels.text(k);
                    labels.text(v);
                }
            tagsNumbered[static_cast<std::size_t>(e.tagsOf)] = whole;
        }
        eventTotal += trace.events.size();
        std::vector<AssembledEvent>().swap(trace.events);
        const std::size_t n = trace.spans.size();
        t.shapes.resize(n);
        t.enter.assign(n, 0);
        t.leave.assign(n, 0);
        for (std::size_t k = 0; k < n; ++k) {
            const auto& names = trace.modelNames[k];
            t.shapes[k].host = labelOf({names.host, 1});
            if (names.enter) t.enter[k] = labelOf(*names.enter);
            if (names.leave) t.leave[k] = labelOf(*names.leave);
        }
        std::vector<std::uint32_t> spanEventIds;
        spanEventIds.reserve(trace.spanEventNames.size());
        for (const TraceName& name : trace.spanEventNames) spanEventIds.push_back(labelOf(name));
        std::size_t nextEvent = 0;
        t.refs.reserve(n);
        for (std::size_t k = 0; k < n; ++k) {
            const SpanRecord& s = trace.spans[k];
            labels.text(s.service);
            labels.text(s.operation);
            labels.text(s.host);
            labels.text(s.kind);
            const std::uint32_t task = labels.text(s.task, s.taskOccurrence);
            if (!tagsNumbered[k])
                for (const auto* attrs : {&s.attributes, &s.processAttributes})
                    for (const auto& [key, value] : *attrs) {
                        labels.text(key);
                        labels.text(value);
                    }
            SpanCallShape& shape = t.shapes[k];
            shape.waitedBy = s.caller >= 0 ? s.caller : s.parent;
            shape.moved = s.caller >= 0;
            shape.detached = s.detached;
            shape.client = s.kind == "client";
            shape.task = {task, 1};
            shape.startNs = s.startNs;
            shape.endNs = s.endNs;
            for (const auto& event : s.events) {
                labels.text(event.name);
                if (nextEvent >= spanEventIds.size()) return Status::error(where() + "span events without their event names");
                if (shape.eventCount == 0) shape.firstEvent = static_cast<std::uint32_t>(t.spanEvents.size());
                ++shape.eventCount;
                t.spanEvents.push_back({{spanEventIds[nextEvent++], 1}, event.tsNs});
            }
            t.refs.push_back({0, static_cast<std::int64_t>(k), shape.waitedBy, task, s.startOrd, s.endOrd, s.detached});
        }
        if (useAssembledEvents(t, trace.links, labelOf, runOfTask)) {  // what deriving them again needs is not kept
            t.shapes = {};
            t.spanEvents = {};
            t.enter = {};
            t.leave = {};
            t.refs = {};
        } else {
            t.events = {};
        }
        std::vector<std::string> ids;
        ids.reserve(n);
        for (auto& s : trace.spans) ids.push_back(std::move(s.spanId));
        out.requestNames.push_back(std::move(trace.traceId));
        out.spanIds.push_back(std::move(ids));
        traces.push_back(std::move(t));
        // A large trace's span records (several strings each) are freed on a thread of their own while this one
        // goes on: their frees were a few per cent of reading a trace of 100,000 spans.
        if (n >= kFreedBesideFrom) {
            if (freeing.joinable()) freeing.join();
            freeing = std::jthread([spans = std::move(trace.spans)]() mutable { RequestSpans().swap(spans); });
        }
        return Status::ok();
    };
    const std::function<void(double)> traceProgress = [&](double f) { reporter.report(kReadShare + 0.1 * f, "assembling traces"); };
    const Status numbered = stager.forEachTrace(number, cancel, traceProgress);
    joinFreeing();
    if (!numbered) return numbered;
    if (traces.empty())
        return Status::error(options.inputs.front() + ": no events to import" + (firstWarning.empty() ? "" : " (" + firstWarning + ")"));

    // Every label is numbered: the requests' events, links and spans, as a read of the store derives them.
    TraceDataBuilder builder;
    labels.describe(builder);
    builder.resolveAllOperations();
    builder.reserve(traces.size(), eventTotal);
    const std::uint32_t start = labels.text("start"), end = labels.text("end");
    std::vector<std::pair<std::uint32_t, std::int64_t>> eventKeys;  // (task, position) of each event, in order
    std::vector<AssembledLink> links;
    for (std::size_t r = 0; r < traces.size(); ++r) {
        NumberedTrace& t = traces[r];
        builder.beginRequest(RequestId(static_cast<std::uint32_t>(r + 1)), true);
        if (t.ready) {
            for (const NumberedEvent& e : t.events) builder.addEvent(e.task, e.event, e.host, e.tsNs);
            for (const auto& [from, to] : t.links) builder.addLink(from, to);
            for (const SpanRef& span : t.spanRefs) builder.addSpan(span);
            t = NumberedTrace{};
            if (cancel && cancel->isCancelled()) return Status::error("cancelled");
            reporter.report(0.9 + 0.1 * double(r + 1) / double(traces.size()), "deriving events");
            continue;
        }
        eventKeys.clear();
        links.clear();
        const auto verb = [&](std::uint32_t span, SpanVerb v) {
            return TraceName{v == SpanVerb::Call || v == SpanVerb::Serve ? t.enter[span] : t.leave[span], 1};
        };
        deriveSpanEvents({t.shapes, t.spanEvents, {start, 1}, {end, 1}, verb, {}, true,
                          [&](const AssembledEvent& e) {
                              eventKeys.emplace_back(e.task.name, e.seq);
                              builder.addEvent(e.task.name, e.event.name, e.host, e.tsNs);
                              return true;
                          },
                          [&](const AssembledLink& l) { links.push_back(l); }});
        auto indexOf = [&](std::uint32_t task, std::int64_t ord) -> std::optional<std::uint32_t> {
            const std::pair key{task, ord};
            auto it = std::lower_bound(eventKeys.begin(), eventKeys.end(), key);
            if (it == eventKeys.end() || *it != key) return std::nullopt;
            return static_cast<std::uint32_t>(it - eventKeys.begin());
        };
        for (const AssembledLink& l : links) {
            auto from = indexOf(l.fromTask.name, l.fromSeq);
            auto to = indexOf(l.toTask.name, l.toSeq);
            if (from && to) builder.addLink(*from, *to);
        }
        resolveSpanRefs(t.refs, indexOf, [&](SpanRef s) { builder.addSpan(s); });
        t = NumberedTrace{};
        if (cancel && cancel->isCancelled()) return Status::error("cancelled");
        reporter.report(0.9 + 0.1 * double(r + 1) / double(traces.size()), "deriving events");
    }
    out.data = builder.finish();
    return out;
}

} // namespace tracelight
