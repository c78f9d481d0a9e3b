// The status bar's progress of an msprobe dump import: "Importing <folder>", calls done of all,
// and Cancel. Long imports (thousands of calls, gigabytes of tensors) run on a pool thread; this
// shows how far they are and lets the user stop one (ImportOptions::cancelled), nothing written.
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>

class QLabel;
class QProgressBar;
class QToolButton;

namespace opscope::gui {

class ImportProgress : public QWidget {
    Q_OBJECT
public:
    explicit ImportProgress(QWidget* parent = nullptr);
    // Cancels the import still running: closing the window must not wait for it to end.
    ~ImportProgress() override;

    // Shows the bar for a new import of `what`; the flag returned turns true when the user
    // cancels it (the import polls it).
    using Flag = std::shared_ptr<std::atomic<bool>>;
    Flag start(const QString& what);
    // From the import started with `of` only: a replaced import's late reports are dropped.
    void setProgress(const Flag& of, qulonglong done, qulonglong total);
    void finish(const Flag& of);  // hides it

    QString text() const;  // "Importing dump_l1: 12 / 20 calls" (tests, screenshots)
    void cancel();         // what the Cancel button does

private:
    QLabel* label_;
    QProgressBar* bar_;
    QToolButton* cancel_;
    Flag cancelled_;
};

}  // namespace opscope::gui
