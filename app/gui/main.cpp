// opscope: the Qt debugger. Usage:
//   opscope [FILE] [--case PATH]
//   opscope --screenshot OUT.png FILE [--case PATH] [--tensor NAME[:golden|:abs|:rel]]
//           [--side-by-side] [--chart histogram|axis|scatter|tolerance] [--size WxH] [--no-run]
//           [--run-as fp16] [--pick I,J,..] [--raise history|log|steps|call|file]
//           [--set NAME=VALUE]... [--colormap NAME] [--scale linear|log|symlog] [--range
//           autofit|symmetric|percentile|manual]
#include <QApplication>
#include <QCommandLineParser>
#include <QThreadPool>
#include <QTimer>
#include <cstdio>

#include "main_window.h"
#include "screenshot.h"
#include "session/debug_context.h"
#include "window_geometry.h"

namespace {

// The last line of defence: an exception escaping an event handler is reported, not fatal.
class SafeApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool notify(QObject* receiver, QEvent* event) override {
        try {
            return QApplication::notify(receiver, event);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "opscope: internal error: %s\n", e.what());
        } catch (...) {
            std::fprintf(stderr, "opscope: internal error\n");
        }
        return false;
    }
};

}  // namespace

int main(int argc, char** argv) {
    SafeApplication app(argc, argv);
    QApplication::setApplicationName("OpScope");
    QApplication::setOrganizationName("OpScope");
    QApplication::setApplicationVersion("0.1.0");

    QCommandLineParser parser;
    parser.setApplicationDescription("OpScope: step through aclnn operator executors and compare with the reference.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("file", "An HDF5 case file or trace to open.", "[FILE]");
    const QCommandLineOption caseOpt("case", "Load this case (group path) after opening.", "PATH");
    const QCommandLineOption shotOpt("screenshot", "Run the case, save a picture of the window, quit.", "OUT.png");
    const QCommandLineOption tensorOpt("tensor", "Tensor to show (slot name, or OUTPUT:golden|abs|rel).", "NAME");
    const QCommandLineOption sideOpt("side-by-side", "Show the reference next to the output.");
    const QCommandLineOption chartOpt("chart", "Chart tab to show: histogram, axis, scatter, tolerance.", "TAB");
    const QCommandLineOption sizeOpt("size", "Window size for the screenshot (default 1600x1000).", "WxH", "1600x1000");
    const QCommandLineOption noRunOpt("no-run", "Screenshot after prepare, without running.");
    const QCommandLineOption runAsOpt("run-as", "Run the case as fp32, fp16 or bf16.", "DTYPE");
    const QCommandLineOption pickOpt("pick", "Pick this element of the shown tensor (element history), or 'worst'.",
                                     "I,J,...|worst");
    const QCommandLineOption raiseOpt("raise", "Raise a dock: history, log, steps, call, file.", "DOCK");
    const QCommandLineOption cmapOpt("colormap", "Tensor view colormap: coolwarm, viridis, magma, gray.", "NAME");
    const QCommandLineOption scaleOpt("scale", "Tensor view scale: linear, log, symlog.", "NAME");
    const QCommandLineOption rangeOpt("range", "Tensor view range: autofit, symmetric, percentile, manual.", "NAME");
    const QCommandLineOption setOpt("set", "Override an attribute after loading (repeatable): N=4, mask=true,false.",
                                    "NAME=VALUE");
    parser.addOptions({caseOpt, shotOpt, tensorOpt, sideOpt, chartOpt, sizeOpt, noRunOpt, runAsOpt, pickOpt, raiseOpt,
                       cmapOpt, scaleOpt, rangeOpt, setOpt});
    parser.process(app);

    const QStringList files = parser.positionalArguments();
    const bool screenshot = parser.isSet(shotOpt);
    if (screenshot && files.isEmpty()) {
        std::fprintf(stderr, "opscope: --screenshot needs a FILE\n");
        return 2;
    }

    opscope::gui::MainWindow window(nullptr, !screenshot);
    if (screenshot) {
        const QStringList wh = parser.value(sizeOpt).split('x');
        if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
    }
    opscope::gui::clampToScreen(&window);  // a geometry saved on a larger screen
    window.show();
    if (screenshot) {
        // No dialogs without a user: report and quit.
        QString error;
        if (!window.context()->openFile(files.front(), &error)) {
            std::fprintf(stderr, "opscope: %s\n", qPrintable(error));
            return 1;
        }
    } else if (!files.isEmpty()) {
        window.openFile(files.front());
    }

    if (screenshot) {
        opscope::gui::ScreenshotOptions o;
        o.output = parser.value(shotOpt);
        o.casePath = parser.value(caseOpt);
        o.tensor = parser.value(tensorOpt);
        o.sideBySide = parser.isSet(sideOpt);
        o.tab = parser.value(chartOpt);
        o.run = !parser.isSet(noRunOpt);
        o.runAs = parser.value(runAsOpt);
        o.pick = parser.value(pickOpt);
        o.raise = parser.value(raiseOpt);
        o.colormap = parser.value(cmapOpt);
        o.scale = parser.value(scaleOpt);
        o.range = parser.value(rangeOpt);
        o.set = parser.values(setOpt);
        auto* driver = new opscope::gui::ScreenshotDriver(&window, o);
        QTimer::singleShot(0, driver, &opscope::gui::ScreenshotDriver::start);
    } else if (parser.isSet(caseOpt)) {
        window.context()->loadCase(parser.value(caseOpt));
    }
    const int code = QApplication::exec();
    QThreadPool::globalInstance()->waitForDone();
    return code;
}
