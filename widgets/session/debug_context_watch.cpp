// The open file watched on disk: an import written again to the same path, a trace still being
// recorded, a checkpoint replaced, the msprobe dump an import was made from dumped again. The debugger keeps showing
// the file as it was opened (its open handle, its case list), so it says so at once instead of letting a verdict stand
// for a file that is no longer there.
#include <sys/stat.h>

#include <QFileInfo>
#include <QFileSystemWatcher>

#include "session/debug_context.h"

namespace opscope::gui {

namespace {

// Which file is at `path` and as of when: "" when nothing is.
std::string stampOf(const QString& path) {
    struct stat st {};
    if (::stat(path.toLocal8Bit().constData(), &st) != 0) return {};
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

void DebugContext::watchOpenFile() {
    if (!watcher_) {
        watcher_ = new QFileSystemWatcher(this);
        connect(watcher_, &QFileSystemWatcher::fileChanged, this, &DebugContext::onWatchedFileChanged);
    }
    if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
    changedOnDisk_ = false;
    sourceStamps_.clear();
    openedStamp_ = filePath_.isEmpty() ? std::string() : stampOf(filePath_);
    if (!openedStamp_.empty()) watcher_->addPath(filePath_);
}

void DebugContext::watchSources(const QStringList& files) {
    if (!watcher_ || filePath_.isEmpty()) return;
    for (const QString& f : files) {
        sourceStamps_[f] = stampOf(f);
        if (!sourceStamps_[f].empty()) watcher_->addPath(f);
    }
}

void DebugContext::onWatchedFileChanged() {
    // A file replaced by a rename is no longer watched: watch what is at the path now.
    QStringList watched{filePath_};
    for (const auto& [path, stamp] : sourceStamps_) watched << path;
    for (const QString& path : watched)
        if (!path.isEmpty() && !watcher_->files().contains(path) && QFileInfo::exists(path)) watcher_->addPath(path);
    if (changedOnDisk_ || filePath_.isEmpty()) return;
    QString changed = stampOf(filePath_) != openedStamp_ ? QFileInfo(filePath_).fileName() : QString();
    for (const auto& [path, stamp] : sourceStamps_)
        if (changed.isEmpty() && stampOf(path) != stamp) changed = path;
    if (changed.isEmpty()) return;
    changedOnDisk_ = true;
    Q_EMIT fileChangedOnDisk();
    Q_EMIT statusMessage(QString("%1 changed on disk since %2: what is shown is as it was (File › Reload %3)")
                             .arg(changed, sourceStamps_.count(changed) ? "the import was made" : "it was opened",
                                  sourceStamps_.count(changed) ? "imports it again" : "opens it again"),
                         true);
}

}  // namespace opscope::gui
