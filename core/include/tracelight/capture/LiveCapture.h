#pragma once
// The live capture's store side: spans received by `serve` are made durable at once (committed before the
// sender is answered), and each trace becomes a request once no span of it arrived for a quiet time. A span
// that arrives for a trace already stored opens it again: when it is quiet again it is assembled anew from
// every span received of it, and its request replaced. Not thread-safe: one thread (the receiver's writer)
// calls it, and only it uses the store meanwhile.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracelight/base/Status.h"
#include "tracelight/base/Time.h"
#include "tracelight/import/spans/Spans.h"

namespace tracelight {

class TraceStore;

// What the live capture records as the format of its imports; its requests are the ones it may replace.
inline constexpr const char* kCaptureFormat = "otlp-http";

struct CaptureOptions {
    std::string period;                  // the period the capture's requests join ("capture-2026-11-30T09:12:00Z")
    TimeNs quietNs = 5 * 1000 * 1000 * TimeNs(1000);// a trace with no new span for this long is stored
};

struct CaptureProgress {
    std::int64_t stored = 0;     // traces stored (or stored again) as requests
    std::int64_t replaced = 0;   // of them, traces stored before, replaced with a late span
    std::vector<std::string> problems;  // one line per trace that could not be stored (its spans stay received)
};

class LiveCapture {
public:
    // The store opened for writing. Traces an earlier run left open are open again, as if their last span
    // came at `now` (a steady clock's nanoseconds: only differences matter).
    static Result<std::unique_ptr<LiveCapture>> open(TraceStore& store, CaptureOptions options, TimeNs now);
    ~LiveCapture();
    LiveCapture(const LiveCapture&) = delete;
    LiveCapture& operator=(const LiveCapture&) = delete;

    // Stores the spans in one transaction: on success every one of them is committed.
    Status accept(const std::vector<RawSpan>& spans, TimeNs now);
    // Stores the traces whose last span came at or before now - quiet, each as one request.
    Result<CaptureProgress> completeQuiet(TimeNs now);
    // Stores every open trace (at a clean stop).
    Result<CaptureProgress> completeAll();

    std::size_t openTraces() const { return m_lastArrival.size(); }
    std::int64_t spansAccepted() const { return m_accepted; }
    const CaptureOptions& options() const { return m_options; }

private:
    LiveCapture(TraceStore& store, CaptureOptions options);
    Result<CaptureProgress> complete(const std::vector<std::string>& traces);
    Status storeTraces(const std::vector<std::string>& traces, CaptureProgress& progress);

    TraceStore& m_store;
    CaptureOptions m_options;
    std::unordered_map<std::string, TimeNs> m_lastArrival;  // the open traces
    std::int64_t m_accepted = 0;
};

} // namespace tracelight
