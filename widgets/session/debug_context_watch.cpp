// The open file watched on disk: an import written again to the same path, a trace still being
// recorded, a checkpoint replaced. The debugger keeps showing the file as it was opened (its open
// handle, its case list), so it says so at once instead of letting a verdict stand for a file
// that is no longer there.
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
    openedStamp_ = filePath_.isEmpty() ? std::string() : stampOf(filePath_);
    if (!openedStamp_.empty()) watcher_->addPath(filePath_);
}

void DebugContext::onWatchedFileChanged() {
    // A file replaced by a rename is no longer watched: watch what is at the path now.
    if (!watcher_->files().contains(filePath_) && QFileInfo::exists(filePath_)) watcher_->addPath(filePath_);
    if (changedOnDisk_ || filePath_.isEmpty() || stampOf(filePath_) == openedStamp_) return;
    changedOnDisk_ = true;
    Q_EMIT fileChangedOnDisk();
    Q_EMIT statusMessage(QString("%1 changed on disk since it was opened: what is shown is the file as it was "
                                 "(File › Reload opens it again)")
                             .arg(QFileInfo(filePath_).fileName()),
                         true);
}

}  // namespace opscope::gui
