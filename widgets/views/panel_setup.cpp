#include "views/panel_setup.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "views/vertical_scroll_area.h"

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

QWidget* scrollingText(QLabel* label, QWidget* parent) {
    // In a container with a layout: a new text then reaches the area as the container's
    // LayoutRequest, which refits it.
    auto* content = new QWidget();
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    label->setWordWrap(true);
    layout->addWidget(label);
    auto* area = new VerticalScrollArea(content, parent);
    area->preferContentHeight(2);
    return area;
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
