#pragma once
// Help › Quick Start and Help › Keyboard Shortcuts: the tour of the bundled samples, and every key the
// window answers to. The shortcut list is read from the menus themselves, so it cannot fall behind them.
#include <QString>

class QMenuBar;
class QWidget;

namespace tracelight::app {

QString quickStartHtml();                       // the five-minute tour (resources/quickstart.html)
QString shortcutsHtml(const QMenuBar& menus);   // the menus' shortcuts, then the keys of the views
void showQuickStart(QWidget* parent);
void showShortcuts(QWidget* parent, const QMenuBar& menus);

} // namespace tracelight::app
