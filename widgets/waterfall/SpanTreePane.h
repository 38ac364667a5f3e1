#pragma once
// The waterfall tab: the host lanes (WaterfallView) or, for a request imported from spans, the span tree
// with the selected span's detail below it (the default). The choice is remembered (QSettings "waterfall/mode"); an
// event-log request has no spans, so it keeps the host lanes and the toggle says why.
#include <QWidget>
#include <memory>

#include "waterfall/SpanTreeView.h"
#include "common/StoreSource.h"

class QLabel;
class QSplitter;
class QStackedWidget;
class QToolButton;

namespace tracelight {
class CancelToken;
class TraceStore;
struct RequestDetail;
}

namespace tracelight::widgets {

class SpanDetailPanel;

// A span request's tree as the view shows it: its spans, self and critical time from core
// (spanCriticalPath over the request's detail), and each span's host clock offset from the last analysis.
// Null for an event-log request (or a database from before the store kept spans). Runs on a worker.
// Cancelled: null. With `records`, a span's whole record is read through it when first shown.
std::shared_ptr<const SpanTreeData> loadSpanTree(const TraceStore& store, const RequestDetail& detail, const CancelToken* cancel = nullptr,
                                                 StoreSource records = {});
class WaterfallView;

class SpanTreePane : public QWidget {
    Q_OBJECT
public:
    enum class Mode { HostLanes, SpanTree };
    // Takes the host-lane view as its first page.
    explicit SpanTreePane(WaterfallView* lanes, QWidget* parent = nullptr);

    // The request's spans; null or empty for an event-log request (the span tree is then unavailable).
    void setSpans(std::shared_ptr<const SpanTreeData> data);
    // The shown request has spans, not read yet: a million spans take seconds and most of a gigabyte, so
    // they are read only when the span tree is asked for (now, if it is the remembered mode): spansWanted
    // says so, and the pane shows the host lanes meanwhile, pending, until setSpans.
    void setSpansOnDemand();
    // The shown request's spans are being read; the host lanes show meanwhile and the toggle says so.
    void setSpansPending();
    // The shown request has spans but they could not be read (the file changed or is damaged): the host
    // lanes show and the span tree's note gives `why` instead of calling the request an event log.
    void setSpansUnreadable(const QString& why);
    bool spansPending() const { return m_state == Spans::Pending; }
    bool spansAvailable() const;  // read and not empty: the tree can show them
    bool spansOnDemand() const { return m_state == Spans::OnDemand; }
    // The mode asked for (remembered) and the one shown (host lanes whenever there are no spans).
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    Mode shownMode() const;
    QString unavailableReason() const;  // why the span tree is not shown; empty when it can be
    void setLocalClocks(bool local);

    // Zoom and fit act on the page shown.
    void zoom(double factor);
    void fit();

    SpanTreeView* spanTree() const { return m_tree; }
    SpanDetailPanel* detailPanel() const { return m_detail; }
    QToolButton* toggleButton() const { return m_toggle; }
    QString noteText() const;  // the line beside the toggle

signals:
    void modeChanged(Mode shown);
    void spansWanted();  // the span tree is asked for and the shown request's spans are not read yet

private:
    void updatePage();
    void readIfWanted();
    enum class Spans { None, OnDemand, Pending, Read, Unreadable };
    Spans m_state = Spans::None;
    QString m_unreadable;  // why, when Unreadable

    WaterfallView* m_lanes = nullptr;
    SpanTreeView* m_tree = nullptr;
    SpanDetailPanel* m_detail = nullptr;
    QSplitter* m_treeSplit = nullptr;
    QStackedWidget* m_stack = nullptr;
    QToolButton* m_toggle = nullptr;
    QLabel* m_note = nullptr;
    Mode m_mode = Mode::HostLanes;
};

} // namespace tracelight::widgets
