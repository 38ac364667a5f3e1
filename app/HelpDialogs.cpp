#include "HelpDialogs.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QTextBrowser>
#include <QVBoxLayout>

// The app's resources live in a static library that the executable and the tests link, so they are
// registered by name before their first use (a static library's initialiser is otherwise dropped).
static void initTracelightResources() { Q_INIT_RESOURCE(tracelight); }

namespace tracelight::app {
namespace {

// Keys handled inside one view rather than by a menu action: (keys, what they do, where).
struct ViewKey {
    const char* keys;
    const char* action;
    const char* where;
};
constexpr ViewKey viewKeys[] = {
    {"Up / Down, Page Up / Page Down, Home / End", "move the selected request (Shift extends the selection)", "request table"},
    {"+ / - / 0 or F", "zoom in / out / fit", "waterfall and span tree"},
    {"Left / Right", "pan the time axis", "waterfall"},
    {"Wheel, Shift+wheel", "zoom around the mouse, scroll the lanes", "waterfall"},
    {"Esc", "clear the selected segment", "waterfall"},
    {"Up / Down, Page Up / Page Down, Home / End", "move the selected span", "span tree"},
    {"Left / Right", "fold a span (or go to its parent) / unfold it (or go to its first child)", "span tree"},
    {"Ctrl+wheel", "zoom the time axis", "span tree"},
    {"Backspace or Esc", "zoom the flame graph out to the parent frame", "profile"},
    {"Page Up / Page Down", "the previous / next burst window", "bursts"},
    {"Ctrl+Return", "compare the chosen periods", "compare"},
    {"Esc", "cancel the running import, analysis or study", "status bar"},
};

QString plainMenuText(QString text) {
    text.remove(QLatin1Char('&'));
    if (text.endsWith(QChar(0x2026))) text.chop(1);  // "Open…" reads "Open"
    return text;
}

void addMenuRows(const QMenu& menu, const QString& path, QString& rows) {
    for (const QAction* action : menu.actions()) {
        if (action->isSeparator()) continue;
        const QString name = path + QStringLiteral(" › ") + plainMenuText(action->text());
        if (const QMenu* sub = action->menu()) {
            addMenuRows(*sub, name, rows);
            continue;
        }
        const QList<QKeySequence> keys = action->shortcuts();
        if (keys.isEmpty()) continue;
        QStringList texts;
        for (const QKeySequence& key : keys) texts << key.toString(QKeySequence::NativeText).toHtmlEscaped();
        rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(texts.join(QStringLiteral(", ")), name.toHtmlEscaped());
    }
}

void showHtml(QWidget* parent, const QString& title, const QString& html, QSize size) {
    QDialog dialog(parent);
    dialog.setWindowTitle(title);
    auto* text = new QTextBrowser(&dialog);
    text->setOpenExternalLinks(true);
    text->setHtml(html);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(text);
    layout->addWidget(buttons);
    dialog.resize(size);
    dialog.exec();
}

} // namespace

QString quickStartHtml() {
    initTracelightResources();
    QFile file(QStringLiteral(":/tracelight/quickstart.html"));
    if (!file.open(QIODevice::ReadOnly)) return QObject::tr("The quick start is missing from this build.");
    return QString::fromUtf8(file.readAll());
}

QString shortcutsHtml(const QMenuBar& menus) {
    QString rows;
    for (const QAction* action : menus.actions())
        if (const QMenu* menu = action->menu()) addMenuRows(*menu, plainMenuText(menu->title()), rows);
    QString viewRows;
    for (const ViewKey& key : viewKeys)
        viewRows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td><td>%3</td></tr>")
                        .arg(QString::fromUtf8(key.keys).toHtmlEscaped(), QString::fromUtf8(key.action).toHtmlEscaped(),
                             QString::fromUtf8(key.where));
    return QObject::tr("<h3>Menu shortcuts</h3><table cellspacing='0' cellpadding='3'>%1</table>"
                       "<h3>Inside the views</h3><table cellspacing='0' cellpadding='3'>"
                       "<tr><th align='left'>Keys</th><th align='left'>Action</th><th align='left'>Where</th></tr>%2</table>")
        .arg(rows, viewRows);
}

void showQuickStart(QWidget* parent) { showHtml(parent, QObject::tr("Quick Start"), quickStartHtml(), QSize(720, 640)); }

void showShortcuts(QWidget* parent, const QMenuBar& menus) {
    showHtml(parent, QObject::tr("Keyboard Shortcuts"), shortcutsHtml(menus), QSize(720, 640));
}

} // namespace tracelight::app
