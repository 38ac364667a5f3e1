#pragma once
// Spans wait until every input is read, because a trace's spans may be scattered through a file (or over
// several files); then each trace is assembled on its own (the import, and a trace file read into memory).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "import/spans/RawSpanCodec.h"
#include "store/StagingTable.h"
#include "tracelight/base/Json.h"
#include "tracelight/base/Progress.h"
#include "tracelight/import/spans/Spans.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

// The error a stager without a store gives past its budget: the spans do not fit in memory.
inline constexpr const char* kSpansOverMemoryBudget = "the spans do not fit in the memory budget";

// The spans wait in memory, as they came, up to a budget of bytes; past it every span goes to a temporary
// table of the store (as compact JSON) instead, and the traces are read back from it in trace-id order
// (without a store, adding past the budget fails with kSpansOverMemoryBudget). Either way a trace's spans
// come in the order read.
class SpanStager {
public:
    SpanStager(TraceStore* store, std::uint64_t budgetBytes) : m_store(store), m_budget(budgetBytes) {}

    // source: the index of the input file the span came from, so errors about its trace can name the file.
    Status add(RawSpan&& s, std::size_t source) {
        ++m_count;
        if (!m_spilled) {
            m_bytes += footprint(s);
            m_spans.push_back(std::move(s));
            m_sources.push_back(source);
            if (m_bytes <= m_budget) return Status::ok();
            return spill();
        }
        return stage(s, source);
    }

    std::int64_t count() const { return m_count; }
    bool spilled() const { return m_spilled; }

    // Calls f(spans, sources) once per trace, in trace-id order; sources: the input files it came from.
    template <typename F>
    Status forEachTrace(F&& f, const CancelToken* cancel, const std::function<void(double)>& progress) {
        return m_spilled ? forEachStagedTrace(f, cancel, progress) : forEachMemoryTrace(f, cancel, progress);
    }

private:
    // Roughly what a span holds on the heap and in the vector (the budget need not be exact).
    static std::uint64_t footprint(const RawSpan& s) {
        auto text = [](const std::string& t) -> std::uint64_t { return t.size() > 15 ? t.capacity() + 1 : 0; };
        std::uint64_t bytes = sizeof(RawSpan) + sizeof(std::size_t) + text(s.traceId) + text(s.spanId) + text(s.parentId) + text(s.service) +
                              text(s.host) + text(s.operation) + text(s.timeError);
        for (const auto* attrs : {&s.attributes, &s.processAttributes})
            for (const auto& [k, v] : *attrs) bytes += sizeof(k) + sizeof(v) + text(k) + text(v);
        for (const auto& [name, ts] : s.events) bytes += sizeof(name) + sizeof(ts) + text(name);
        for (const auto& id : s.followsFrom) bytes += sizeof(id) + text(id);
        return bytes;
    }

    // Over budget: everything held so far goes to the table, in the order read, and so does every later span.
    Status spill() {
        if (!m_store) return Status::error(kSpansOverMemoryBudget);
        m_spilled = true;
        m_table.emplace(*m_store);
        if (Status s = m_table->start(); !s) return s;
        for (std::size_t i = 0; i < m_spans.size(); ++i)
            if (Status s = stage(m_spans[i], m_sources[i], static_cast<std::int64_t>(i)); !s) return s;
        m_spans.clear();
        std::vector<std::size_t>().swap(m_sources);
        m_bytes = 0;
        return Status::ok();
    }

    Status stage(const RawSpan& s, std::size_t source) { return stage(s, source, m_count - 1); }
    Status stage(const RawSpan& s, std::size_t source, std::int64_t seq) {
        return m_table->add(s.traceId, seq, static_cast<std::int64_t>(source), encodeRawSpan(s));
    }

    bool tick(std::int64_t& done, const CancelToken* cancel, const std::function<void(double)>& progress) const {
        if ((++done & 0xFFF) == 0) {
            if (cancel && cancel->isCancelled()) return false;
            if (progress) progress(double(done) / double(std::max<std::int64_t>(1, m_count)));
        }
        return true;
    }

    template <typename F>
    Status forEachMemoryTrace(F& f, const CancelToken* cancel, const std::function<void(double)>& progress) {
        // One trace (a single large trace, often): its spans go on as they are, not copied, so a trace of a
        // million spans is not held twice while it is assembled.
        bool oneTrace = true;
        for (std::size_t i = 1; i < m_spans.size() && oneTrace; ++i) oneTrace = m_spans[i].traceId == m_spans[0].traceId;
        if (oneTrace) {
            std::vector<std::size_t> sources;
            for (auto source : m_sources)
                if (std::find(sources.begin(), sources.end(), source) == sources.end()) sources.push_back(source);
            std::vector<std::size_t>().swap(m_sources);
            if (cancel && cancel->isCancelled()) return Status::error("import cancelled");
            if (progress) progress(1.0);
            return m_spans.empty() ? Status::ok() : f(std::exchange(m_spans, {}), sources);
        }
        // Trace-id order (the table's: bytewise), the order read within a trace: a stable sort of positions.
        std::vector<std::uint32_t> order(m_spans.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return m_spans[a].traceId < m_spans[b].traceId; });
        SpanBlocks trace;
        std::vector<std::size_t> sources;
        std::int64_t done = 0;
        for (std::size_t i = 0; i < order.size();) {
            const std::string id = m_spans[order[i]].traceId;
            trace.clear();
            sources.clear();
            for (; i < order.size() && m_spans[order[i]].traceId == id; ++i) {
                const std::size_t source = m_sources[order[i]];
                if (std::find(sources.begin(), sources.end(), source) == sources.end()) sources.push_back(source);
                trace.push_back(std::move(m_spans[order[i]]));
                if (!tick(done, cancel, progress)) return Status::error("import cancelled");
            }
            if (Status s = f(std::move(trace), sources); !s) return s;
        }
        m_spans.clear();
        std::vector<std::size_t>().swap(m_sources);
        return Status::ok();
    }

    template <typename F>
    Status forEachStagedTrace(F& f, const CancelToken* cancel, const std::function<void(double)>& progress) {
        SpanBlocks trace;
        std::vector<std::size_t> sources;
        std::string current;
        std::int64_t done = 0;
        const Status walked = m_table->forEach([&](std::string_view id, std::string_view data, std::int64_t from) -> Status {
            if (!trace.empty() && id != current) {
                if (Status s = f(std::move(trace), sources); !s) return s;
                trace.clear();
                sources.clear();
            }
            if (const auto source = static_cast<std::size_t>(from); std::find(sources.begin(), sources.end(), source) == sources.end())
                sources.push_back(source);
            current = id;
            auto span = decodeRawSpan(current, data);
            if (!span) return span.status();
            trace.push_back(std::move(span.value()));
            if (!tick(done, cancel, progress)) return Status::error("import cancelled");
            return Status::ok();
        });
        if (!walked) return walked;
        if (!trace.empty()) return f(std::move(trace), sources);
        return Status::ok();
    }

    TraceStore* m_store;
    std::optional<StagingTable> m_table;  // once spilled
    std::uint64_t m_budget;
    SpanBlocks m_spans;                  // held in memory, in the order read (until spilled)
    std::vector<std::size_t> m_sources;  // the input file of each
    std::uint64_t m_bytes = 0;
    bool m_spilled = false;
    std::int64_t m_count = 0;
};

} // namespace tracelight
