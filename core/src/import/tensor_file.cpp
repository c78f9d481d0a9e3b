// FILE.npy / FILE.npz:KEY / FILE.pt[:KEY] / FILE.safetensors:KEY (see tensor_file.h).
#include "opscope/import/tensor_file.h"

#include <filesystem>

#include "opscope/import/format_error.h"
#include "opscope/import/npy.h"
#include "opscope/import/safetensors.h"
#include "opscope/import/torch_pt.h"

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

std::vector<std::string> keysOf(const Spec& s) {
    if (s.extension == ".npy") return {};
    if (s.extension == ".safetensors") return safetensorsKeys(s.file);
    if (s.extension == ".safetensors.index.json") return safetensorsIndexKeys(s.file);
    return s.extension == ".npz" ? npzKeys(s.file) : torchPtKeys(s.file);
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

std::vector<std::string> tensorFileKeys(const std::string& file) { return keysOf(existingFile(file)); }

std::vector<TensorEntry> describeTensorFile(const std::string& file) {
    const Spec s = existingFile(file);
    if (s.extension == ".npy") return {describeNpy(s.file)};
    if (s.extension == ".safetensors") return describeSafetensors(s.file);
    if (s.extension == ".safetensors.index.json") return describeSafetensorsIndex(s.file);
    return s.extension == ".npz" ? describeNpz(s.file) : describeTorchPt(s.file);
}

HostTensor readTensorFile(const std::string& text) {
    Spec s = existingFile(text);
    if (s.extension == ".npy") return readNpy(s.file);
    if (s.key.empty() && (s.extension == ".npz" || s.extension == ".safetensors")) {  // the one it holds
        const std::vector<std::string> keys = keysOf(s);
        if (keys.size() != 1) {
            std::string list;
            for (const std::string& k : keys) list += (list.empty() ? "" : ", ") + k;
            throw FormatError("'" + s.file + "' holds " + std::to_string(keys.size()) +
                              (s.extension == ".npz" ? " arrays (" : " tensors (") + list + "): name one as '" +
                              s.file + ":KEY'");
        }
        s.key = keys[0];
    }
    if (s.extension == ".safetensors") return readSafetensors(s.file, s.key);
    if (s.extension == ".safetensors.index.json") {
        if (s.key.empty())
            throw FormatError("'" + s.file + "' indexes a sharded checkpoint: name a tensor as '" + s.file + ":KEY'");
        return readSafetensorsIndex(s.file, s.key);
    }
    return s.extension == ".npz" ? readNpz(s.file, s.key) : readTorchPt(s.file, s.key);
}

}  // namespace opscope::import
