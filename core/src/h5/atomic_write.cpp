// Temporary file + fsync + rename(2): the POSIX way to replace a file all at once.
#include "opscope/h5/atomic_write.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>

#include "opscope/error.h"

namespace opscope::h5 {
namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// An absolute, symlink-free spelling, for paths that may not exist yet.
fs::path resolved(const fs::path& p) {
    std::error_code ec;
    fs::path r = fs::weakly_canonical(p, ec);
    return ec ? fs::absolute(p, ec).lexically_normal() : r;
}

// 0 or the errno of the failed open/fsync.
int fsyncPath(const fs::path& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) return errno;
    const int error = ::fsync(fd) == 0 ? 0 : errno;
    ::close(fd);
    return error;
}

fs::path directoryOf(const fs::path& file) { return file.has_parent_path() ? file.parent_path() : fs::path("."); }

// Removes "<destination>.tmp-<pid>-<hex>" files left by writers that were killed: the pid no
// longer runs. A live pid (even a reused one) keeps its file, so no running writer loses one.
void removeStaleTemps(const fs::path& destination) {
    const std::string prefix = destination.filename().string() + ".tmp-";
    std::error_code ec;
    for (fs::directory_iterator it(directoryOf(destination), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string rest = name.substr(prefix.size());  // "<pid>-<8 hex digits>"
        const std::size_t dash = rest.find('-');
        if (dash == 0 || dash == std::string::npos || rest.size() - dash - 1 != 8 ||
            rest.find_first_not_of("0123456789") != dash ||
            rest.find_first_not_of("0123456789abcdef", dash + 1) != std::string::npos)
            continue;
        const long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
        if (pid <= 0 || pid == static_cast<long>(::getpid())) continue;
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // running, or not ours to judge
        std::error_code ignored;
        fs::remove(it->path(), ignored);
    }
}

}  // namespace

bool sameFile(const fs::path& a, const fs::path& b) {
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec)) {
        const bool same = fs::equivalent(a, b, ec);  // catches hard links too
        if (!ec) return same;
    }
    return resolved(a) == resolved(b);
}

AtomicFileWriter::AtomicFileWriter(fs::path destination, const std::vector<fs::path>& inputs)
    : destination_(std::move(destination)) {
    const std::string what = "cannot write " + quoted(destination_);
    for (const fs::path& input : inputs)
        if (sameFile(destination_, input))
            throw IoError(what + ": it is also an input (" + quoted(input) + "), and outputs never overwrite inputs");
    std::error_code ec;
    if (fs::is_directory(destination_, ec)) throw IoError(what + ": it is a directory");
    const fs::path directory = directoryOf(destination_);
    if (!fs::is_directory(directory, ec))
        throw IoError(what + ": the directory " + quoted(directory) + " does not exist");

    removeStaleTemps(destination_);
    std::random_device random;
    char suffix[48];
    std::snprintf(suffix, sizeof suffix, ".tmp-%ld-%08x", static_cast<long>(::getpid()),
                  static_cast<unsigned>(random()));
    temp_ = destination_;
    temp_ += suffix;
}

AtomicFileWriter::~AtomicFileWriter() {
    if (committed_) return;
    std::error_code ignored;
    fs::remove(temp_, ignored);
}

void AtomicFileWriter::commit() {
    const std::string what = "cannot write " + quoted(destination_);
    if (committed_) throw IoError(what + ": it was already committed");
    std::error_code ec;
    if (!fs::exists(temp_, ec)) throw IoError(what + ": nothing was written to " + quoted(temp_));

    if (const int error = fsyncPath(temp_, O_RDONLY))
        throw IoError(what + ": flushing " + quoted(temp_) + " failed: " + std::strerror(error));
    const fs::file_status old = fs::status(destination_, ec);
    if (!ec && fs::exists(old)) fs::permissions(temp_, old.permissions(), ec);  // best effort
    if (std::rename(temp_.c_str(), destination_.c_str()) != 0)
        throw IoError(what + ": renaming " + quoted(temp_) + " failed: " + std::strerror(errno));
    committed_ = true;
    // Durability of the rename itself; the file is in place either way, so a failure is not fatal.
    fsyncPath(directoryOf(destination_), O_RDONLY | O_DIRECTORY);
}

void writeFileAtomically(const fs::path& destination, const std::string& bytes, const std::vector<fs::path>& inputs) {
    AtomicFileWriter writer(destination, inputs);
    {
        std::ofstream out(writer.tempPath(), std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.close();
        if (!out) throw std::runtime_error("writing '" + writer.tempPath().string() + "' failed");
    }
    writer.commit();
}

}  // namespace opscope::h5
