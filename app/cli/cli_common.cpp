#include "cli_common.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <fstream>

#include "opscope/h5/atomic_write.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"
#include "opscope/import/format_error.h"
#include "opscope/import/tensor_file.h"
#include "opscope/printf_text.h"
#include "opscope/tensor_view.h"

namespace opscope::cli {

DatasetRef parseDatasetRef(const std::string& text, const std::string& what) {
    const std::size_t colon = text.rfind(":/");
    if (colon == std::string::npos || colon == 0)
        throw CliError(what +
                       " must be FILE.h5:/path/to/dataset, FILE.npy, FILE.npz:KEY, FILE.pt[:KEY] or "
                       "FILE.safetensors[:KEY], got '" +
                       text + "'");
    return DatasetRef{text.substr(0, colon), text.substr(colon + 1)};
}

bool stderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

std::string formatNumber(double v, int significant) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return printfText("%.*g", significant, v);
}

std::string formatMetric(const metrics::MetricField& f, const metrics::ComparisonMetrics& m, int significant) {
    const std::optional<double> v = f.value(m);
    if (!v) return "-";
    switch (f.format) {
        case metrics::FieldFormat::Count: return std::to_string(static_cast<int64_t>(*v));
        case metrics::FieldFormat::Cosine: return formatNumber(*v, 9);
        case metrics::FieldFormat::Share: return formatPercent(*v);
        case metrics::FieldFormat::Real:
        case metrics::FieldFormat::Ulp: return formatNumber(*v, significant);
    }
    return "-";
}

std::string formatPercent(double share) { return printfText("%.3f%%", share * 100.0); }

