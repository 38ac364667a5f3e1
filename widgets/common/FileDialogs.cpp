#include "common/FileDialogs.h"

#include <QAbstractFileIconProvider>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QPointer>
#include <QStyle>

namespace tracelight::widgets {

namespace {

// Icons and type names from the file's name and kind alone (stat, never open).
class NameOnlyIconProvider : public QAbstractFileIconProvider {
public:
    QIcon icon(IconType type) const override {
        return QApplication::style()->standardIcon(type == Folder ? QStyle::SP_DirIcon : QStyle::SP_FileIcon);
    }
    QIcon icon(const QFileInfo& info) const override { return icon(info.isDir() ? Folder : File); }
    QString type(const QFileInfo& info) const override {
        if (info.isDir()) return QObject::tr("Folder");
        const QString suffix = info.suffix();
        return suffix.isEmpty() ? QObject::tr("File") : QObject::tr("%1 File").arg(suffix.toUpper());
    }
};

QStringList run(QFileDialog* dialog) {
    // Its parent may go while it runs (the app quits): then the dialog has gone with it.
    const QPointer<QFileDialog> guard(dialog);
    const bool accepted = dialog->exec() == QDialog::Accepted;
    const QStringList chosen = guard && accepted ? guard->selectedFiles() : QStringList();
    delete guard.data();
    return chosen;
}

} // namespace

QFileDialog* newFileDialog(QWidget* parent, const QString& caption, const QString& path, const QString& filter) {
    static NameOnlyIconProvider provider;
    auto* dialog = new QFileDialog(parent, caption, path, filter);
    dialog->setOption(QFileDialog::DontUseNativeDialog);
    dialog->setOption(QFileDialog::DontUseCustomDirectoryIcons);
    dialog->setIconProvider(&provider);
    return dialog;
}

QString chooseFileToOpen(QWidget* parent, const QString& caption, const QString& folder, const QString& filter) {
    QFileDialog* dialog = newFileDialog(parent, caption, folder, filter);
    dialog->setFileMode(QFileDialog::ExistingFile);
    const QStringList chosen = run(dialog);
    return chosen.isEmpty() ? QString() : chosen.first();
}

QStringList chooseFilesToOpen(QWidget* parent, const QString& caption, const QString& folder, const QString& filter) {
    QFileDialog* dialog = newFileDialog(parent, caption, folder, filter);
    dialog->setFileMode(QFileDialog::ExistingFiles);
    return run(dialog);
}

QString chooseFileToSave(QWidget* parent, const QString& caption, const QString& suggested, const QString& filter) {
    QFileDialog* dialog = newFileDialog(parent, caption, suggested, filter);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setFileMode(QFileDialog::AnyFile);
    const QStringList chosen = run(dialog);
    return chosen.isEmpty() ? QString() : chosen.first();
}

} // namespace tracelight::widgets
