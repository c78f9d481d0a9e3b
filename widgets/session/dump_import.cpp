#include "session/dump_import.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QThread>
#include <algorithm>
#include <stdexcept>

#include "opscope/import/msprobe.h"
#include "session/dump_import_cache.h"

namespace opscope::gui {

QString dumpCaseFilePath(const QString& dir) {
    QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    if (cache.isEmpty()) cache = QDir::tempPath();
    const QString folder = QDir(cache).filePath("msprobe");
    QDir().mkpath(folder);
    const QFileInfo info(dir);
    const QByteArray hash =
        QCryptographicHash::hash(info.absoluteFilePath().toUtf8(), QCryptographicHash::Sha1).toHex().left(12);
    return QDir(folder).filePath(QString("%1-%2.h5").arg(info.fileName(), QString::fromLatin1(hash)));
}

DumpImport importDumpFolderOnWorker(const QString& dir, const DumpImportControl& control) {
    const QString caseFile = dumpCaseFilePath(dir);
    // The dump's folders, walked once: what the fingerprint reads and what the debugger watches.
    const std::vector<import::msprobe::DumpFolder> folders = import::msprobe::findDumpFolders(dir.toStdString());
    QStringList sources;
    for (const import::msprobe::DumpFolder& f : folders)
        sources << QDir(QString::fromStdString(f.path)).filePath("dump.json");
    const QString fingerprint = dumpFingerprint(folders, control.device);
    if (std::optional<DumpImport> last = reusableImport(caseFile, fingerprint)) {
        last->sources = sources;
        return *last;
    }
    forgetImport(caseFile);
    DumpImport r;
    r.caseFile = caseFile;
    r.sources = sources;
    import::msprobe::ImportOptions options;
    options.jobs = std::max(1, QThread::idealThreadCount());
    options.cancelled = control.cancelled;
    options.progress = control.progress;
    options.device = control.device;
    const import::msprobe::ImportSummary s =
        import::msprobe::importDump(dir.toStdString(), r.caseFile.toStdString(), options);
    if (s.cancelled) {
        r.cancelled = true;
        return r;
    }
    for (const import::msprobe::Skipped& k : s.skipped) r.notDone << QString::fromStdString(k.call + ": " + k.reason);
    if (!s.written)
        throw std::runtime_error("none of the " + std::to_string(s.supported) + " supported calls of '" +
                                 dir.toStdString() + "' could be imported");
    QStringList labels;
    for (const import::msprobe::DumpFolder& f : s.folders) labels << QString::fromStdString(f.label());
    r.summary = QString("Imported %1 of %2 supported calls from %3 into %4")
                    .arg(s.imported.size())
                    .arg(s.supported)
                    .arg(labels.join(", "), r.caseFile);
    // The assumptions a dump cannot confirm, said where the user sees them.
    r.summary +=
        QString("; device %1 (File > Dumps Came From)").arg(QString::fromUtf8(productName(control.device.product)));
    const std::string mismatch = import::msprobe::deviceMismatch(s, control.device);
    if (!mismatch.empty()) r.summary += QString("; warning: %1").arg(QString::fromStdString(mismatch));
    const std::string folded = import::msprobe::foldedModulesNote(s);
    if (!folded.empty()) r.summary += QString("; %1").arg(QString::fromStdString(folded));
    if (s.convolutions > 0)
        r.summary += QString("; float32 convolutions with %1 (File > Dumps Ran with Conv HF32)")
                         .arg(QString::fromStdString(import::msprobe::convolutionArithmetic(control.device)));
    rememberImport(r, fingerprint);
    return r;
}

}  // namespace opscope::gui
