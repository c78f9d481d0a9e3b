#include "views/vertical_scroll_area.h"

#include <QEvent>
#include <QScrollBar>

namespace opscope::gui {

namespace {
constexpr int kFocusMargin = 20;  // as QScrollArea::ensureWidgetVisible's default
}  // namespace

// The area sizes the content itself: QScrollArea's resizable mode keeps the content's minimum
// width (a sideways range) or, once that is ignored, trusts a height-for-width that word-wrapped
// labels make too small (fields cut off at the bottom).
VerticalScrollArea::VerticalScrollArea(QWidget* content, QWidget* parent) : QScrollArea(parent) {
    setWidget(content);
    setWidgetResizable(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    content->installEventFilter(this);
    fitContent();
}

void VerticalScrollArea::fitContent() {
    QWidget* content = widget();
    if (!content) return;
    const int width = viewport()->width();
    int height = std::max(content->minimumSizeHint().height(), content->sizeHint().height());
    if (content->hasHeightForWidth()) height = std::max(height, content->heightForWidth(width));
    content->resize(width, std::max(height, viewport()->height()));
}

void VerticalScrollArea::resizeEvent(QResizeEvent* e) {
    QScrollArea::resizeEvent(e);
    fitContent();
}

// The content's layout changed (a new operator's fields): fit it once the layout has run.
bool VerticalScrollArea::eventFilter(QObject* watched, QEvent* e) {
    if (watched == widget() && e->type() == QEvent::LayoutRequest)
        QMetaObject::invokeMethod(this, &VerticalScrollArea::fitContent, Qt::QueuedConnection);
    return QScrollArea::eventFilter(watched, e);
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
