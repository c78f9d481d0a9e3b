// Reproducers: the program calls each operator with its official prototype (read from the header
// a user compiles against), and the parts of a call the C API takes but the case leaves out
// (an absent optional tensor, an output the mask turns off) are there in the right places.
// Building and running the programs: tests/sdk/run_repro.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

#include "opscope/h5/h5_file.h"
#include "opscope/ops/case_runner.h"
#include "opscope/ops/operator.h"
#include "opscope/ops/repro.h"

namespace opscope::ops {
namespace {

std::string fileText(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The parameter names of `function` in a C header: the last identifier of each parameter.
std::vector<std::string> parameterNames(const std::string& header, const std::string& function) {
    const std::size_t start = header.find(function + "(");
    if (start == std::string::npos) return {};
    const std::size_t open = start + function.size() + 1, close = header.find(')', open);
    std::vector<std::string> names;
    std::stringstream params(header.substr(open, close - open));
    std::string p;
    const std::regex last(R"(([A-Za-z_][A-Za-z0-9_]*)\s*$)");
    while (std::getline(params, p, ',')) {
        std::smatch m;
        if (std::regex_search(p, m, last)) names.push_back(m[1]);
    }
    return names;
}

TEST(Repro, EverySchemaListsItsArgumentsInTheOfficialPrototypesOrder) {
    ASSERT_EQ(allOperators().size(), 4u);
    for (const Operator* op : allOperators()) {
        const OpSchema& s = op->schema();
        const std::string header =
            fileText(std::string(OPSCOPE_SOURCE_DIR) + "/ops/include/aclnnop/aclnn_" + s.shortName + ".h");
        ASSERT_FALSE(header.empty()) << s.shortName;
        std::vector<std::string> schemaOrder;
        for (const ArgSpec& t : s.tensors) schemaOrder.push_back(t.name);
        for (const ArgSpec& a : s.attributes) schemaOrder.push_back(a.name);
        for (const OutputSpec& o : s.outputs) schemaOrder.push_back(o.name);
        schemaOrder.push_back("workspaceSize");
        schemaOrder.push_back("executor");
        EXPECT_EQ(parameterNames(header, s.name + "GetWorkspaceSize"), schemaOrder) << s.name;
    }
}

cases::Case datasetCase(const std::string& file, const std::string& path) {
    const h5::File f = h5::File::openReadOnly(std::string(OPSCOPE_SOURCE_DIR) + "/datasets/" + file);
    return cases::readCase(f, path);
}

std::string programOf(const cases::Case& c) {
    const Operator* op = findOperator(c.op);
    const std::unique_ptr<PreparedCall> call = op->prepare(bindArguments(*op, c));
    return reproProgram(*op, call->arguments(), *call, "a test");
}

TEST(Repro, AnAbsentOptionalTensorIsANullArgument) {
    const std::string p = programOf(datasetCase("group_norm_backward.h5", "/group_norm_backward/fp32/no_gamma"));
    EXPECT_NE(p.find("rstd.tensor,\n        nullptr,\n        N,"), std::string::npos) << p;
    EXPECT_EQ(p.find("Tensor gamma"), std::string::npos);
}

TEST(Repro, AnOutputTheMaskTurnsOffIsPassedWhereTheApiNeedsItAndNeverSaved) {
    // GridSampler2DBackward takes both outputs whatever the mask says; the convolution takes null.
    const std::string grid =
        programOf(datasetCase("grid_sampler2d_backward.h5", "/grid_sampler2d_backward/fp32/mask_grid_only"));
    EXPECT_NE(grid.find("Tensor inputGrad = makeOutput(ACL_FLOAT, {2, 3, 6, 5}, ACL_FORMAT_ND);"), std::string::npos);
    EXPECT_EQ(grid.find("saveOutput(folder, \"inputGrad\""), std::string::npos);
    EXPECT_NE(grid.find("saveOutput(folder, \"gridGrad\", gridGrad);"), std::string::npos);

    const std::string conv =
        programOf(datasetCase("convolution_backward.h5", "/convolution_backward/fp32/conv2d_weight_only"));
    EXPECT_NE(conv.find("cubeMathType,\n        nullptr,\n        gradWeight.tensor,\n        gradBias.tensor,"),
              std::string::npos)
        << conv;
    EXPECT_NE(conv.find("ACL_FORMAT_NCHW"), std::string::npos);  // the documented formats, not ND
}

TEST(Repro, AFolderIsWholeOrAbsentAndNeverReplacesOne) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("opscope_repro_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const cases::Case c = datasetCase("rms_norm_grad.h5", "/rms_norm_grad/fp32/basic");
    const ReproExport r = exportRepro(c, dir.string(), "a test");
    EXPECT_EQ(r.op, "aclnnRmsNormGrad");
    EXPECT_EQ(r.outputs, (std::vector<std::string>{"dxOut", "dgammaOut"}));
    for (const std::string& f : r.files) EXPECT_TRUE(std::filesystem::is_regular_file(dir / f)) << f;
    EXPECT_TRUE(std::filesystem::is_directory(dir / kReproOutputs));
    EXPECT_THROW(exportRepro(c, dir.string(), "a test"), UsageError);
    // Nothing ran yet: the outputs are missing, in a sentence naming the file.
    cases::Case back = c;
    try {
        attachReproOutputs(back, dir.string());
        ADD_FAILURE() << "no outputs, yet attached";
    } catch (const ContentError& e) {
        EXPECT_NE(std::string(e.what()).find("dxOut.npy' is missing"), std::string::npos) << e.what();
    }
    // expected/ holds what the program writes: attached as the device source, the case judges.
    std::filesystem::copy(dir / kReproExpected, dir / kReproOutputs,
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
    attachReproOutputs(back, dir.string());
    ASSERT_NE(back.source("npu"), nullptr);
    EXPECT_EQ(back.source("npu")->role, cases::SourceRole::Actual);
    EXPECT_EQ(back.source("npu")->tensors.size(), 2u);
    const CaseResult result = runCase(back, "", {});
    EXPECT_TRUE(result.passed()) << result.error;
    EXPECT_EQ(result.deviceVerdict().kind, DeviceVerdict::Kind::Agree);
    std::filesystem::remove_all(dir);
}

TEST(Repro, ACallTheEmulationRejectsLeavesNoFolderBehind) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("opscope_repro_rejected_" + std::to_string(::getpid()));
    const Product before = currentProduct();
    setProduct(Product::AtlasTraining);  // no bfloat16 there
    EXPECT_THROW(exportRepro(datasetCase("rms_norm_grad.h5", "/rms_norm_grad/bf16/basic"), dir.string(), "a test"),
                 StatusError);
    setProduct(before);
    EXPECT_FALSE(std::filesystem::exists(dir));
    EXPECT_FALSE(std::filesystem::exists(dir.string() + ".tmp-" + std::to_string(::getpid())));
}

TEST(Repro, ABundleStoppedHalfWayLeavesNothingAndEachFolderNameIsUnique) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("opscope_repro_bundle_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const cases::Case c = datasetCase("rms_norm_grad.h5", "/rms_norm_grad/fp32/basic");
    ReproBundleWork work;
    work.count = 3;
    work.caseAt = [&](std::size_t) { return c; };  // three times the same path: three folders
    std::size_t asked = 0;
    work.cancelled = [&] { return ++asked > 2; };  // stop before the third
    EXPECT_THROW(exportReproBundle(work, dir.string(), "a test"), Cancelled);
    EXPECT_FALSE(std::filesystem::exists(dir));
    EXPECT_FALSE(std::filesystem::exists(dir.string() + ".tmp-" + std::to_string(::getpid())));

    work.cancelled = {};
    const std::vector<ReproBundleEntry> entries = exportReproBundle(work, dir.string(), "a test");
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[0].folder, "rms_norm_grad_fp32_basic");
    EXPECT_EQ(entries[1].folder, "rms_norm_grad_fp32_basic-2");
    EXPECT_EQ(entries[2].folder, "rms_norm_grad_fp32_basic-3");
    EXPECT_EQ(reproFoldersOf(dir.string()).size(), 3u);
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / "run_all.sh"));
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace opscope::ops
