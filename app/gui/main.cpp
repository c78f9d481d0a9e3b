// opscope: the Qt debugger. Usage:
//   opscope [FILE|DUMP_DIR] [--case PATH]
//   opscope --screenshot OUT.png FILE|DUMP_DIR [--case PATH] [--tensor NAME[:golden|:abs|:rel]]
//           [--side-by-side] [--chart histogram|axis|scatter|tolerance] [--size WxH] [--no-run]
//           [--run-as fp16] [--pick I,J,..] [--raise history|log|steps|call|file]
//           [--set NAME=VALUE]... [--colormap NAME] [--scale linear|log|symlog] [--range
//           autofit|symmetric|percentile|manual] [--compare [FILE:]PATH]
//   --case may name a dataset instead of a case: the Dataset view shows it (and --compare B).
//   FILE may be a tensor file (.pt, .safetensors, .npz, .npy): --case then names a key.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QThreadPool>
#include <QTimer>
#include <cstdio>

#include "main_window.h"
#include "screenshot.h"
#include "session/debug_context.h"
#include "window_geometry.h"
#include "opscope/process_memory.h"

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

// A case file or trace, or an msprobe dump folder (imported first), then its case or dataset
// `path`, compared with `compare` (--compare) when it is a dataset or a group.
void openArgument(opscope::gui::MainWindow& window, const QString& file, const QString& path, const QString& compare) {
    const auto show = [&window, path, compare] {
        if (path.isEmpty()) return;
        if (compare.isEmpty() || !window.showPathComparedWith(path, compare)) window.showPath(path);
    };
    if (!QFileInfo(file).isDir()) {
        if (window.openFile(file)) show();
        return;
    }
    QObject::connect(&window, &opscope::gui::MainWindow::dumpFolderOpened, &window, show);
    window.openDumpFolder(file);
}

// The command line's options, declared once.
struct Options {
    QCommandLineOption caseOpt{"case", "Load this case (group path), or view this dataset, after opening.", "PATH"};
    QCommandLineOption shotOpt{"screenshot", "Run the case, save a picture of the window, quit.", "OUT.png"};
    QCommandLineOption tensorOpt{"tensor", "Tensor to show (slot name, or OUTPUT:golden|abs|rel).", "NAME"};
    QCommandLineOption sideOpt{"side-by-side", "Show the reference next to the output."};
    QCommandLineOption chartOpt{"chart", "Chart tab to show: histogram, axis, scatter, tolerance.", "TAB"};
    QCommandLineOption sizeOpt{"size", "Window size for the screenshot (default 1600x1000).", "WxH", "1600x1000"};
    QCommandLineOption noRunOpt{"no-run", "Screenshot after prepare, without running."};
    QCommandLineOption runAsOpt{"run-as", "Run the case as fp32, fp16 or bf16.", "DTYPE"};
    QCommandLineOption pickOpt{"pick", "Pick this element of the shown tensor (element history), or 'worst'.",
                               "I,J,...|worst"};
    QCommandLineOption raiseOpt{"raise", "Raise a dock: history, log, steps, call, file.", "DOCK"};
    QCommandLineOption cmapOpt{"colormap", "Tensor view colormap: coolwarm, viridis, magma, gray.", "NAME"};
    QCommandLineOption scaleOpt{"scale", "Tensor view scale: linear, log, symlog.", "NAME"};
    QCommandLineOption rangeOpt{"range", "Tensor view range: autofit, symmetric, percentile, manual.", "NAME"};
    QCommandLineOption setOpt{"set", "Override an attribute after loading (repeatable): N=4, mask=true,false.",
                              "NAME=VALUE"};
    QCommandLineOption compareOpt{"compare",
                                  "With --case DATASET: compare it with PATH (this file), FILE.h5:PATH or FILE.pt:KEY; "
                                  "with --case GROUP: every dataset below it with FILE.h5[:/GROUP].",
                                  "[FILE:]PATH"};

    void addTo(QCommandLineParser& p) const {
        p.addOptions({caseOpt, shotOpt, tensorOpt, sideOpt, chartOpt, sizeOpt, noRunOpt, runAsOpt, pickOpt, raiseOpt,
                      cmapOpt, scaleOpt, rangeOpt, setOpt, compareOpt});
    }

