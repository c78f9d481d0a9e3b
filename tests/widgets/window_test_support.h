// For tests that drive the main window: one on screen with a file open.
#pragma once

#include <memory>

#include "main_window.h"
#include "widget_test_support.h"

namespace opscope::gui::test {

// The window, shown at 1400x900 and exposed, with `file` open; null when either failed.
inline std::unique_ptr<MainWindow> shownWindowWith(const QString& file) {
    auto window = std::make_unique<MainWindow>(nullptr, false);
    if (!showExposed(*window, {1400, 900}) || !window->openFile(file)) return nullptr;
    return window;
}

}  // namespace opscope::gui::test
