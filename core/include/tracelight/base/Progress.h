#pragma once
// Long work takes a cancel token and reports progress through a sink; both are optional.
#include <atomic>
#include <chrono>
#include <functional>
#include <string_view>

namespace tracelight {

class CancelToken {
public:
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return m_cancelled.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled{false};
};

// fraction in [0, 1]; stage names what is being done ("reading events.csv").
using ProgressSink = std::function<void(double fraction, std::string_view stage)>;

// Forwards at most ~20 updates a second, so a hot loop can report every item without flooding a GUI.
class ThrottledProgress {
public:
    explicit ThrottledProgress(const ProgressSink* sink) : m_sink(sink) {}

    void report(double fraction, std::string_view stage, bool force = false) {
        if (!m_sink || !*m_sink) return;
        const auto now = std::chrono::steady_clock::now();
        if (!force && now - m_last < std::chrono::milliseconds(50)) return;
        m_last = now;
        (*m_sink)(fraction, stage);
    }

private:
    const ProgressSink* m_sink;
    std::chrono::steady_clock::time_point m_last{};
};

} // namespace tracelight
