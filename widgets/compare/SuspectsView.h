#pragma once
// The suspects of a comparison (docs/concepts/suspects.md) as a tree: one row per service, most likely first
// (its slowdown, the latency it explains, how sure), its evidence beneath (each changed hop or service's work:
// baseline → problem per request, the share of slow calls, on how many requests). Activating a row names its
// key, for the view around it to show (the profile diff searches its frames for it); its right-click menu
// opens the problem requests that spent the most time in it.
#include <QTreeWidget>
#include <functional>
#include <memory>
#include <vector>

#include "tracelight/compare/Suspects.h"

class QMenu;

namespace tracelight::widgets {

class SuspectsView : public QTreeWidget {
    Q_OBJECT
public:
    explicit SuspectsView(QWidget* parent = nullptr);

    // none: what to say when there is no suspect (why, and what it means).
    void setSuspects(const std::vector<Suspect>& suspects, const QString& none);
    int suspectCount() const { return m_count; }
    void setRequestNamer(std::function<QString(RequestId)> namer) { m_namer = std::move(namer); }
    // The menu of a row: its evidence's example requests to open (null for a row without any).
    std::unique_ptr<QMenu> requestMenu(QTreeWidgetItem* item);

signals:
    void keyActivated(const QString& key);  // "currencyservice" (its work) or "frontend → currencyservice" (a hop)
    void requestActivated(RequestId id);

protected:
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    int m_count = 0;
    std::function<QString(RequestId)> m_namer;
};

} // namespace tracelight::widgets
