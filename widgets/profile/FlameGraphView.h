#pragma once
// A flame graph of an average critical-path profile (core's ProfileSet, one group): the root is the mean
// latency, each frame as wide as its mean critical time per request, widest first; as an icicle (root on
// top, children below) or a flame (root at the bottom, children above). Click zooms into a frame (Backspace or the breadcrumb's first part goes back out); a search
// highlights matching frames and says what share of the total they hold; frames under a pixel are not
// drawn and labels are shortened to what fits. Colours by service (span data) or by category.
#include <QWidget>
#include <memory>

#include "tracelight/profile/Profile.h"

namespace tracelight::widgets {

class FlameGraphView : public QWidget {
    Q_OBJECT
public:
    explicit FlameGraphView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const ProfileSet> profile, std::size_t group = 0);
    // A diff of two groups of one profile: widths from the larger of the two, colour the signed change of
    // the frame's total (red slower, blue faster) where core found it significant, grey elsewhere.
    void setDiff(std::shared_ptr<const ProfileSet> profile, std::size_t base, std::size_t target, const ProfileDiff& diff);
    bool isDiff() const { return m_diffTarget >= 0; }
    void setSearch(const QString& text);
    enum class Orientation { Icicle, Flame };
    void setOrientation(Orientation orientation);
    Orientation orientation() const { return m_orientation; }
    void zoomTo(int frame);  // -1: the whole profile
    int zoomedFrame() const { return m_zoom; }
    QString breadcrumb() const;       // "all › frontend:… › …"
    double matchedShare() const;      // of the mean latency, frames matching the search (not nested twice)
    int frameAt(QPoint pos) const;    // -1 outside any frame
    QSize sizeHint() const override { return {900, 400}; }

signals:
    void zoomChanged();
    void frameMenuRequested(int frame, QPoint globalPos);  // right-click on a frame (-2: on "all")

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;  // tooltips

private:
    struct Box {
        int frame;
        double x0, x1;  // in [0, 1] of the zoomed width
        int depth;
    };
    void assign(std::shared_ptr<const ProfileSet> profile, std::size_t group);
    void layout();
    double total(int frame) const;
    int rowTop(int depth) const;  // y of a row: from the top (icicle) or from the bottom (flame)

    std::shared_ptr<const ProfileSet> m_profile;
    std::size_t m_group = 0;
    int m_diffTarget = -1;                    // the target group in diff mode (m_group is the base)
    std::vector<const FrameChange*> m_change;  // by frame, in diff mode
    ProfileDiff m_diff;
    std::vector<std::vector<int>> m_children;  // by frame; index frames.size() holds the roots
    std::vector<Box> m_boxes;
    int m_zoom = -1;
    QString m_search;
    Orientation m_orientation = Orientation::Icicle;
    static constexpr int kRow = 20;
};

} // namespace tracelight::widgets
