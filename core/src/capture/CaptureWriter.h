#pragma once
// The live capture's writer: one thread owns the capture (and so the store). The receivers (OTLP/HTTP and
// OTLP/gRPC) hand it the spans of a request and answer the sender when it says they are committed.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <iterator>
#include <mutex>
#include <thread>
#include <vector>

#include "tracelight/capture/LiveCapture.h"
#include "tracelight/capture/OtlpReceiver.h"

namespace tracelight {

inline TimeNs steadyNow() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What the receivers count, from any of their threads.
struct ReceiverCounters {
    std::atomic<std::int64_t> spans{0}, rejected{0}, requests{0};
};

class CaptureWriter {
public:
    using Done = std::function<void(const Status&)>;

    CaptureWriter(LiveCapture& capture, const ReceiverOptions& options, ReceiverLog log)
        : m_capture(capture), m_options(options), m_log(std::move(log)) {}
    ~CaptureWriter() { stop(); }

    void start() { m_thread = std::thread([this] { loop(); }); }

    // False (and nothing done) when the spans waiting to be committed are over the limit.
    bool submit(std::vector<RawSpan>&& spans, Done done) {
        std::lock_guard lock(m_mutex);
        if (m_pendingSpans > 0 && m_pendingSpans + spans.size() > m_options.maxPendingSpans) return false;
        m_pendingSpans += spans.size();
        m_queue.push_back({std::move(spans), std::move(done)});
        m_wake.notify_one();
        return true;
    }

    // Commits what is queued, stores every open trace, and ends the thread.
    void stop() {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
            m_wake.notify_one();
        }
        if (m_thread.joinable()) m_thread.join();
    }

    std::int64_t tracesStored() const { return m_stored.load(); }
    std::int64_t tracesStoredAgain() const { return m_storedAgain.load(); }

private:
    struct Job {
        std::vector<RawSpan> spans;
        Done done;
    };

    void report(const Result<CaptureProgress>& progress) {
        if (!progress) {
            m_log("cannot store traces: " + progress.message());
            return;
        }
        m_stored += progress->stored - progress->replaced;
        m_storedAgain += progress->replaced;
        for (const auto& p : progress->problems) m_log(p);
    }

    void loop() {
        // Quiet traces are looked for a few times per quiet time (at least every second).
        const auto tick = std::chrono::nanoseconds(
            std::clamp<TimeNs>(m_options.capture.quietNs / 4, 20'000'000, 1'000'000'000));
        auto nextCheck = std::chrono::steady_clock::now() + tick;
        for (;;) {
            std::deque<Job> jobs;
            bool stopping = false;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait_until(lock, nextCheck, [&] { return !m_queue.empty() || m_stopping; });
                jobs.swap(m_queue);
                stopping = m_stopping;
            }
            if (!jobs.empty()) {
                // Every request waiting is committed in one transaction (one sync for all of them).
                std::vector<RawSpan> all;
                std::size_t count = 0;
                for (auto& job : jobs) count += job.spans.size();
                all.reserve(count);
                for (auto& job : jobs) std::move(job.spans.begin(), job.spans.end(), std::back_inserter(all));
                const Status stored = m_capture.accept(all, steadyNow());
                if (!stored) m_log("cannot store received spans: " + stored.message());
                {
                    std::lock_guard lock(m_mutex);
                    m_pendingSpans -= count;
                }
                for (auto& job : jobs) job.done(stored);
            }
            if (std::chrono::steady_clock::now() >= nextCheck) {
                report(m_capture.completeQuiet(steadyNow()));
                nextCheck = std::chrono::steady_clock::now() + tick;
            }
            if (stopping) {
                std::lock_guard lock(m_mutex);
                if (m_queue.empty()) break;
            }
        }
        report(m_capture.completeAll());
    }

    LiveCapture& m_capture;
    const ReceiverOptions& m_options;
    ReceiverLog m_log;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Job> m_queue;
    std::size_t m_pendingSpans = 0;
    bool m_stopping = false;
    std::atomic<std::int64_t> m_stored{0}, m_storedAgain{0};
};

} // namespace tracelight
