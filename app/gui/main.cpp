#include <QApplication>

#include "main_window.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("OpScope");
    QApplication::setOrganizationName("OpScope");
    opscope::gui::MainWindow w;
    w.show();
    return QApplication::exec();
}
