#include "window_geometry.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>
#include <algorithm>

namespace opscope::gui {

QRect clampedToScreen(const QRect& frame, const QRect& available) {
    if (available.isEmpty()) return frame;
    const int w = std::min(frame.width(), available.width());
    const int h = std::min(frame.height(), available.height());
    const int x = std::clamp(frame.x(), available.left(), available.left() + available.width() - w);
    const int y = std::clamp(frame.y(), available.top(), available.top() + available.height() - h);
    return {x, y, w, h};
}

void clampToScreen(QWidget* window) {
    QScreen* screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    if (!screen) return;
    const QRect g = clampedToScreen(window->geometry(), screen->availableGeometry());
    if (g != window->geometry()) window->setGeometry(g);
}

}  // namespace opscope::gui