    opscope::gui::ScreenshotOptions screenshot(const QCommandLineParser& p) const {
        opscope::gui::ScreenshotOptions o;
        o.output = p.value(shotOpt);
        o.casePath = p.value(caseOpt);
        o.tensor = p.value(tensorOpt);
        o.sideBySide = p.isSet(sideOpt);
        o.tab = p.value(chartOpt);
        o.run = !p.isSet(noRunOpt);
        o.runAs = p.value(runAsOpt);
        o.pick = p.value(pickOpt);
        o.raise = p.value(raiseOpt);
        o.colormap = p.value(cmapOpt);
        o.scale = p.value(scaleOpt);
        o.range = p.value(rangeOpt);
        o.set = p.values(setOpt);
        o.compare = p.value(compareOpt);
        return o;
    }
};

void describe(QCommandLineParser& parser, const Options& options) {
    parser.setApplicationDescription("OpScope: step through aclnn operator executors and compare with the reference.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        "file", "A case file, trace, tensor file (.pt, .safetensors, .npz, .npy) or msprobe dump folder to open.",
        "[FILE|DIR]");
    options.addTo(parser);
}

// --help and --version answer without a display: a QApplication would abort without one.
bool asksForHelpOrVersion(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a == "-h" || a == "--help" || a == "--help-all" || a == "-v" || a == "--version") return true;
    }
    return false;
}

void setApplicationNames() {
    QCoreApplication::setApplicationName("OpScope");
    QCoreApplication::setOrganizationName("OpScope");
    QCoreApplication::setApplicationVersion("0.1.0");
}

}  // namespace

int main(int argc, char** argv) {
    opscope::returnLargeBlocksToTheSystem();
    const Options options;
    if (asksForHelpOrVersion(argc, argv)) {
        QCoreApplication app(argc, argv);
        setApplicationNames();
        QCommandLineParser parser;
        describe(parser, options);
        parser.process(app);  // prints and exits
        return 0;
    }
    SafeApplication app(argc, argv);
    setApplicationNames();
    QCommandLineParser parser;
    describe(parser, options);
    parser.process(app);

    const QStringList files = parser.positionalArguments();
    const bool screenshot = parser.isSet(options.shotOpt);
    if (screenshot && files.isEmpty()) {
        std::fprintf(stderr, "opscope: --screenshot needs a FILE or a dump folder\n");
        return 2;
    }

    opscope::gui::MainWindow window(nullptr, !screenshot);
    if (screenshot) {
        const QStringList wh = parser.value(options.sizeOpt).split('x');
        if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
    }
    opscope::gui::clampToScreen(&window);  // a geometry saved on a larger screen
    window.show();
    int code = 0;
    if (screenshot) {
        // No dialogs without a user: report and quit.
        window.setUnattended(true);
        auto* driver = new opscope::gui::ScreenshotDriver(&window, options.screenshot(parser));
        if (QFileInfo(files.front()).isDir()) {
            // An msprobe dump folder: imported first (off the GUI thread), then its case.
            QObject::connect(&window, &opscope::gui::MainWindow::dumpFolderOpened, driver,
                             &opscope::gui::ScreenshotDriver::start);
            QObject::connect(&window, &opscope::gui::MainWindow::dumpFolderFailed, &window, [](const QString& error) {
                std::fprintf(stderr, "opscope: %s\n", qPrintable(error));
                QApplication::exit(1);
            });
            window.openDumpFolder(files.front());
        } else {
            QString error;
            if (!window.context()->openFile(files.front(), &error)) {
                std::fprintf(stderr, "opscope: %s\n", qPrintable(error));
                return 1;
            }
            QTimer::singleShot(0, driver, &opscope::gui::ScreenshotDriver::start);
        }
        code = QApplication::exec();
    } else {
        if (!files.isEmpty())
            openArgument(window, files.front(), parser.value(options.caseOpt), parser.value(options.compareOpt));
        code = QApplication::exec();
    }
    QThreadPool::globalInstance()->waitForDone();
    return code;
}
