#pragma once
// A live capture for File › Capture: the OTLP/HTTP receiver (core/capture) on a write connection and a thread
// of its own, storing into the database the window has open, which reads what arrives through its own
// connections (SQLite's WAL lets the readers go on while the receiver commits).
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tracelight/base/Status.h"
#include "tracelight/capture/OtlpReceiver.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::app {

class CaptureRun {
public:
    // Opens the database for writing (creating it when missing), binds the address and starts receiving.
    static Result<std::unique_ptr<CaptureRun>> start(const std::string& database, ReceiverOptions options);
    // Stops as stop() does.
    ~CaptureRun();
    CaptureRun(const CaptureRun&) = delete;
    CaptureRun& operator=(const CaptureRun&) = delete;

    // No new connections; the requests in flight answered, every acknowledged span committed and every open
    // trace stored. The receiver's verdict (ok, or why it stopped early).
    Status stop();

    const std::string& database() const { return m_database; }
    const std::string& period() const { return m_period; }
    std::string endpoint() const { return m_receiver->httpEndpoint(); }  // "127.0.0.1:4318"
    std::string grpcEndpoint() const { return m_receiver->grpcEndpoint(); }  // "" without OTLP/gRPC
    OtlpReceiver::Counts counts() const { return m_receiver->counts(); }
    // The receiver's lines for the operator since the last call (a trace that could not be stored, ...).
    std::vector<std::string> takeLog();

private:
    CaptureRun() = default;

    std::string m_database, m_period;
    std::unique_ptr<TraceStore> m_store;
    std::unique_ptr<OtlpReceiver> m_receiver;
    std::thread m_thread;
    Status m_verdict = Status::ok();
    std::mutex m_logMutex;
    std::vector<std::string> m_log;
};

} // namespace tracelight::app
