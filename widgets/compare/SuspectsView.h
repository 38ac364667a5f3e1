#pragma once
// The suspects of a comparison (docs/concepts/suspects.md) as a tree: one row per service, most likely first
// (its slowdown, the latency it explains, how sure), its evidence beneath (each changed hop or service's work:
// baseline → problem per request, the share of slow calls, on how many requests). Activating a row names its
// key, for the view around it to show (the profile diff searches its frames for it).
#include <QTreeWidget>
#include <vector>

#include "tracelight/compare/Suspects.h"

namespace tracelight::widgets {

class SuspectsView : public QTreeWidget {
    Q_OBJECT
public:
    explicit SuspectsView(QWidget* parent = nullptr);

    // none: what to say when there is no suspect (why, and what it means).
    void setSuspects(const std::vector<Suspect>& suspects, const QString& none);
    int suspectCount() const { return m_count; }

signals:
    void keyActivated(const QString& key);  // "currencyservice" (its work) or "frontend → currencyservice" (a hop)

private:
    int m_count = 0;
};

} // namespace tracelight::widgets
