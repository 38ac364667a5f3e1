#pragma once
// Runs work off the GUI thread and hands its result back on the GUI thread. A result whose job was
// superseded by a newer one (or cancelled) is dropped, so views never show stale data.
#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>
#include <functional>
#include <memory>

#include "common/QtText.h"
#include "tracelight/base/Progress.h"

namespace tracelight::widgets {

class JobRunner : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // work runs on a pool thread with a cancel token and a progress sink; done runs on this object's thread.
    template <typename T>
    void start(std::function<T(const CancelToken&, const ProgressSink&)> work, std::function<void(T)> done) {
        cancel();
        const quint64 id = ++m_jobId;
        auto token = std::make_shared<CancelToken>();
        m_cancel = token;
        QPointer<JobRunner> self(this);
        ProgressSink progress = [self, id](double fraction, std::string_view stage) {
            const QString text = qtext(stage);
            QMetaObject::invokeMethod(self, [self, id, fraction, text] {
                if (self && self->m_jobId == id) emit self->progress(fraction, text);
            }, Qt::QueuedConnection);
        };
        auto* watcher = new QFutureWatcher<T>(this);
        connect(watcher, &QFutureWatcher<T>::finished, this, [this, watcher, id, token, done] {
            watcher->deleteLater();
            if (id != m_jobId || token->isCancelled()) return;  // superseded or cancelled
            m_cancel.reset();
            emit finished();
            done(watcher->result());
        });
        emit started();
        watcher->setFuture(QtConcurrent::run([work, token, progress] { return work(*token, progress); }));
    }

    void cancel() {
        if (m_cancel) {
            ++m_jobId;  // its late progress and result are dropped too (a stage such as "writing results" must not outlive it)
            m_cancel->cancel();
            m_cancel.reset();
            emit finished();
        }
    }
    bool isRunning() const { return m_cancel != nullptr; }

signals:
    void started();
    void progress(double fraction, const QString& stage);
    void finished();

private:
    quint64 m_jobId = 0;
    std::shared_ptr<CancelToken> m_cancel;
};

} // namespace tracelight::widgets
