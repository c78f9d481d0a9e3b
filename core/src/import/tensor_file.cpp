// FILE.npy / FILE.npz:KEY / FILE.pt[:KEY] / FILE.safetensors:KEY (see tensor_file.h).
#include "opscope/import/tensor_file.h"

#include <filesystem>

#include "opscope/import/format_error.h"
#include "tensor_block.h"
#include "tensor_source.h"

namespace opscope::import {
namespace {

struct Spec {
    std::string file, key, extension;
};

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The extension decides; a ":KEY" follows the last ".npz:", ".pt:" or ".safetensors:". A file
// part holding ":/" is an HDF5 dataset's FILE.h5:/path whose name ends like one ("/w.bin").
bool split(const std::string& text, Spec* out) {
    // .bin: torch.save under Hugging Face's name (pytorch_model.bin); its reader says so when the
    // file is something else.
    for (const char* ext : {".safetensors.index.json", ".safetensors", ".npy", ".npz", ".pt", ".pth", ".bin"}) {
        const std::size_t length = std::char_traits<char>::length(ext);
        Spec s;
        if (endsWith(text, ext)) {
            s = {text, "", ext};
        } else {
            const std::size_t at = text.rfind(std::string(ext) + ":");
            if (at == std::string::npos || std::string(ext) == ".npy") continue;
            s = {text.substr(0, at + length), text.substr(at + length + 1), ext};
        }
        if (s.file.find(":/") != std::string::npos) continue;
        *out = s;
        return true;
    }
    return false;
}

// The file named, checked to exist as a regular file.
Spec existingFile(const std::string& text) {
    Spec s;
    if (!split(text, &s))
        throw FormatError("'" + text + "' is not FILE.npy, FILE.npz:KEY, FILE.pt (.pth, .bin) or FILE.safetensors:KEY");
    std::error_code ec;
    if (!std::filesystem::exists(s.file, ec)) throw FormatError("no file '" + s.file + "'");
    if (!std::filesystem::is_regular_file(s.file, ec)) throw FormatError("'" + s.file + "' is not a regular file");
    return s;
}

std::unique_ptr<detail::TensorSource> open(const Spec& s) {
    if (s.extension == ".npy") return detail::openNpy(s.file);
    if (s.extension == ".npz") return detail::openNpz(s.file);
    if (s.extension == ".safetensors") return detail::openSafetensors(s.file);
    if (s.extension == ".safetensors.index.json") return detail::openSafetensorsIndex(s.file);
    return detail::openTorchPt(s.file);  // .pt, .pth, .bin
}

}  // namespace

bool isTensorFileSpec(const std::string& text) {
    Spec s;
    return split(text, &s);
}

std::string tensorFilePath(const std::string& spec) {
    Spec s;
    return split(spec, &s) ? s.file : "";
}

TensorFile::TensorFile(const std::string& file) {
    const Spec s = existingFile(file);
    path_ = s.file;
    source_ = open(s);
}

TensorFile::~TensorFile() = default;

std::vector<std::string> TensorFile::keys() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return source_->keys();
}

std::vector<TensorEntry> TensorFile::describe() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return source_->describe();
}

HostTensor TensorFile::read(const std::string& key) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return source_->read(key);
}

TensorEntry TensorFile::entry(const std::string& key) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return source_->layout(key).entry;
}

HostTensor TensorFile::readBlock(const std::string& key, const std::vector<int64_t>& start,
                                 const std::vector<int64_t>& count) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    const detail::TensorLayout layout = source_->layout(key);
    detail::checkBlock(layout.entry.shape, start, count, "'" + path_ + (key.empty() ? "" : ":" + key) + "'");
    return detail::readTensorBlock(layout, start, count);
}

std::vector<std::string> tensorFileKeys(const std::string& file) { return TensorFile(file).keys(); }

std::vector<TensorEntry> describeTensorFile(const std::string& file) { return TensorFile(file).describe(); }

HostTensor readTensorFile(const std::string& spec) {
    const TensorFile file(spec);  // checks the spec and the file
    Spec s;
    split(spec, &s);
    return file.read(s.key);
}

}  // namespace opscope::import
