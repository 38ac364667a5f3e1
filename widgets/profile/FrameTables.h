#pragma once
// The tables beside the flame graph, drawn from core's ProfileTables: the sortable top frames (each frame
// name's self and total time over every stack it is in) and the sandwich of one name (its callers above,
// its callees below, with the time that passes through each).
#include <QTableWidget>
#include <QWidget>
#include <memory>

#include "tracelight/profile/Profile.h"

class QLabel;

namespace tracelight::widgets {

class TopFramesTable : public QTableWidget {
    Q_OBJECT
public:
    explicit TopFramesTable(QWidget* parent = nullptr);
    void setProfile(std::shared_ptr<const ProfileSet> profile, std::size_t group);

signals:
    void nameActivated(const QString& name);  // double-click or Enter on a row
};

class SandwichView : public QWidget {
    Q_OBJECT
public:
    explicit SandwichView(QWidget* parent = nullptr);
    void setProfile(std::shared_ptr<const ProfileSet> profile, std::size_t group);
    void setName(const QString& name);  // the frame name in the middle
    QString name() const { return m_name; }
    QTableWidget* callers() const { return m_callers; }
    QTableWidget* callees() const { return m_callees; }

signals:
    void nameActivated(const QString& name);  // a caller or callee chosen: it becomes the middle

private:
    void refresh();

    std::shared_ptr<const ProfileSet> m_profile;
    std::size_t m_group = 0;
    QString m_name;
    QLabel* m_middle = nullptr;
    QTableWidget* m_callers = nullptr;
    QTableWidget* m_callees = nullptr;
};

} // namespace tracelight::widgets
