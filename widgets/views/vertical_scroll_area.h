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
    // For text under a map: ask the layout for the content's whole height, and give way down to
    // `minLines` lines (then scroll) when the panel is short, rather than clip what is below.
    void preferContentHeight(int minLines);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    bool focusNextPrevChild(bool next) override;
    void resizeEvent(QResizeEvent*) override;
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void fitContent();  // the viewport's width, the height the content needs at that width
    int contentHeight(int width) const;

    int minLines_ = 0;  // > 0: preferContentHeight
    int lastHeight_ = -1;
};

}  // namespace opscope::gui
