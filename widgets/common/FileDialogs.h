#pragma once
// The app's file dialogs. Qt's own dialog, with an icon provider that names a file's type by its suffix and
// never opens it: a dialog that sniffs contents opens and closes the open database's files (the .tldb, its
// -wal and -shm when they are listed), and closing any descriptor of a file drops every POSIX lock this
// process holds on it — SQLite's locks among them. Another process (tracelight-cli, a second window) could
// then take the database for its own, rewrite the WAL index under this one and crash it (SIGBUS) or
// corrupt it (sqlite.org/howtocorrupt.html, 2.2). A native dialog cannot be told not to look inside.
#include <QString>
#include <QStringList>

class QFileDialog;
class QWidget;

namespace tracelight::widgets {

// A dialog not yet shown (the choose* functions run one); the caller owns it.
QFileDialog* newFileDialog(QWidget* parent, const QString& caption, const QString& path, const QString& filter);

QString chooseFileToOpen(QWidget* parent, const QString& caption, const QString& folder, const QString& filter);
QStringList chooseFilesToOpen(QWidget* parent, const QString& caption, const QString& folder, const QString& filter);
QString chooseFileToSave(QWidget* parent, const QString& caption, const QString& suggested, const QString& filter);

} // namespace tracelight::widgets
