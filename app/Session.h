#pragma once
// The session: the one owner of the open trace database. The window, its tabs and its dialogs read and write
// it through here — the GUI thread's connection, a source of connections for background work, a write
// connection for a save — and nothing else in the app opens it by path (heaptrack's and hotspot's one model
// that the views draw). The scope (the requests the table lists) is the session's too: every view that covers
// it reads it from here. So are the background jobs, one lane each: a new job in a lane supersedes the last,
// and opening another database cancels every lane's work on the last one.
#include <QObject>
#include <QString>
#include <array>
#include <functional>
#include <memory>

#include "common/RequestScope.h"
#include "common/StoreSource.h"
#include "tracelight/base/Status.h"
#include "tracelight/capture/OtlpReceiver.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::widgets {
class JobRunner;
}

namespace tracelight::app {

class CaptureRun;

class Session : public QObject {
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);
    ~Session() override;

    // Opens a database (upgrading an older schema, which needs a write); on failure the one open stays open.
    // A live capture into another database stops first.
    Status open(const QString& path);
    void close();  // lets go of the database (before its file is replaced), stopping a live capture into it
    bool isOpen() const { return static_cast<bool>(m_store); }
    const QString& path() const { return m_path; }
    // The GUI thread's connection; shared with the readers that must not outlive it. Null when none is open.
    const std::shared_ptr<TraceStore>& store() const { return m_store; }

    // Connections of their own for background work, on any thread: for reading, and for the analysis, which
    // writes (checked while it reads, nothing written before the check passed).
    widgets::StoreSource reader() const;
    widgets::StoreSource analysisWriter() const;
    // A write on the GUI thread (a period defined, a rule saved), through a connection held as long as it takes.
    Status write(const std::function<Status(TraceStore&)>& save) const;
    // A new database for an import (created when missing), which becomes the session's once opened.
    static widgets::StoreSource creator(const QString& path);

    const widgets::RequestScope& scope() const { return m_scope; }
    // The requests the table lists now; true when they (not only their description) changed.
    bool setScope(widgets::RequestScope scope);

    // The background jobs' lanes: the database's loading and analysis, an import, a trace file read into memory
    // (shown while its own database is made), and what each view shows.
    enum class Job {
        Requests, Analysis, Import, TraceFile, Aggregates, Model, Detail, Context, Dependencies, SpanTree, Scope, ServiceMap,
        Breakdown, Outliers, SlackStudies, AttributeValues, SlackCategory, Compare, CompareGraphs, CompareLanes, CompareTree, CompareOverTime,
        Profile, ProfileAaTable, Bottlenecks, Bursts, BurstTimelines,
    };
    static constexpr std::size_t kJobs = static_cast<std::size_t>(Job::BurstTimelines) + 1;
    widgets::JobRunner& job(Job lane) const { return *m_jobs[static_cast<std::size_t>(lane)]; }
    bool isRunning(Job lane) const;
    bool isBusy() const;  // any lane
    // Every lane's work on the open database; an import, which makes a database of its own, goes on.
    void cancelDatabaseWork();

    // A live capture (File › Capture) into the open database: spans sent to the receiver's address are stored
    // there while the window reads it. One at a time; the last one stops first.
    Status startCapture(ReceiverOptions options);
    // Stops it: requests in flight answered, every open trace stored. Its verdict (ok when none ran).
    Status stopCapture();
    CaptureRun* capture() const { return m_capture.get(); }  // null when not capturing

signals:
    void opened(const QString& path);
    void jobFinished();  // a lane's job finished or was cancelled (queued: its result has been handed over)

private:
    std::shared_ptr<TraceStore> m_store;
    QString m_path;
    widgets::RequestScope m_scope;
    std::array<widgets::JobRunner*, kJobs> m_jobs{};
    std::unique_ptr<CaptureRun> m_capture;
};

} // namespace tracelight::app
