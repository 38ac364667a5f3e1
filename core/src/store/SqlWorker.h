#pragma once
// One connection's writes run on a thread of their own, in the order given, while the caller goes on
// parsing and interning: an import does both halves on two cores instead of one after the other (SQLite
// was about half of an event-log import even with rows batched).
//
// The connection is opened without SQLite's own mutex, so it must never be used by two threads at once:
// while the thread runs, the caller touches the connection only after drain() (which waits for every job
// posted so far) and before its next post(). Until start() (and its first few jobs) and after stop(),
// jobs run at once on the caller's thread, so the same code path serves both.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tracelight/base/Status.h"

namespace tracelight {

class SqlWorker {
public:
    using Job = std::function<Status()>;

    SqlWorker() = default;
    ~SqlWorker() { stop(); }
    SqlWorker(const SqlWorker&) = delete;
    SqlWorker& operator=(const SqlWorker&) = delete;

    // From the kRunInlineFirst-th job on, jobs run on the thread: a small import (the app's, the fuzz
    // targets') never waits for a thread to start or to wake.
    void start() { m_wanted = true; }

    // Waits for every job posted, ends the thread; later jobs run on the caller's thread. The first failure.
    Status stop() {
        m_wanted = false;
        m_inlineJobs = 0;
        if (m_thread.joinable()) {
            handOver();
            {
                std::lock_guard lock(m_mutex);
                m_quit = true;
            }
            m_wake.notify_one();
            m_thread.join();
        }
        return m_failure;
    }

    // Whether jobs may wait: started, even if its first jobs still run at once.
    bool running() const { return m_wanted; }

    // Runs job after every job posted before it. Returns the first failure of any job so far: after one,
    // nothing more runs (the caller rolls the transaction back). Jobs are handed over a few at a time (one
    // wake-up of the thread per kHandOver jobs, not per job); the caller blocks while many wait, so that
    // memory stays bounded when the writes are the slower half.
    Status post(Job job) {
        if (!m_thread.joinable() && m_wanted && m_failure && ++m_inlineJobs >= kRunInlineFirst) {
            m_quit = false;
            m_thread = std::thread([this] { run(); });
        }
        if (!m_thread.joinable()) {
            if (m_failure) m_failure = job();
            return m_failure;
        }
        m_outbox.push_back(std::move(job));
        if (m_outbox.size() < kHandOver) return Status::ok();
        return handOver();
    }

    // Drops the jobs not begun and waits for the one running: for a caller about to roll everything back.
    void discard() {
        m_outbox.clear();
        if (!m_thread.joinable()) return;
        std::unique_lock lock(m_mutex);
        m_jobs.clear();
        m_idle.wait(lock, [&] { return !m_busy; });
        m_space.notify_all();
    }

    // Waits until every job posted has run: the connection is the caller's until its next post().
    Status drain() {
        if (!m_thread.joinable()) return m_failure;
        handOver();
        std::unique_lock lock(m_mutex);
        m_idle.wait(lock, [&] { return m_jobs.empty() && !m_busy; });
        return m_failure;
    }

private:
    Status handOver() {
        if (m_outbox.empty()) return Status::ok();
        std::unique_lock lock(m_mutex);
        m_space.wait(lock, [&] { return m_jobs.size() < kMaxWaiting || !m_failure; });
        if (!m_failure) {
            m_outbox.clear();
            return m_failure;
        }
        for (Job& job : m_outbox) m_jobs.push_back(std::move(job));
        m_outbox.clear();
        lock.unlock();
        m_wake.notify_one();
        return Status::ok();
    }

    void run() {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return !m_jobs.empty() || m_quit; });
            if (m_jobs.empty()) return;  // quit, with nothing left
            Job job = std::move(m_jobs.front());
            m_jobs.pop_front();
            m_busy = true;
            const bool failed = !m_failure;
            // A caller waiting for room is woken once half the queue is free, not after every job.
            const bool roomy = m_jobs.size() <= kMaxWaiting / 2;
            lock.unlock();
            if (roomy) m_space.notify_one();
            Status s = Status::ok();
            if (!failed) {
                try {
                    s = job();
                } catch (const std::exception& e) {  // out of memory, say: the import fails instead of the process
                    s = Status::error(std::string("cannot store: ") + e.what());
                }
            }
            job = nullptr;  // what it held is freed here, off the caller's thread
            lock.lock();
            if (!s && m_failure) m_failure = std::move(s);
            m_busy = false;
            if (m_jobs.empty()) m_idle.notify_all();
            if (!m_failure) m_space.notify_all();  // a caller waiting for room gets the failure
        }
    }

    static constexpr std::size_t kHandOver = 64, kMaxWaiting = 1024, kRunInlineFirst = 64;
    bool m_wanted = false;         // start() was called, stop() not since
    std::size_t m_inlineJobs = 0;  // jobs run at once since start()
    std::vector<Job> m_outbox;  // the caller's, not yet handed over
    std::mutex m_mutex;
    std::condition_variable m_wake, m_space, m_idle;
    std::deque<Job> m_jobs;
    bool m_busy = false;
    bool m_quit = false;
    Status m_failure = Status::ok();
    std::thread m_thread;
};

} // namespace tracelight
