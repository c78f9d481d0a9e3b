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

int VerticalScrollArea::contentHeight(int width) const {
    const QWidget* content = widget();
    // Text alone: its height at this width (a wrapped label's sizeHint assumes a narrower one).
    if (minLines_ > 0 && content->hasHeightForWidth()) return content->heightForWidth(width);
    int height = std::max(content->minimumSizeHint().height(), content->sizeHint().height());
    if (content->hasHeightForWidth()) height = std::max(height, content->heightForWidth(width));
    return height;
}

void VerticalScrollArea::fitContent() {
    QWidget* content = widget();
    if (!content) return;
    const int width = viewport()->width();
    const int height = contentHeight(width);
    content->resize(width, std::max(height, viewport()->height()));
    if (minLines_ > 0 && height != lastHeight_) {
        lastHeight_ = height;
        updateGeometry();  // the text grew or shrank: the layout asks sizeHint again
    }
}

void VerticalScrollArea::preferContentHeight(int minLines) {
    minLines_ = minLines;
    setFrameShape(QFrame::NoFrame);
    viewport()->setAutoFillBackground(false);  // text on the panel's own background
    if (widget()) widget()->setAutoFillBackground(false);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    updateGeometry();
}

QSize VerticalScrollArea::sizeHint() const {
    if (minLines_ <= 0 || !widget()) return QScrollArea::sizeHint();
    return {QScrollArea::sizeHint().width(), contentHeight(viewport()->width()) + 2 * frameWidth()};
}

QSize VerticalScrollArea::minimumSizeHint() const {
    if (minLines_ <= 0 || !widget()) return QScrollArea::minimumSizeHint();
    const int lines = std::min(contentHeight(viewport()->width()), minLines_ * fontMetrics().lineSpacing());
    return {QScrollArea::minimumSizeHint().width(), lines + 2 * frameWidth()};
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
