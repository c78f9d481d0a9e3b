// Writes a file under a temporary name beside its destination, then renames it into place:
// readers never see half a file, a failed run leaves the old file as it was, and an output
// can never overwrite one of the command's inputs. Works for any file type. A writer that was
// killed leaves its temporary file behind; the next writer of the same destination removes the
// temporary files of processes that no longer run.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace opscope::h5 {

class AtomicFileWriter {
public:
    // Throws std::runtime_error, with one sentence, when the destination is one of `inputs`
    // (the same file under any name), is a directory, or its directory does not exist.
    explicit AtomicFileWriter(std::filesystem::path destination, const std::vector<std::filesystem::path>& inputs = {});
    // Removes the temporary file unless committed.
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    const std::filesystem::path& destination() const { return destination_; }
    // "<destination>.tmp-<pid>-<random>": same directory, so the final rename stays on one
    // filesystem and is atomic. Write here, and close the file before commit().
    const std::filesystem::path& tempPath() const { return temp_; }
    // fsyncs the temporary file, renames it over the destination (keeping the old file's
    // permissions) and fsyncs the directory. Throws std::runtime_error on failure.
    void commit();
    bool committed() const { return committed_; }

private:
    std::filesystem::path destination_;
    std::filesystem::path temp_;
    bool committed_ = false;
};

// The bytes as the whole new content of `destination`, through an AtomicFileWriter. Throws
// std::runtime_error with one sentence (an input as destination, a write that failed).
void writeFileAtomically(const std::filesystem::path& destination, const std::string& bytes,
                         const std::vector<std::filesystem::path>& inputs = {});

// True when both name one file: the same inode (hard and symbolic links too) or, for paths that
// do not exist yet, the same absolute spelling.
bool sameFile(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace opscope::h5
