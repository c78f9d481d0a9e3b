// `opscope --screenshot OUT.png FILE [--case PATH]`: loads a case, runs it to the end, waits
// until the analysis and the tensor view have settled, grabs the main window and quits.
// For documentation and CI; a polling state machine with a deadline, never a hang.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

namespace opscope::gui {

class MainWindow;

struct ScreenshotOptions {
    QString output;
    QString casePath;  // "" = the file's first case
    QString tensor;    // a tensor to show ("" = the first output)
    bool sideBySide = false;
    QString tab;                     // chart tab to raise: "histogram", "axis", "scatter", "tolerance"
    bool run = true;                 // false: stop after prepare
    QString runAs;                   // "fp16", "bf16", "fp32": run the case in that dtype
    QString pick;                    // "i,j,k,...": pick that element of the shown tensor (element history)
    QString raise;                   // a dock to raise: "history", "log", "steps", "call", "file"
    QString colormap, scale, range;  // display settings by name
    QStringList set;                 // "name=value" attribute overrides after loading (ints, bools, lists)
    QString compare;                 // with a dataset as casePath: compare it with "PATH" or "FILE.h5:PATH"
    int timeoutMs = 180000;
};

// (No Q_OBJECT: app/ has no moc; a QObject for lifetime and timer connections is enough.)
class ScreenshotDriver : public QObject {
public:
    ScreenshotDriver(MainWindow* window, ScreenshotOptions options);
    void start();

private:
    // Each poll runs the current state's step, which either waits (returns) or moves on.
    enum class State {
        Preparing,  // reading the case, phase 1 and the golden
        Running,    // the run, then the analysis; then the view options are applied
        Picking,    // picking an element once the tensor view shows its tensor
        Settling,   // idle for a while so every view has drawn; then the picture
        Dataset,    // casePath is a dataset: its view (and the comparison) on screen
    };
    void poll();
    void pollPreparing();
    void pollRunning();
    void pollPicking();
    void pollSettling();
    void pollDataset();
    bool startDataset(const QString& path);
    bool startGroupCompare(const QString& path);
    void applyViewOptions();
    bool idle() const;
    void finish(int code, const QString& message);

    MainWindow* window_;
    ScreenshotOptions options_;
    QTimer timer_;
    State state_ = State::Preparing;
    int stableTicks_ = 0;
    qint64 started_ = 0;
    QString failure_;  // the case could not be loaded
    bool compared_ = false;
    bool optionsApplied_ = false;
};

}  // namespace opscope::gui
