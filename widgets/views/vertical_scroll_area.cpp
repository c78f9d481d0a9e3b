#include "views/vertical_scroll_area.h"

#include <QScrollBar>

namespace opscope::gui {

namespace {
constexpr int kFocusMargin = 20;  // as QScrollArea::ensureWidgetVisible's default
}  // namespace

VerticalScrollArea::VerticalScrollArea(QWidget* content, QWidget* parent) : QScrollArea(parent) {
    // An ignored horizontal size policy lets the area size the content to the viewport's width
    // instead of the content's minimum width (which would bring a sideways range back).
    QSizePolicy p = content->sizePolicy();
    p.setHorizontalPolicy(QSizePolicy::Ignored);
    content->setSizePolicy(p);
    setWidget(content);
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

void VerticalScrollArea::ensureVisibleVertically(QWidget* w) {
    if (!widget() || !widget()->isAncestorOf(w)) return;
    const int top = w->mapTo(widget(), QPoint(0, 0)).y();
    const int bottom = top + w->height();
    QScrollBar* bar = verticalScrollBar();
    const int visible = viewport()->height();
    if (top - kFocusMargin < bar->value())
        bar->setValue(top - kFocusMargin);
    else if (bottom + kFocusMargin > bar->value() + visible)
        bar->setValue(std::min(top - kFocusMargin, bottom + kFocusMargin - visible));
}

// QScrollArea's own version calls ensureWidgetVisible, which also scrolls sideways.
bool VerticalScrollArea::focusNextPrevChild(bool next) {
    if (!QWidget::focusNextPrevChild(next)) return false;
    if (QWidget* f = focusWidget()) ensureVisibleVertically(f);
    horizontalScrollBar()->setValue(0);
    return true;
}

}  // namespace opscope::gui
