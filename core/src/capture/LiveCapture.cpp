#include "tracelight/capture/LiveCapture.h"

#include <map>
#include <utility>

#include "import/spans/RawSpanCodec.h"
#include "import/spans/SpanTraceWriter.h"
#include "store/CaptureTable.h"
#include "store/ImportWriter.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

LiveCapture::LiveCapture(TraceStore& store, CaptureOptions options) : m_store(store), m_options(std::move(options)) {}
LiveCapture::~LiveCapture() = default;

Result<std::unique_ptr<LiveCapture>> LiveCapture::open(TraceStore& store, CaptureOptions options, TimeNs now) {
    if (options.period.empty()) return Status::error("a live capture needs a period name");
    std::unique_ptr<LiveCapture> capture(new LiveCapture(store, std::move(options)));
    auto open = CaptureTable(store).openTraces();
    if (!open) return Status::error(store.path() + ": " + open.message());
    for (auto& trace : open.value()) capture->m_lastArrival.emplace(std::move(trace), now);
    return capture;
}

Status LiveCapture::accept(const std::vector<RawSpan>& spans, TimeNs now) {
    if (spans.empty()) return Status::ok();
    if (Status s = m_store.begin(); !s) return s;
    CaptureTable table(m_store);
    std::map<std::string_view, std::int64_t> added;
    for (const RawSpan& span : spans) {
        if (Status s = table.addSpan(span.traceId, encodeRawSpan(span)); !s) {
            m_store.rollback();
            return Status::error(m_store.path() + ": " + s.message());
        }
        ++added[span.traceId];
    }
    for (const auto& [trace, count] : added)
        if (Status s = table.markOpen(trace, count); !s) {
            m_store.rollback();
            return Status::error(m_store.path() + ": " + s.message());
        }
    if (Status s = m_store.commit(); !s) {
        m_store.rollback();
        return s;
    }
    for (const auto& [trace, count] : added) m_lastArrival[std::string(trace)] = now;
    m_accepted += static_cast<std::int64_t>(spans.size());
    return Status::ok();
}

Result<CaptureProgress> LiveCapture::completeQuiet(TimeNs now) {
    std::vector<std::string> quiet;
    for (const auto& [trace, last] : m_lastArrival)
        if (now - last >= m_options.quietNs) quiet.push_back(trace);
    return complete(quiet);
}

Result<CaptureProgress> LiveCapture::completeAll() {
    std::vector<std::string> all;
    for (const auto& [trace, last] : m_lastArrival) all.push_back(trace);
    return complete(all);
}

Result<CaptureProgress> LiveCapture::complete(const std::vector<std::string>& traces) {
    CaptureProgress progress;
    if (traces.empty()) return progress;
    // All in one transaction; when that fails, each trace on its own, so that one that cannot be stored is
    // given up (its spans stay received) instead of holding the others back for ever.
    if (Status s = storeTraces(traces, progress); !s) {
        progress = {};
        for (const std::string& trace : traces) {
            CaptureProgress one;
            if (Status alone = storeTraces({trace}, one); !alone) {
                progress.problems.push_back(alone.message());
                if (Status b = m_store.begin(); !b) return b;
                if (Status c = CaptureTable(m_store).close(trace); !c) {
                    m_store.rollback();
                    return Status::error(m_store.path() + ": " + c.message());
                }
                if (Status c = m_store.commit(); !c) return c;
            } else {
                progress.stored += one.stored;
                progress.replaced += one.replaced;
                for (auto& p : one.problems) progress.problems.push_back(std::move(p));
            }
        }
    }
    for (const std::string& trace : traces) m_lastArrival.erase(trace);
    return progress;
}

Status LiveCapture::storeTraces(const std::vector<std::string>& traces, CaptureProgress& progress) {
    if (Status s = m_store.begin(); !s) return s;
    const auto fail = [&](const Status& why) {
        m_store.rollback();
        return why;
    };
    {
        ImportWriter writer(m_store);
        if (Status s = writer.start(m_options.period, kCaptureFormat, "live capture"); !s) return fail(Status::error(m_store.path() + ": " + s.message()));
        writer.setFromSpans(true);
        CaptureTable table(m_store);
        for (const std::string& trace : traces) {
            const std::string where = "trace " + trace + ": ";
            auto earlier = table.clearCapturedRequest(trace, kCaptureFormat);
            if (!earlier) return fail(Status::error(where + earlier.message()));
            if (earlier.value() == CaptureTable::Earlier::FromElsewhere) {
                progress.problems.push_back(where + "a request of that id is in the database from an import; the capture's spans are not stored as a request");
            } else {
                SpanBlocks spans;
                const Status read = table.forEachSpan(trace, [&](std::string_view data) -> Status {
                    auto span = decodeRawSpan(trace, data);
                    if (!span) return span.status();
                    spans.push_back(std::move(span.value()));
                    return Status::ok();
                });
                if (!read) return fail(Status::error(where + read.message()));
                bool warned = false;
                if (Status s = writeSpanTrace(writer, std::move(spans), [](const std::string& id) { return "trace " + id + ": "; }, warned); !s)
                    return fail(s);
                ++progress.stored;
                if (earlier.value() == CaptureTable::Earlier::Deleted) ++progress.replaced;
            }
            if (Status s = table.close(trace); !s) return fail(Status::error(where + s.message()));
        }
        ImportSummary summary;
        if (Status s = writer.finish(summary, nullptr, nullptr); !s) return fail(s);
    }
    return m_store.commit();
}

} // namespace tracelight
