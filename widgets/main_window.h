// The debugger's main window. For now: the shell that later views dock into, proving the
// build finds and links Qt 6 Widgets and Charts.
#pragma once

#include <QMainWindow>

namespace opscope::gui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
};

}  // namespace opscope::gui
