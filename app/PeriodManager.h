#pragma once
// Analysis › Periods…: the database's periods (import batches and defined ones) with their sizes and
// definitions; define one by a time range or an attribute predicate, rename or delete one. Each change is
// its own write to the database (as `tracelight-cli period` does), through the session; the window reloads
// after the dialog closes when anything changed.
#include <QDialog>

class QDateTimeEdit;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace tracelight {

namespace app {
class Session;
}

class PeriodManager : public QDialog {
    Q_OBJECT
public:
    explicit PeriodManager(const app::Session& session, QWidget* parent = nullptr);
    bool changed() const { return m_changed; }
    QTableWidget* table() const { return m_table; }
    // The actions behind the buttons, callable without the dialogs that ask for their arguments (tests).
    bool addByTime(const QString& name, const QDateTime& from, const QDateTime& to);
    bool addWhere(const QString& name, const QString& predicate);
    bool rename(const QString& from, const QString& to);
    bool remove(const QString& name);
    QString lastMessage() const;

private:
    void refresh();
    QString selectedName() const;
    bool report(const QString& what, const QString& error);  // false with the error shown, true otherwise

    const app::Session& m_session;
    QTableWidget* m_table = nullptr;
    QLabel* m_message = nullptr;
    QLineEdit* m_name = nullptr;
    QLineEdit* m_where = nullptr;
    QDateTimeEdit* m_from = nullptr;
    QDateTimeEdit* m_to = nullptr;
    bool m_changed = false;
};

} // namespace tracelight
