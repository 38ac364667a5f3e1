#pragma once
// The main window: one trace database at a time, its requests in a sortable table.
#include <QMainWindow>
#include <memory>

#include "tracelight/TraceStore.h"

class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTableView;

namespace tracelight::widgets {
class JobRunner;
class RequestTableModel;
} // namespace tracelight::widgets

namespace tracelight::app {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a database; on failure shows the error and keeps the current one. Loading continues in the background.
    bool openDatabase(const QString& path);
    bool isLoading() const;

signals:
    void loaded();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void updateStatus();

    std::unique_ptr<TraceStore> m_store;  // the GUI thread's own connection
    QString m_path;
    widgets::RequestTableModel* m_model = nullptr;
    widgets::JobRunner* m_jobs = nullptr;
    QTableView* m_table = nullptr;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_statusText = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
};

} // namespace tracelight::app
