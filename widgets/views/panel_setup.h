// What the panels build alike: their frame, wrapped text labels and tables of rows.
#pragma once

#include <qnamespace.h>

class QLabel;
class QSplitter;
class QTableView;
class QVBoxLayout;
class QWidget;

namespace opscope::gui {

// The panel's top-level vertical layout, with the margins every panel uses.
QVBoxLayout* panelLayout(QWidget* panel);

// A label whose text wraps at the panel's width.
QLabel* wrappedLabel(QWidget* parent);

// `label` (wrapped) in an area that shows all of its text when the panel has room and scrolls,
// down to two lines, when it is short, so the text never pushes what is below it out of sight.
QWidget* scrollingText(QLabel* label, QWidget* parent);

// The frame of a panel that is a title line above a splitter filling the rest: the layout, the
// wrapped title label (*title) and the splitter, returned for the panel's views.
QSplitter* titledSplitter(QWidget* panel, QLabel** title, Qt::Orientation orientation);

// A table whose rows are picked one at a time: whole-row single selection, no row numbers,
// the last column stretched to the view's width.
void setUpRowTable(QTableView* view);

}  // namespace opscope::gui
