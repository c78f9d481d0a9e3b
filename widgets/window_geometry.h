// Keeping the main window on the screen: a geometry restored from a larger screen (or saved
// after something once widened the window) is clamped to the screen it opens on.
#pragma once

#include <QRect>

class QWidget;

namespace opscope::gui {

// `frame` moved and shrunk to lie inside `available` (a screen's available geometry).
QRect clampedToScreen(const QRect& frame, const QRect& available);
// Applies clampedToScreen to the window on the screen it is on (its primary screen if none).
void clampToScreen(QWidget* window);

}  // namespace opscope::gui
