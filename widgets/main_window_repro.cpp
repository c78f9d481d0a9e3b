// File > Export Reproducer…: the prepared call, as the debugger runs it (its product, "run as"),
// written as a standalone aclnn program and its data (ops/repro.h), on the execution thread.
#include <QFileDialog>
#include <QMessageBox>
#include <QSettings>

#include <memory>

#include "main_window.h"
#include "opscope/ops/case_runner.h"
#include "opscope/ops/repro.h"
#include "session/debug_context.h"

namespace opscope::gui {

void MainWindow::exportRepro() {
    const ops::Operator* op = context_->op();
    if (!op || !context_->isPrepared()) return;
    const QString suggested =
        QSettings().value("lastDir").toString() + "/repro_" + QString::fromStdString(op->schema().shortName);
    const QString dest = QFileDialog::getSaveFileName(this, tr("Export reproducer (a new folder)"), suggested,
                                                      QString(), nullptr, QFileDialog::DontConfirmOverwrite);
    if (dest.isEmpty()) return;
    const cases::Case* loaded = context_->currentCase();
    const std::string file = context_->filePath().toStdString();
    const std::string path = loaded ? loaded->path : "/repro/" + op->schema().shortName;
    const std::string origin =
        loaded ? "case " + path + " of " + file + ", as the debugger ran it" : "a call set up in the debugger";
    auto exported = std::make_shared<ops::ReproExport>();
    context_->withExecutor(
        [op, path, origin, folder = dest.toStdString(), exported](ops::PreparedCall& call) {
            *exported = ops::exportRepro(ops::caseOfArguments(*op, call.arguments(), path), folder, origin);
        },
        [this, dest, exported](const QString& error) {
            if (!error.isEmpty()) {
                QMessageBox::warning(this, tr("Cannot export the reproducer"), error);
                return;
            }
            Q_EMIT context_->statusMessage(tr("Wrote the reproducer %1 (%2 files): build and run it on the NPU as its "
                                              "README.md says, then 'opscope-cli import repro' reads its outputs back")
                                               .arg(dest)
                                               .arg(exported->files.size()),
                                           false);
        });
}

}  // namespace opscope::gui
