#include "common/RequestScope.h"

#include <QComboBox>

namespace tracelight::widgets {

void nameScopeItem(QComboBox* box, const RequestScope& scope) {
    if (box->count() == 0) return;
    box->setItemText(0, scope.isAll() ? QComboBox::tr("All requests") : QComboBox::tr("Listed requests (%L1)").arg(scope.ids->size()));
    box->setItemData(0, scope.isAll() ? QComboBox::tr("Every request of the database") : QComboBox::tr("The requests the request table lists: %1").arg(scope.text),
                     Qt::ToolTipRole);
}

} // namespace tracelight::widgets
