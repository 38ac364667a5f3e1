#pragma once
// Long work takes a cancel token and reports progress through a sink; both are optional.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
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

// Progress of a pass sharded by request: each shard calls step() per request with its index within the
// shard; every 16,384 requests of a shard the requests done by all shards are reported (thread-safe).
class ShardedProgress {
public:
    ShardedProgress(const ProgressSink* sink, std::size_t total, std::string_view stage)
        : m_reporter(sink), m_total(total), m_stage(stage) {}

    void step(std::size_t indexInShard) {
        if ((indexInShard & 0x3FFF) != 0x3FFF) return;
        const std::size_t done = m_done.fetch_add(0x4000) + 0x4000;
        std::lock_guard lock(m_mutex);
        m_reporter.report(double(done) / double(m_total > 0 ? m_total : 1), m_stage);
    }

private:
    ThrottledProgress m_reporter;
    std::size_t m_total;
    std::string_view m_stage;
    std::atomic<std::size_t> m_done{0};
    std::mutex m_mutex;
};

} // namespace tracelight
