// "Copy table" on a metrics table's right-click menu: the whole table, tab-separated, from the
// one metric field table (MetricsTableModel::tabSeparated), ready to paste into a spreadsheet.
#pragma once

class QTableView;

namespace opscope::gui {

class MetricsTableModel;

void addCopyTableMenu(QTableView* table, MetricsTableModel* model);

}  // namespace opscope::gui
