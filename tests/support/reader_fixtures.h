// The reader fixtures of datasets/msprobe/readers (written by generate_msprobe_dumps.py with
// PyTorch and numpy): each tensor file, its key, dtype and shape, and the C-order little-endian
// bytes numpy wrote beside it (manifest.txt).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace opscope::test {

inline std::filesystem::path readersDir() {
    if (const char* env = std::getenv("OPSCOPE_DATASETS")) return std::filesystem::path(env) / "msprobe" / "readers";
    return std::filesystem::path(OPSCOPE_SOURCE_DIR) / "datasets" / "msprobe" / "readers";
}

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

struct ReaderFixture {
    std::string file, key, dtype, bytesFile;
    std::vector<int64_t> shape;
};

inline std::vector<ReaderFixture> manifest() {
    std::vector<ReaderFixture> out;
    std::ifstream in(readersDir() / "manifest.txt");
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        ReaderFixture f;
        std::string shape;
        ls >> f.file >> f.key >> f.dtype >> shape >> f.bytesFile;
        if (f.key == "-") f.key.clear();
        if (shape != "-") {
            std::istringstream ss(shape);
            for (std::string d; std::getline(ss, d, ',');) f.shape.push_back(std::stoll(d));
        }
        out.push_back(f);
    }
    return out;
}

}  // namespace opscope::test
