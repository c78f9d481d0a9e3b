// Every case of every bundled dataset (datasets/*.h5) through the operator registry, exactly
// as `opscope-cli run` runs it: each output is held to the operator's default standard against
// OpScope's float64 golden and against PyTorch's float64 expected outputs (both rounded to the
// output dtype). A case whose operator is not registered fails, naming the operator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "opscope/case_file.h"
#include "opscope/h5/h5_file.h"

// The CLI's case runner, compiled into this test so CTest judges what the CLI judges.
#include "opscope/ops/case_runner.h"

namespace fs = std::filesystem;
using namespace opscope;

namespace {

fs::path datasetsDir() {
    if (const char* env = std::getenv("OPSCOPE_DATASETS")) return env;
    return fs::path(OPSCOPE_SOURCE_DIR) / "datasets";
}

std::vector<fs::path> bundledFiles() {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(datasetsDir(), ec))
        if (entry.is_regular_file() && entry.path().extension() == ".h5") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

struct BundledCase {
    std::string file;
    std::string path;
};

void PrintTo(const BundledCase& c, std::ostream* os) { *os << c.file << ":" << c.path; }

std::vector<BundledCase> bundledCases() {
    std::vector<BundledCase> out;
    for (const fs::path& file : bundledFiles()) {
        try {
            const h5::File f = h5::File::openReadOnly(file.string());
            for (const std::string& p : cases::findCases(f)) out.push_back({file.string(), p});
        } catch (const std::exception&) {
            out.push_back({file.string(), "<unreadable>"});  // reported by the test itself
        }
    }
    return out;
}

std::string testName(const testing::TestParamInfo<BundledCase>& info) {
    std::string name = fs::path(info.param.file).stem().string() + info.param.path;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

class BundledDataset : public testing::TestWithParam<BundledCase> {};

}  // namespace

TEST(BundledDatasets, EveryOperatorHasADatasetWithCases) {
    std::set<std::string> names;
    for (const fs::path& f : bundledFiles()) names.insert(f.filename().string());
    for (const char* expected :
         {"group_norm_backward.h5", "rms_norm_grad.h5", "convolution_backward.h5", "grid_sampler2d_backward.h5"})
        EXPECT_TRUE(names.count(expected)) << "missing datasets/" << expected << " in " << datasetsDir();
    for (const fs::path& f : bundledFiles()) {
        const h5::File file = h5::File::openReadOnly(f.string());
        EXPECT_EQ(file.readAttribute<std::string>("/", "opscope_format"), "cases") << f;
        EXPECT_GE(cases::findCases(file).size(), 10u) << f;
    }
}

TEST_P(BundledDataset, PassesItsStandard) {
    const BundledCase& bc = GetParam();
    const h5::File f = h5::File::openReadOnly(bc.file);
    const cases::Case c = cases::readCase(f, bc.path);
    const ops::CaseResult r = ops::runCase(c, bc.file, {});
    ASSERT_TRUE(r.ok()) << bc.file << ":" << bc.path << ": " << r.error;
    EXPECT_EQ(r.standard, metrics::defaultStandardName(r.op));
    ASSERT_FALSE(r.outputs.empty());
    for (const ops::OutputSummary& o : r.outputs) {
        // Every output is judged against the golden and against PyTorch's expected output.
        int golden = 0, expected = 0;
        for (const ops::Comparison& cmp : r.comparisons) {
            if (cmp.output != o.name) continue;
            golden += cmp.reference == "golden";
            expected += cmp.reference == "expected";
        }
        EXPECT_EQ(golden, 1) << o.name;
        EXPECT_EQ(expected, 1) << o.name << ": the case has no expected/" << o.name;
    }
    for (const ops::Comparison& cmp : r.comparisons) {
        EXPECT_TRUE(cmp.judged) << cmp.output;
        EXPECT_TRUE(cmp.judgement.passed())
            << bc.path << " " << cmp.output << " (" << cmp.actual << " vs " << cmp.reference
            << "): " << cmp.judgement.standard << ": " << cmp.judgement.reason;
        EXPECT_EQ(cmp.metrics.nonFiniteMismatches, 0) << cmp.output;
    }
}

INSTANTIATE_TEST_SUITE_P(Bundled, BundledDataset, testing::ValuesIn(bundledCases()), testName);
