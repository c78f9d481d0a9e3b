#include "views/panel_setup.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace opscope::gui {

QVBoxLayout* panelLayout(QWidget* panel) {
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(4, 4, 4, 4);
    return layout;
}

QLabel* wrappedLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    return label;
}

QSplitter* titledSplitter(QWidget* panel, QLabel** title, Qt::Orientation orientation) {
    QVBoxLayout* layout = panelLayout(panel);
    *title = wrappedLabel(panel);
    layout->addWidget(*title);
    auto* split = new QSplitter(orientation, panel);
    layout->addWidget(split, 1);
    return split;
}

void setUpRowTable(QTableView* view) {
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
}

}  // namespace opscope::gui