std::string formatBytes(uint64_t bytes) {
    if (bytes < 1024) return printfText("%llu B", static_cast<unsigned long long>(bytes));
    if (bytes < 1024ull * 1024) return printfText("%.0f KiB", static_cast<double>(bytes) / 1024);
    return printfText("%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024));
}

std::string tensorText(DType dtype, const std::vector<int64_t>& shape) {
    return std::string(dtypeName(dtype)) + shapeToString(shape);
}

std::string tensorText(const std::string& typeName, const std::vector<int64_t>& shape) {
    return typeName + shapeToString(shape);
}

DType parseFloatDtype(const std::string& text) {
    const DType d = dtypeFromName(text);
    if (d == DType::Float32 || d == DType::Float16 || d == DType::BFloat16 || d == DType::Float64) return d;
    throw CliError("unknown --dtype '" + text + "': use float32 (fp32), float16 (fp16), bfloat16 (bf16) or float64");
}

std::string requiredOutput(const ParsedArgs& a, const std::string& command, const std::string& names,
                           const std::string& extension) {
    if (!a.has("-o")) throw CliError("'" + command + "' needs -o " + names);
    const std::string out = a.value("-o");
    const std::size_t n = extension.size();
    if (n && (out.size() <= n || out.compare(out.size() - n, n, extension) != 0))
        throw CliError("-o '" + out + "' must end in " + extension);
    return out;
}

void checkOutputPath(const std::string& output, const std::vector<std::string>& inputs, const std::string& what) {
    std::vector<std::filesystem::path> paths(inputs.begin(), inputs.end());
    try {
        h5::AtomicFileWriter probe(output, paths);  // validates only: nothing is created
    } catch (const std::exception& e) {
        throw CliError(what + ": " + e.what());
    }
}

void requireReadableFile(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) throw CliError("no file '" + path + "'");
    if (std::filesystem::is_directory(status)) throw CliError("'" + path + "' is a directory, not an HDF5 file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CliError("cannot read '" + path + "': permission denied");
}

void requireSafeFile(const std::string& path, const std::vector<std::string>& dataPaths) {
    requireReadableFile(path);
    h5::vetFile(path, dataPaths);
}

void requireSafeCases(const std::string& path, const std::vector<std::string>& casePaths) {
    constexpr std::size_t kMaxListedBytes = 256 * 1024;  // well under the kernel's ARG_MAX
    std::size_t bytes = 0;
    for (const std::string& c : casePaths) bytes += c.size() + 8;
    if (!casePaths.empty()) requireSafeFile(path, bytes > kMaxListedBytes ? std::vector<std::string>{"/"} : casePaths);
}

namespace {

// The file of `ref`, vetted (requireSafeFile) and opened, with a dataset at its path.
std::shared_ptr<const h5::File> openDataset(const DatasetRef& ref, const std::string& what) {
    requireSafeFile(ref.file, {ref.path});
    auto f = std::make_shared<const h5::File>(h5::File::openReadOnly(ref.file));
    const h5::ObjectKind kind = f->info(ref.path).kind;
    if (kind == h5::ObjectKind::Missing) throw CliError(what + ": no dataset '" + ref.path + "' in '" + ref.file + "'");
    if (kind != h5::ObjectKind::Dataset)
        throw CliError(what + ": '" + ref.path + "' in '" + ref.file + "' is a " + h5::kindName(kind) +
                       ", not a dataset");
    return f;
}

// `read` with its file's errors as CliErrors naming `what` (which side of a compare, which --bind).
template <class Read>
auto namingErrors(const std::string& what, Read&& read) {
    try {
        return read();
    } catch (const FileError& e) {
        throw CliError(what + ": " + e.what());
    }
}

}  // namespace

HostTensor readDatasetTensor(const DatasetRef& ref, const std::string& what) {
    return h5::readTensor(*openDataset(ref, what), ref.path);
}

HostTensor readTensorArgument(const std::string& target, const std::string& what, std::vector<std::string>* files) {
    const ops::TensorHandle t = openTensorArgument(target, what, files);
    return t.read();
}

ops::TensorHandle openTensorArgument(const std::string& target, const std::string& what,
                                     std::vector<std::string>* files) {
    if (import::isTensorFileSpec(target)) {
        return namingErrors(what, [&] {
            const auto file = std::make_shared<const import::TensorFile>(target);
            const std::string key = target.size() > file->path().size() ? target.substr(file->path().size() + 1) : "";
            const import::TensorEntry entry = file->entry(key);
            if (files) files->push_back(file->path());
            return ops::TensorHandle{
                entry.dtype, entry.shape,
                [file, key, what] { return namingErrors(what, [&] { return file->read(key); }); },
                [file, key, what](const std::vector<int64_t>& start, const std::vector<int64_t>& count) {
                    return namingErrors(what, [&] { return file->readBlock(key, start, count); });
                }};
        });
    }
    const DatasetRef ref = parseDatasetRef(target, what);
    if (files) files->push_back(ref.file);
    return namingErrors(what, [&] {
        const std::shared_ptr<const h5::File> f = openDataset(ref, what);  // CliError passes through
        const h5::DatasetInfo info = h5::datasetInfo(*f, ref.path);
        const std::string path = ref.path;
        return ops::TensorHandle{
            info.dtype, info.shape,
            [f, path, what] { return namingErrors(what, [&] { return h5::readTensor(*f, path); }); },
            [f, path, what](const std::vector<int64_t>& start, const std::vector<int64_t>& count) {
                return namingErrors(what, [&] { return h5::readTensorBlock(*f, path, start, count); });
            }};
    });
}

std::optional<long> parseWholeNumber(const std::string& text, long min, long max) {
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || n < min || n > max) return std::nullopt;
    return n;
}

std::optional<bool> parseTrueFalse(const std::string& text) {
    std::string l = text;
    std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (l == "true") return true;
    if (l == "false") return false;
    return std::nullopt;
}

Product parseProductOption(const std::string& text) {
    Product p;
    if (!parseProduct(text, &p)) throw CliError("unknown --product '" + text + "': use a2, a3, training or inference");
    return p;
}

int parseJobs(const std::string& text) {
    const std::optional<long> n = parseWholeNumber(text, 1, 1024);
    if (!n) throw CliError("--jobs must be a whole number from 1 to 1024, got '" + text + "'");
    return static_cast<int>(*n);
}

std::optional<Shard> shardNamed(const std::string& text) {
    const std::size_t slash = text.find('/');
    char* end = nullptr;
    const long i = slash == std::string::npos ? -1 : std::strtol(text.c_str(), &end, 10);
    const bool iOk = slash != std::string::npos && slash > 0 && end == text.c_str() + slash;
    const long n = iOk ? std::strtol(text.c_str() + slash + 1, &end, 10) : 0;
    if (!iOk || slash + 1 == text.size() || end != text.c_str() + text.size() || n < 1 || i < 0 || i >= n ||
        n > kMaxShards)
        return std::nullopt;
    return Shard{static_cast<int>(i), static_cast<int>(n)};
}

void parseShard(const std::string& text, int* index, int* count) {
    const std::optional<Shard> s = shardNamed(text);
    if (!s) throw CliError("--shard must be I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'");
    *index = s->index;
    *count = s->count;
}

}  // namespace opscope::cli
