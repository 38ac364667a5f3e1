#include "CaptureRun.h"

#include <utility>

#include "tracelight/base/UtcNow.h"

namespace tracelight::app {

Result<std::unique_ptr<CaptureRun>> CaptureRun::start(const std::string& database, ReceiverOptions options) {
    auto store = TraceStore::open(database, TraceStore::Mode::Create);
    if (!store) return store.status();
    if (options.capture.period.empty()) options.capture.period = "capture-" + utcNow();  // as tracelight-cli serve names it
    std::unique_ptr<CaptureRun> run(new CaptureRun);
    run->m_database = database;
    run->m_period = options.capture.period;
    run->m_store = std::move(store.value());
    auto receiver = OtlpReceiver::start(*run->m_store, std::move(options), [raw = run.get()](const std::string& line) {
        const std::lock_guard lock(raw->m_logMutex);
        if (raw->m_log.size() < 1000) raw->m_log.push_back(line);  // bounded: the window takes them every second
    });
    if (!receiver) return receiver.status();
    run->m_receiver = std::move(receiver.value());
    run->m_thread = std::thread([raw = run.get()] { raw->m_verdict = raw->m_receiver->run(); });
    return run;
}

CaptureRun::~CaptureRun() { stop(); }

Status CaptureRun::stop() {
    if (m_thread.joinable()) {
        m_receiver->stop();
        m_thread.join();
    }
    return m_verdict;
}

std::vector<std::string> CaptureRun::takeLog() {
    const std::lock_guard lock(m_logMutex);
    return std::exchange(m_log, {});
}

} // namespace tracelight::app
