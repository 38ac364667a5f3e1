#include "Session.h"

#include <algorithm>

#include "CaptureRun.h"
#include "common/JobRunner.h"

namespace tracelight::app {

Session::Session(QObject* parent) : QObject(parent) {
    for (auto& lane : m_jobs) {
        lane = new widgets::JobRunner(this);
        connect(lane, &widgets::JobRunner::finished, this, &Session::jobFinished, Qt::QueuedConnection);
    }
}

Session::~Session() {
    stopCapture();
    for (auto* lane : m_jobs) lane->cancel();
}

bool Session::isRunning(Job lane) const { return job(lane).isRunning(); }

bool Session::isBusy() const {
    return std::any_of(m_jobs.begin(), m_jobs.end(), [](const widgets::JobRunner* lane) { return lane->isRunning(); });
}

void Session::cancelDatabaseWork() {
    for (std::size_t i = 0; i < kJobs; ++i)
        if (static_cast<Job>(i) != Job::Import) m_jobs[i]->cancel();
}

Status Session::open(const QString& path) {
    const std::string file = path.toStdString();
    auto store = TraceStore::open(file, TraceStore::Mode::ReadOnly);
    if (!store) {
        // The schema may only need upgrading, which a read-write open does.
        if (!TraceStore::open(file, TraceStore::Mode::ReadWrite)) return store.status();
        store = TraceStore::open(file, TraceStore::Mode::ReadOnly);
        if (!store) return store.status();
    }
    cancelDatabaseWork();
    if (m_capture && m_capture->database() != file) stopCapture();
    m_store = std::move(store.value());
    m_path = path;
    m_scope = {};  // the new table's filter sets it again
    emit opened(path);
    return Status::ok();
}

void Session::close() {
    stopCapture();
    cancelDatabaseWork();
    m_store.reset();
    m_path.clear();
    m_scope = {};
}

widgets::StoreSource Session::reader() const {
    if (m_path.isEmpty()) return {};
    return [file = m_path.toStdString()] { return TraceStore::open(file, TraceStore::Mode::ReadOnly); };
}

widgets::StoreSource Session::analysisWriter() const {
    if (m_path.isEmpty()) return {};
    return [file = m_path.toStdString()] { return TraceStore::open(file, TraceStore::Mode::ReadWrite, TraceStore::WriteCheck::InBackground); };
}

Status Session::write(const std::function<Status(TraceStore&)>& save) const {
    if (m_path.isEmpty()) return Status::error("no database is open");
    auto writable = TraceStore::open(m_path.toStdString(), TraceStore::Mode::ReadWrite);
    return writable ? save(*writable.value()) : writable.status();
}

widgets::StoreSource Session::creator(const QString& path) {
    return [file = path.toStdString()] { return TraceStore::open(file, TraceStore::Mode::Create); };
}

bool Session::setScope(widgets::RequestScope scope) {
    const bool same = scope.ids ? (m_scope.ids && *m_scope.ids == *scope.ids) : !m_scope.ids;
    m_scope.text = std::move(scope.text);
    if (!same) m_scope.ids = std::move(scope.ids);
    return !same;
}

} // namespace tracelight::app

namespace tracelight::app {

Status Session::startCapture(ReceiverOptions options) {
    if (m_path.isEmpty()) return Status::error("no database is open to capture into");
    stopCapture();
    auto run = CaptureRun::start(m_path.toStdString(), std::move(options));
    if (!run) return run.status();
    m_capture = std::move(run.value());
    return Status::ok();
}

Status Session::stopCapture() {
    if (!m_capture) return Status::ok();
    const Status verdict = m_capture->stop();
    m_capture.reset();
    return verdict;
}

} // namespace tracelight::app
