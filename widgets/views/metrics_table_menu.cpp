#include "views/metrics_table_menu.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QTableView>

#include "models/metrics_table_model.h"

namespace opscope::gui {

void addCopyTableMenu(QTableView* table, MetricsTableModel* model) {
    auto* copy = new QAction(QObject::tr("Copy table"), table);
    copy->setObjectName("copyTable");
    copy->setToolTip(QObject::tr("Every verdict and metric, tab-separated"));
    QObject::connect(copy, &QAction::triggered, table,
                     [model] { QApplication::clipboard()->setText(model->tabSeparated()); });
    table->addAction(copy);
    table->setContextMenuPolicy(Qt::ActionsContextMenu);
}

}  // namespace opscope::gui
