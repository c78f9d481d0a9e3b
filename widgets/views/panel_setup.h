// What the panels build alike: their frame, wrapped text labels and tables of rows.
#pragma once

class QLabel;
class QTableView;
class QVBoxLayout;
class QWidget;

namespace opscope::gui {

// The panel's top-level vertical layout, with the margins every panel uses.
QVBoxLayout* panelLayout(QWidget* panel);

// A label whose text wraps at the panel's width.
QLabel* wrappedLabel(QWidget* parent);

// A table whose rows are picked one at a time: whole-row single selection, no row numbers,
// the last column stretched to the view's width.
void setUpRowTable(QTableView* view);

}  // namespace opscope::gui
