// A scroll area that scrolls only up and down: its content always takes the viewport's width
// (long labels wrap or give way) and moving the focus with Tab scrolls only vertically to the
// focused field, so the Call form never slides sideways.
#pragma once

#include <QScrollArea>

namespace opscope::gui {

class VerticalScrollArea : public QScrollArea {
    Q_OBJECT
public:
    explicit VerticalScrollArea(QWidget* content, QWidget* parent = nullptr);
    // Scrolls up or down just enough to show `w` (a descendant of the content), never sideways.
    void ensureVisibleVertically(QWidget* w);

protected:
    bool focusNextPrevChild(bool next) override;
    void resizeEvent(QResizeEvent*) override;
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void fitContent();  // the viewport's width, the height the content needs at that width
};

}  // namespace opscope::gui
