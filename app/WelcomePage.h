#pragma once
// What the window shows before a database is open: the three ways in (open a database or a trace file, import
// traces into a new database, open the bundled sample), instead of an empty table and "Select a request".
#include <QString>
#include <QWidget>

class QPushButton;

namespace tracelight::app {

class WelcomePage : public QWidget {
    Q_OBJECT
public:
    // sample: the bundled sample database's path; "" when this build has none (the button is hidden).
    explicit WelcomePage(const QString& sample, QWidget* parent = nullptr);
    QPushButton* openButton() const { return m_open; }
    QPushButton* importButton() const { return m_import; }
    QPushButton* sampleButton() const { return m_sample; }

signals:
    void openRequested();
    void importRequested();
    void sampleRequested();

private:
    QPushButton* m_open;
    QPushButton* m_import;
    QPushButton* m_sample;
};

// The sample database built beside this program (samples/pageload.tldb of the build), or "".
QString bundledSamplePath();

} // namespace tracelight::app
