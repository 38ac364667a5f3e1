#include "common/HoverText.h"

#include <QComboBox>
#include <QEvent>
#include <QHelpEvent>
#include <QToolTip>
#include <QWidget>

namespace tracelight::widgets {

namespace {
class HoverTextFilter : public QObject {
public:
    HoverTextFilter(QWidget* target, std::function<QString(const QPoint&)> textAt) : QObject(target), m_textAt(std::move(textAt)) {}

    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() != QEvent::ToolTip) return false;
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = m_textAt(help->pos());
        if (text.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), text, static_cast<QWidget*>(watched));
        return true;
    }

private:
    std::function<QString(const QPoint&)> m_textAt;
};
} // namespace

void attachHoverText(QWidget* target, std::function<QString(const QPoint&)> textAt) {
    target->installEventFilter(new HoverTextFilter(target, std::move(textAt)));
}

void keepComboNarrow(QComboBox* box, int characters) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(characters);
    // Composed at each hover: the box is often filled with its signals blocked.
    attachHoverText(box, [box, role = box->toolTip()](const QPoint&) {
        const QString text = box->currentText();
        return role.isEmpty() ? text : text.isEmpty() ? role : role + "\n\n" + text;
    });
}

} // namespace tracelight::widgets
