#include "main_window.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QVBoxLayout>

namespace opscope::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle("OpScope");
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->addWidget(new QLabel("OpScope: open an HDF5 case or trace (File > Open) — coming with the debugger issue.", central));
    auto* chart = new QChart();
    chart->setTitle("Error versus reference");
    layout->addWidget(new QChartView(chart, central));
    setCentralWidget(central);
    resize(900, 600);
}

}  // namespace opscope::gui
