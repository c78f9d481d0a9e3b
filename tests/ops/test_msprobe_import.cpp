// The msprobe importer on the committed dumps (datasets/msprobe, generate_msprobe_dumps.py):
// every supported call imports with the parameters PyTorch used, the calls that cannot be
// replayed are listed with their reason, and running the imported cases judges the device's
// gradients: the one deliberately wrong gradient fails, and only it.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "sanitizers.h"
#include "opscope/file_text.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/import/format_error.h"
#include "opscope/import/msprobe.h"
#include "opscope/metrics.h"
#include "opscope/ops/case_runner.h"
#include "scratch_dir.h"

namespace fs = std::filesystem;
using namespace opscope;
namespace msprobe = opscope::import::msprobe;

namespace {

fs::path dumps() {
    if (const char* env = std::getenv("OPSCOPE_DATASETS")) return fs::path(env) / "msprobe";
    return fs::path(OPSCOPE_SOURCE_DIR) / "datasets" / "msprobe";
}

std::map<std::string, cases::Case> byCall(const std::vector<cases::Case>& cs) {
    std::map<std::string, cases::Case> out;
    const std::string rank0 = "/msprobe/step0/rank0/";
    for (const cases::Case& c : cs) out[c.path.rfind(rank0, 0) == 0 ? c.path.substr(rank0.size()) : c.path] = c;
    return out;
}

ParamValue param(const cases::Case& c, const std::string& name) {
    for (const Param& p : c.params)
        if (p.name == name) return p.value;
    ADD_FAILURE() << c.path << " has no parameter " << name;
    return ParamValue{};
}

using Ints = std::vector<int64_t>;
using Bools = std::vector<bool>;

const msprobe::Skipped* skipped(const msprobe::ImportSummary& s, const std::string& call) {
    for (const msprobe::Skipped& k : s.skipped)
        if (k.call == call) return &k;
    return nullptr;
}

}  // namespace

TEST(MsprobeImport, FindsRankFoldersFromAnyLevel) {
    const auto all = msprobe::findDumpFolders((dumps() / "dump_l1").string());
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].label(), "step0/rank0");
    EXPECT_EQ(all[1].label(), "step0/rank1");
    EXPECT_EQ(msprobe::findDumpFolders((dumps() / "dump_l1" / "step0").string()).size(), 2u);
    EXPECT_EQ(msprobe::findDumpFolders((dumps() / "dump_l1" / "step0" / "rank1").string()).size(), 1u);
    EXPECT_EQ(msprobe::findDumpFolders((dumps() / "dump_l1").string(), "0", "1").at(0).rank, "rank1");
    EXPECT_CONTAINS(opscope::test::errorOf<import::FormatError>(
                        [] { msprobe::findDumpFolders((dumps() / "dump_l1").string(), "", "rank7"); }),
                    "there are: step0/rank0, step0/rank1");
    EXPECT_CONTAINS(
        opscope::test::errorOf<import::FormatError>([] { msprobe::findDumpFolders(dumps().string() + "/readers"); }),
        "no dump.json");
}

TEST(MsprobeImport, L1CallsImportWithPyTorchsParameters) {
    msprobe::ImportSummary s;
    const auto cs = byCall(msprobe::importCases((dumps() / "dump_l1").string(), {}, &s));
    // 19 supported calls on rank0 (relu, linear and add are not) plus one on rank1.
    EXPECT_EQ(s.supported, 20u);
    EXPECT_EQ(s.imported.size(), 16u);
    EXPECT_EQ(s.skipped.size(), 4u);
    ASSERT_TRUE(cs.count("Functional.conv2d.0"));
    EXPECT_EQ(cs.at("Functional.conv2d.0").path, "/msprobe/step0/rank0/Functional.conv2d.0");
    // positional stride=1, padding=1, with bias
    const cases::Case& c0 = cs.at("Functional.conv2d.0");
    EXPECT_EQ(c0.op, "aclnnConvolutionBackward");
    EXPECT_EQ(std::get<Ints>(param(c0, "stride")), (Ints{1, 1}));
    EXPECT_EQ(std::get<Ints>(param(c0, "padding")), (Ints{1, 1}));
    EXPECT_EQ(std::get<Ints>(param(c0, "biasSizes")), (Ints{6}));
    EXPECT_EQ(std::get<Bools>(param(c0, "outputMask")), (Bools{true, true, true}));
    ASSERT_NE(c0.source("npu"), nullptr);
    EXPECT_EQ(c0.source("npu")->role, cases::SourceRole::Actual);
    EXPECT_NE(c0.source("npu")->find("gradBias"), nullptr);
    // keywords: tuples, groups, bias=None -> no gradBias
    const cases::Case& c1 = cs.at("Functional.conv2d.1");
    EXPECT_EQ(std::get<Ints>(param(c1, "stride")), (Ints{2, 1}));
    EXPECT_EQ(std::get<Ints>(param(c1, "padding")), (Ints{1, 0}));
    EXPECT_EQ(std::get<Ints>(param(c1, "dilation")), (Ints{1, 2}));
    EXPECT_EQ(std::get<int64_t>(param(c1, "groups")), 2);
    EXPECT_EQ(std::get<Bools>(param(c1, "outputMask")), (Bools{true, true, false}));
    // padding='same' with a 4x3 kernel: 3 rows split 1 + 2, 2 columns split 1 + 1
    EXPECT_EQ(std::get<Ints>(param(cs.at("Functional.conv2d.2"), "padding")), (Ints{1, 2, 1, 1}));
    EXPECT_EQ(std::get<Ints>(param(cs.at("Functional.conv1d.0"), "padding")), (Ints{0}));
    EXPECT_EQ(cs.at("Functional.conv1d.0").input("input")->dtype(), DType::Float16);
    EXPECT_EQ(std::get<Ints>(param(cs.at("Torch.conv3d.0"), "stride")), (Ints{1, 2, 1}));
    EXPECT_EQ(cs.at("Torch.conv3d.0").input("weight")->dtype(), DType::BFloat16);
    const cases::Case& t = cs.at("Functional.conv_transpose2d.0");
    EXPECT_TRUE(std::get<bool>(param(t, "transposed")));
    EXPECT_EQ(std::get<Ints>(param(t, "stride")), (Ints{2, 2}));
    EXPECT_EQ(std::get<Ints>(param(t, "outputPadding")), (Ints{1, 1}));
    // group_norm: shapes give N, C, HxW; mean/rstd are inputs in the input's dtype
    const cases::Case& g0 = cs.at("Functional.group_norm.0");
    EXPECT_EQ(g0.op, "aclnnGroupNormBackward");
    EXPECT_EQ(std::get<int64_t>(param(g0, "N")), 2);
    EXPECT_EQ(std::get<int64_t>(param(g0, "C")), 6);
    EXPECT_EQ(std::get<int64_t>(param(g0, "HxW")), 12);
    EXPECT_EQ(std::get<int64_t>(param(g0, "group")), 3);
    EXPECT_EQ(g0.input("mean")->shape(), (Ints{2, 3}));
    const cases::Case& g1 = cs.at("Functional.group_norm.1");  // no affine, positional eps 1e-6, fp16
    EXPECT_EQ(g1.input("gamma"), nullptr);
    EXPECT_EQ(std::get<Bools>(param(g1, "outputMask")), (Bools{true, false, false}));
    EXPECT_EQ(g1.input("rstd")->dtype(), DType::Float16);
    EXPECT_NE(g1.description.find("eps 1e-06"), std::string::npos) << g1.description;
    EXPECT_EQ(cs.at("Torch.group_norm.0").input("input")->dtype(), DType::BFloat16);
    // npu_rms_norm: the device's rstd (forward output 1)
    const cases::Case& r1 = cs.at("NPU.npu_rms_norm.1");
    EXPECT_EQ(r1.op, "aclnnRmsNormGrad");
    EXPECT_EQ(r1.input("rstd")->dtype(), DType::Float32);
    EXPECT_EQ(r1.input("rstd")->shape(), (Ints{4, 1, 1}));
    EXPECT_EQ(r1.input("gamma")->shape(), (Ints{3, 8}));
    // grid_sample: defaults, keywords, positionals
    const cases::Case& s0 = cs.at("Functional.grid_sample.0");
    EXPECT_EQ(std::get<std::string>(param(s0, "interpolationMode")), "bilinear");
    EXPECT_EQ(std::get<std::string>(param(s0, "paddingMode")), "zeros");
    EXPECT_FALSE(std::get<bool>(param(s0, "alignCorners")));
    const cases::Case& s1 = cs.at("Functional.grid_sample.1");
    EXPECT_EQ(std::get<std::string>(param(s1, "interpolationMode")), "bicubic");
    EXPECT_EQ(std::get<std::string>(param(s1, "paddingMode")), "border");
    EXPECT_TRUE(std::get<bool>(param(s1, "alignCorners")));
    EXPECT_EQ(std::get<std::string>(param(cs.at("Functional.grid_sample.2"), "interpolationMode")), "nearest");
    EXPECT_EQ(std::get<std::string>(param(cs.at("Functional.grid_sample.2"), "paddingMode")), "reflection");
    EXPECT_TRUE(cs.count("/msprobe/step0/rank1/Functional.group_norm.0"));
    EXPECT_EQ(s.imported.back(), "/msprobe/step0/rank1/Functional.group_norm.0");
}

TEST(MsprobeImport, CallsThatCannotBeReplayedAreListedWithTheirReason) {
    msprobe::ImportSummary s;
    msprobe::importCases((dumps() / "dump_l1").string(), {}, &s);
    struct Expect {
        const char* call;
        const char* reason;
    } expected[] = {
        {"step0/rank0/Functional.conv2d.3", "statistics only"},
        {"step0/rank0/Functional.conv2d.5", "Functional.conv2d.5.forward.input.1.pt"},
        {"step0/rank0/Functional.group_norm.2", "missing file"},
        {"step0/rank0/Functional.grid_sample.3", "5-D grid_sample"},
    };
    for (const Expect& e : expected) {
        const msprobe::Skipped* k = skipped(s, e.call);
        ASSERT_NE(k, nullptr) << e.call;
        EXPECT_CONTAINS(k->reason, e.reason);
    }
    EXPECT_EQ(skipped(s, "step0/rank0/Functional.relu.0"), nullptr);  // unrelated APIs are not listed
}

TEST(MsprobeImport, OnlyTheWrongDeviceGradientFails) {
    msprobe::ImportSummary s;
    const auto cs = msprobe::importCases((dumps() / "dump_l1").string(), {}, &s);
    int deviceComparisons = 0;
    for (const cases::Case& c : cs) {
        SCOPED_TRACE(c.path);
        const ops::CaseResult r = ops::runCase(c, "", {});
        ASSERT_TRUE(r.ok()) << r.error;
        for (const ops::Comparison& cmp : r.comparisons) {
            if (cmp.actual != "npu") continue;
            ++deviceComparisons;
            const bool wrong = c.path.find("Functional.conv2d.4") != std::string::npos && cmp.output == "gradWeight";
            EXPECT_EQ(cmp.judgement.passed(), !wrong) << c.path << " " << cmp.output << ": " << cmp.judgement.reason;
        }
        const ops::DeviceVerdict v = r.deviceVerdict();
        const bool wrong = c.path.find("Functional.conv2d.4") != std::string::npos;
        EXPECT_EQ(v.kind, wrong ? ops::DeviceVerdict::Kind::DeviceFails : ops::DeviceVerdict::Kind::Agree) << v.line;
        if (wrong) EXPECT_CONTAINS(v.line, "gradWeight");
    }
    EXPECT_GE(deviceComparisons, 40);
}

// The fixtures' device runs torch_npu's defaults: its float32 convolutions multiply HF32
// operands. Imported as allow_hf32 off (cubeMathType 0), those calls fail the float32 golden;
// the verdict says the device ran other settings, not that it is wrong, and the one wrong
// gradient (Functional.conv2d.4) is wrong in both arithmetics.
TEST(MsprobeImport, AConvolutionImportedWithTheOtherAllowHf32SaysSo) {
    msprobe::ImportSummary s;
    msprobe::ImportOptions hf32Off;
    hf32Off.device.convAllowHf32 = false;
    int otherSettings = 0;
    for (const cases::Case& c : msprobe::importCases((dumps() / "dump_l1").string(), hf32Off, &s)) {
        if (c.op != "aclnnConvolutionBackward") continue;
        SCOPED_TRACE(c.path);
        EXPECT_EQ(std::get<int64_t>(param(c, "cubeMathType")), 0);
        const ops::CaseResult r = ops::runCase(c, "", {});
        ASSERT_TRUE(r.ok()) << r.error;
        const ops::DeviceVerdict v = r.deviceVerdict();
        const bool float32 = r.caseDtype == DType::Float32;
        const bool wrong = c.path.find("Functional.conv2d.4") != std::string::npos;
        using K = ops::DeviceVerdict::Kind;
        EXPECT_EQ(v.kind, wrong ? K::DeviceFails : float32 ? K::OtherSettings : K::Agree) << v.line;
        if (v.kind == K::OtherSettings) {
            ++otherSettings;
            EXPECT_CONTAINS(v.line, "with HF32 operands (cubeMathType 3, USE_HF32) every device output passes");
            EXPECT_CONTAINS(v.line, "without --conv-allow-hf32 false");
        }
    }
    EXPECT_EQ(otherSettings, 4);  // conv2d.0, .1, .2 and conv_transpose2d.0
    for (const cases::Case& c : msprobe::importCases((dumps() / "dump_l1").string(), {}, &s))
        if (c.op == "aclnnConvolutionBackward") EXPECT_EQ(std::get<int64_t>(param(c, "cubeMathType")), 3) << c.path;
}

// op-plugin's CalcuOpUtil::GetCubeMathType with each product's default precision mode:
// must_keep_origin_dtype from Ascend 910B on, allow_fp32_to_fp16 before.
TEST(MsprobeImport, ConvolutionsGetTheCubeMathTypeTorchNpuPassesOnTheDevice) {
    const std::vector<std::tuple<Product, bool, int>> rows = {
        {Product::AtlasA2, true, 3},        {Product::AtlasA2, false, 0},       {Product::AtlasA3, true, 3},
        {Product::AtlasA3, false, 0},       {Product::AtlasTraining, true, 1},  {Product::AtlasTraining, false, 2},
        {Product::AtlasInference, true, 1}, {Product::AtlasInference, false, 2}};
    for (const auto& [product, allowHf32, mode] : rows) {
        msprobe::DeviceSettings d;
        d.product = product;
        d.convAllowHf32 = allowHf32;
        EXPECT_EQ(msprobe::torchNpuCubeMathType(d), mode) << productId(product) << " allow_hf32 " << allowHf32;
    }
}

namespace {

// Runs `c` on `product`, as `run` does for a file recorded on it.
ops::CaseResult runOn(const cases::Case& c, Product product) {
    setProduct(product);
    ops::CaseResult r = ops::runCase(c, "", {});
    setProduct(Product::AtlasA2);
    return r;
}

}  // namespace

// The fixtures' device is an A2 (HF32 operands). Imported as the training series, the file says
// so, its float32 convolutions get torch_npu's cubeMathType there (1: fp16 operands), and on that
// product the verdict names the A2 arithmetic the device ran instead of blaming the device.
TEST(MsprobeImport, ADumpImportedAsAnotherDeviceSaysWhichItCameFrom) {
    opscope::test::ScratchDir dir("msprobe");
    msprobe::ImportOptions training;
    training.device.product = Product::AtlasTraining;
    const msprobe::ImportSummary s =
        msprobe::importDump((dumps() / "dump_l1").string(), dir.file("training.h5"), training);
    EXPECT_EQ(s.bfloat16Calls, 2u);  // Torch.conv3d.0 and Torch.group_norm.0: only an A2/A3 has bfloat16
    EXPECT_CONTAINS(msprobe::deviceMismatch(s, training.device), "2 calls hold bfloat16 tensors");
    EXPECT_EQ(msprobe::deviceMismatch(s, {}), "");
    const h5::File f = h5::File::openReadOnly(dir.file("training.h5"));
    EXPECT_EQ(cases::recordedProductOf(f), Product::AtlasTraining);
    int otherDevice = 0;
    for (const std::string& path : cases::findCases(f)) {
        const cases::Case c = cases::readCase(f, path);
        EXPECT_EQ(c.product, Product::AtlasTraining) << path;
        if (c.op != "aclnnConvolutionBackward") continue;
        SCOPED_TRACE(path);
        EXPECT_EQ(std::get<int64_t>(param(c, "cubeMathType")), 1);
        const ops::CaseResult r = runOn(c, Product::AtlasTraining);
        if (!r.ok() || r.caseDtype != DType::Float32 || path.find("conv2d.4") != std::string::npos) continue;
        const ops::DeviceVerdict v = r.deviceVerdict();
        EXPECT_EQ(v.kind, ops::DeviceVerdict::Kind::OtherSettings) << v.line;
        EXPECT_CONTAINS(v.line, "with HF32 operands, as Atlas A2/A3 multiply float32 (cubeMathType 3, USE_HF32)");
        EXPECT_CONTAINS(v.line, "import it with --product a2");
        ++otherDevice;
    }
    EXPECT_EQ(otherDevice, 4);  // conv2d.0, .1, .2 and conv_transpose2d.0
    // The A2 import records its product too.
    msprobe::importDump((dumps() / "dump_l1").string(), dir.file("a2.h5"), {});
    EXPECT_EQ(cases::recordedProductOf(h5::File::openReadOnly(dir.file("a2.h5"))), Product::AtlasA2);
}

// The reverse: a training-series device's gradients (fp16 operands) in a dump imported as A2.
TEST(MsprobeImport, ATrainingSeriesDeviceImportedAsA2SaysSo) {
    msprobe::ImportSummary s;
    cases::Case c = byCall(msprobe::importCases((dumps() / "dump_l1").string(), {}, &s)).at("Functional.conv2d.0");
    ASSERT_EQ(std::get<int64_t>(param(c, "cubeMathType")), 3);
    const ops::Operator* op = ops::findOperator(c.op);
    ASSERT_NE(op, nullptr);
    ops::OpArguments fp16 = ops::bindArguments(*op, c);
    fp16.attributes["cubeMathType"] = int64_t{1};
    const std::map<std::string, HostTensor> device = op->reference(fp16, Product::AtlasTraining);
    for (cases::OutputSource& source : c.sources)
        if (source.name == "npu")
            for (auto& [name, t] : source.tensors) t = metrics::roundedTo(device.at(name), DType::Float32);
    const ops::DeviceVerdict v = runOn(c, Product::AtlasA2).deviceVerdict();
    EXPECT_EQ(v.kind, ops::DeviceVerdict::Kind::OtherSettings) << v.line;
    EXPECT_CONTAINS(v.line, "with fp16 operands (cubeMathType 2, USE_FP16) every device output passes");
    EXPECT_CONTAINS(v.line, "import it with --product training");
}

TEST(MsprobeImport, L0ModulesInferWhatTheDumpDoesNotRecord) {
    msprobe::ImportSummary s;
    const auto cs = byCall(msprobe::importCases((dumps() / "dump_l0").string(), {}, &s));
    EXPECT_EQ(s.supported, 2u);
    ASSERT_EQ(s.imported.size(), 2u) << (s.skipped.empty() ? "" : s.skipped[0].reason);
    const cases::Case& conv = cs.at("Module.conv1.Conv2d.0");
    EXPECT_EQ(std::get<Ints>(param(conv, "stride")), (Ints{2, 2}));
    EXPECT_EQ(std::get<Ints>(param(conv, "padding")), (Ints{1, 1}));
    EXPECT_EQ(std::get<Bools>(param(conv, "outputMask")), (Bools{true, true, true}));
    const cases::Case& gn = cs.at("Module.gn.GroupNorm.0");
    EXPECT_EQ(std::get<int64_t>(param(gn, "group")), 4);
    for (const auto& [name, c] : cs) {
        const ops::CaseResult r = ops::runCase(c, "", {});
        ASSERT_TRUE(r.ok()) << name << ": " << r.error;
        EXPECT_TRUE(r.passed()) << name;
    }
}

// A mix-level dump holds a Conv2d (GroupNorm) module and the F.conv2d (F.group_norm) its forward
// ran, one computation twice; construct.json names the module as the call's parent. Each is
// imported once, as the call; a module whose call was not dumped, or that ran two calls, stays.
TEST(MsprobeImport, MixLevelModulesAreImportedOnceAsTheCallTheyRan) {
    msprobe::ImportSummary s;
    const auto cs = byCall(msprobe::importCases((dumps() / "dump_mix").string(), {}, &s));
    EXPECT_EQ(msprobe::Dump(msprobe::findDumpFolders((dumps() / "dump_mix").string(), "", "").front()).supportedCalls(),
              (std::vector<std::string>{"Functional.conv2d.0", "Functional.group_norm.0", "Functional.conv2d.1",
                                        "Module.conv3.Conv2d.0"}));
    ASSERT_EQ(s.imported.size(), 4u) << (s.skipped.empty() ? "" : s.skipped[0].reason);
    EXPECT_EQ(s.folded, (std::vector<std::pair<std::string, std::string>>{
                            {"step0/rank0/Module.conv1.Conv2d.0", "Functional.conv2d.0"},
                            {"step0/rank0/Module.gn.GroupNorm.0", "Functional.group_norm.0"}}));
    EXPECT_NE(msprobe::foldedModulesNote(s).find("2 module calls of the mix level imported once"), std::string::npos);
    EXPECT_EQ(std::get<Ints>(param(cs.at("Functional.conv2d.0"), "padding")), (Ints{1, 1}));
    for (const auto& [name, c] : cs) {
        const ops::CaseResult r = ops::runCase(c, "", {});
        ASSERT_TRUE(r.ok()) << name << ": " << r.error;
        EXPECT_TRUE(r.passed()) << name;
    }

    // construct.json as it changes: each variant and the calls it leaves.
    opscope::test::ScratchDir dir("msprobe");
    const fs::path rank = fs::path(dir.file("dump")) / "step0" / "rank0";
    fs::create_directories(rank.parent_path());
    fs::copy(dumps() / "dump_mix" / "step0" / "rank0", rank, fs::copy_options::recursive);
    const std::string construct = readFileText(rank / "construct.json").value();
    auto callsWith = [&](const std::string& text) {
        std::ofstream(rank / "construct.json", std::ios::binary | std::ios::trunc) << text;
        return msprobe::Dump(msprobe::findDumpFolders(dir.file("dump"), "", "").front()).supportedCalls().size();
    };
    EXPECT_EQ(callsWith("{ damaged"), 6u) << "a damaged construct.json folds nothing";
    EXPECT_EQ(callsWith("{}"), 6u);
    std::string megatron = construct;  // [parent, micro step], as msprobe writes under Megatron
    const std::string parent = "\"Module.conv1.Conv2d.forward.0\"";
    megatron.replace(megatron.find(": " + parent), parent.size() + 2, ": [" + parent + ", 0]");
    EXPECT_EQ(callsWith(megatron), 4u);
    std::string twoCalls = construct;  // conv1's forward ran two convolutions: the module stays
    const std::string topLevel = "\"Functional.conv2d.1.forward\": null";
    twoCalls.replace(twoCalls.find(topLevel), topLevel.size(),
                     "\"Functional.conv2d.1.forward\": \"Module.conv1.Conv2d.forward.0\"");
    EXPECT_EQ(callsWith(twoCalls), 5u);
}

// Custom autograd Functions and compiled graphs call the aten backward ops directly; msprobe
// dumps them as "Aten.<op>.default.<n>" with no backward entry: the call is the backward, its
// arguments the operator's and its outputs the device's gradients (dump_aten).
TEST(MsprobeImport, AtenBackwardOpsImportAsTheCallTheDeviceRan) {
    msprobe::ImportSummary s;
    const auto cs = byCall(msprobe::importCases((dumps() / "dump_aten").string(), {}, &s));
    EXPECT_EQ(s.supported, 9u) << "Aten.threshold_backward is not one of OpScope's operators";
    ASSERT_EQ(s.imported.size(), 8u) << (s.skipped.empty() ? "" : s.skipped[0].reason);
    ASSERT_EQ(s.skipped.size(), 1u);
    EXPECT_EQ(s.skipped[0].call, "step0/rank0/Aten.grid_sampler_2d_backward.default.2");
    EXPECT_CONTAINS(s.skipped[0].reason, "interpolation_mode is 7, which is none of 0 (bilinear)");

    const cases::Case& c0 = cs.at("Aten.convolution_backward.default.0");
    EXPECT_EQ(c0.op, "aclnnConvolutionBackward");
    EXPECT_CONTAINS(c0.description, "the call is the device's backward");
    EXPECT_EQ(std::get<Ints>(param(c0, "biasSizes")), (Ints{6}));
    EXPECT_EQ(std::get<Bools>(param(c0, "outputMask")), (Bools{true, true, true}));
    EXPECT_EQ(c0.input("gradOutput")->shape(), (Ints{2, 6, 7, 6}));
    // output_mask [False, True, False], bias_sizes None: only gradWeight, no biasSizes
    const cases::Case& c1 = cs.at("Aten.convolution_backward.default.1");
    EXPECT_EQ(std::get<Bools>(param(c1, "outputMask")), (Bools{false, true, false}));
    EXPECT_EQ(std::get<Ints>(param(c1, "stride")), (Ints{2, 1}));
    EXPECT_EQ(std::get<Ints>(param(c1, "dilation")), (Ints{1, 2}));
    EXPECT_EQ(std::get<int64_t>(param(c1, "groups")), 2);
    EXPECT_TRUE(std::none_of(c1.params.begin(), c1.params.end(), [](const Param& p) { return p.name == "biasSizes"; }));
    ASSERT_EQ(c1.source("npu")->tensors.size(), 1u);
    EXPECT_EQ(c1.source("npu")->tensors[0].first, "gradWeight");
    const cases::Case& t = cs.at("Aten.convolution_backward.default.2");
    EXPECT_TRUE(std::get<bool>(param(t, "transposed")));
    EXPECT_EQ(std::get<Ints>(param(t, "outputPadding")), (Ints{1, 1}));
    EXPECT_EQ(std::get<Ints>(param(cs.at("Aten.convolution_backward.default.3"), "padding")), (Ints{2}));
    // the device's own statistics, as its forward saved them
    const cases::Case& g0 = cs.at("Aten.native_group_norm_backward.default.0");
    EXPECT_EQ(g0.op, "aclnnGroupNormBackward");
    EXPECT_EQ(g0.input("mean")->shape(), (Ints{2, 3}));
    EXPECT_EQ(std::get<int64_t>(param(g0, "HxW")), 12);
    const cases::Case& g1 = cs.at("Aten.native_group_norm_backward.default.1");
    EXPECT_EQ(g1.input("gamma"), nullptr);
    EXPECT_EQ(g1.input("rstd")->dtype(), DType::BFloat16);
    EXPECT_EQ(std::get<Bools>(param(g1, "outputMask")), (Bools{true, false, false}));
    // PyTorch's mode enums, stored by name
    const cases::Case& s1 = cs.at("Aten.grid_sampler_2d_backward.default.1");
    EXPECT_EQ(std::get<std::string>(param(s1, "interpolationMode")), "bicubic");
    EXPECT_EQ(std::get<std::string>(param(s1, "paddingMode")), "border");
    EXPECT_TRUE(std::get<bool>(param(s1, "alignCorners")));
    EXPECT_EQ(std::get<Bools>(param(s1, "outputMask")), (Bools{false, true}));

    // The one wrong device gradient fails, and only it.
    for (const auto& [name, c] : cs) {
        const ops::CaseResult r = ops::runCase(c, "", {});
        ASSERT_TRUE(r.ok()) << name << ": " << r.error;
        const bool wrong = name == "Aten.grid_sampler_2d_backward.default.1";
        EXPECT_EQ(r.deviceVerdict().kind,
                  wrong ? ops::DeviceVerdict::Kind::DeviceFails : ops::DeviceVerdict::Kind::Agree)
            << name << ": " << r.deviceVerdict().line;
        if (wrong) EXPECT_CONTAINS(r.deviceVerdict().line, "npu/gridGrad");
    }
}

// torch_npu's own convolutions take every argument positionally, the transposed ones in their
// own order: (input, weight, bias, padding, output_padding, stride, dilation, groups).
TEST(MsprobeImport, TorchNpuConvolutionsTakeTheirOwnArgumentOrder) {
    msprobe::ImportSummary s;
    const auto cs = byCall(msprobe::importCases((dumps() / "dump_npu_conv").string(), {}, &s));
    ASSERT_EQ(s.imported.size(), 5u) << (s.skipped.empty() ? "" : s.skipped[0].reason);
    const cases::Case& c = cs.at("NPU.npu_conv2d.0");
    EXPECT_EQ(c.op, "aclnnConvolutionBackward");
    EXPECT_EQ(std::get<Ints>(param(c, "stride")), (Ints{2, 2}));
    EXPECT_EQ(std::get<Ints>(param(c, "biasSizes")), (Ints{6}));
    const cases::Case& g = cs.at("NPU.npu_convolution.0");
    EXPECT_EQ(std::get<Ints>(param(g, "padding")), (Ints{1, 0}));
    EXPECT_EQ(std::get<Ints>(param(g, "dilation")), (Ints{2, 1}));
    EXPECT_EQ(std::get<int64_t>(param(g, "groups")), 2);
    const cases::Case& t = cs.at("NPU.npu_conv_transpose2d.0");
    EXPECT_TRUE(std::get<bool>(param(t, "transposed")));
    EXPECT_EQ(std::get<Ints>(param(t, "padding")), (Ints{1, 1}));
    EXPECT_EQ(std::get<Ints>(param(t, "outputPadding")), (Ints{1, 0}));
    EXPECT_EQ(std::get<Ints>(param(t, "stride")), (Ints{2, 2}));
    const cases::Case& t3 = cs.at("NPU.npu_convolution_transpose.0");
    EXPECT_EQ(std::get<Ints>(param(t3, "stride")), (Ints{1, 2, 1}));
    EXPECT_EQ(std::get<Ints>(param(t3, "outputPadding")), (Ints{0, 1, 0}));
    EXPECT_EQ(std::get<int64_t>(param(t3, "groups")), 2);
    for (const auto& [name, k] : cs) {
        const ops::CaseResult r = ops::runCase(k, "", {});
        ASSERT_TRUE(r.ok()) << name << ": " << r.error;
        EXPECT_EQ(r.deviceVerdict().kind, ops::DeviceVerdict::Kind::Agree) << name << ": " << r.deviceVerdict().line;
    }
}

// msprobe's data_mode "backward" dumps no forward entries: the calls are listed with why they
// cannot be replayed (their arguments are not in the dump), not silently absent.
TEST(MsprobeImport, ACallWhoseForwardWasNotDumpedIsListedWithWhy) {
    opscope::test::ScratchDir dir("msprobe");
    for (const char* level : {"dump_l1", "dump_l0"}) {
        SCOPED_TRACE(level);
        const fs::path rank = fs::path(dir.file(level)) / "rank0";
        fs::create_directories(rank.parent_path());
        fs::copy(dumps() / level / "step0" / "rank0", rank, fs::copy_options::recursive);
        nlohmann::ordered_json dump = nlohmann::ordered_json::parse(readFileText(rank / "dump.json").value());
        nlohmann::ordered_json kept = nlohmann::ordered_json::object();
        for (const auto& [key, entry] : dump["data"].items())
            if (key.find(".forward") == std::string::npos) kept[key] = entry;
        dump["data"] = kept;
        std::ofstream(rank / "dump.json", std::ios::binary | std::ios::trunc) << dump.dump();
        msprobe::ImportSummary s;
        EXPECT_TRUE(msprobe::importCases(rank.string(), {}, &s).empty());
        EXPECT_EQ(s.supported, std::string(level) == "dump_l1" ? 19u : 2u) << "every supported call is counted";
        ASSERT_EQ(s.skipped.size(), s.supported);
        for (const msprobe::Skipped& k : s.skipped) EXPECT_CONTAINS(k.reason, "no forward entry");
    }
}

// The in-memory import (the debugger's) keeps the call's name and stack as the file does.
TEST(MsprobeImport, InMemoryCasesKeepTheCallAndItsStack) {
    msprobe::ImportSummary s;
    const auto cs = byCall(msprobe::importCases((dumps() / "dump_l1").string(), {}, &s));
    const cases::Case& conv = cs.at("Functional.conv2d.0");
    std::map<std::string, std::string> notes(conv.notes.begin(), conv.notes.end());
    EXPECT_EQ(notes[msprobe::kCallAttribute], "Functional.conv2d.0");
    EXPECT_NE(notes[msprobe::kStackAttribute].find("train.py"), std::string::npos) << notes[msprobe::kStackAttribute];
}

TEST(MsprobeImport, WritesAFileWithStacksAndTheSameCasesForAnyJobsOrShard) {
    opscope::test::ScratchDir dir("msprobe");
    msprobe::ImportOptions one, four;
    four.jobs = 4;
    const auto a = msprobe::importDump((dumps() / "dump_l1").string(), dir.file("a.h5"), one);
    const auto b = msprobe::importDump((dumps() / "dump_l1").string(), dir.file("b.h5"), four);
    EXPECT_EQ(a.imported, b.imported);
    const h5::File f = h5::File::openReadOnly(dir.file("a.h5"));
    EXPECT_EQ(cases::findCases(f).size(), a.imported.size());
    EXPECT_NE(
        f.readAttribute<std::string>("/msprobe/step0/rank0/Functional.conv2d.0", "opscope_stack").find("train.py"),
        std::string::npos);
    EXPECT_EQ(f.readAttribute<std::string>("/msprobe/step0/rank0/Functional.conv2d.0", "opscope_msprobe_call"),
              "Functional.conv2d.0");
    // Shards partition the calls.
    std::vector<std::string> sharded;
    for (int i = 0; i < 3; ++i) {
        msprobe::ImportOptions o;
        o.shardIndex = i;
        o.shardCount = 3;
        msprobe::ImportSummary s;
        for (const cases::Case& c : msprobe::importCases((dumps() / "dump_l1").string(), o, &s))
            sharded.push_back(c.path);
    }
    std::vector<std::string> all = a.imported;
    std::sort(all.begin(), all.end());
    std::sort(sharded.begin(), sharded.end());
    EXPECT_EQ(sharded, all);
}

TEST(MsprobeImport, ADamagedEntrySkipsItsCallAndTheRestImport) {
    // dump.json is outlined in one pass and each call's entries are parsed when the call is
    // replayed: a value broken inside one entry costs that call only, with the reason.
    opscope::test::ScratchDir dir("msprobe");
    const fs::path rank = fs::path(dir.file("dump")) / "step0" / "rank0";
    fs::create_directories(rank.parent_path());
    fs::copy(dumps() / "dump_l1" / "step0" / "rank0", rank, fs::copy_options::recursive);
    std::string text = readFileText(rank / "dump.json").value();
    const std::size_t entry = text.find("\"Functional.conv2d.1.forward\"");
    const std::size_t args = text.find("\"input_args\"", entry);
    ASSERT_NE(args, std::string::npos);
    text.insert(args, "\"damaged\": tru, ");
    std::ofstream(rank / "dump.json", std::ios::binary | std::ios::trunc) << text;

    msprobe::ImportSummary damaged, intact;
    const auto got = msprobe::importCases(dir.file("dump"), {}, &damaged);
    msprobe::importCases((dumps() / "dump_l1" / "step0" / "rank0").string(), {}, &intact);
    const msprobe::Skipped* k = skipped(damaged, "step0/rank0/Functional.conv2d.1");
    ASSERT_NE(k, nullptr);
    EXPECT_CONTAINS(k->reason, "entry of Functional.conv2d.1 is not valid JSON");
    EXPECT_EQ(damaged.imported.size() + 1, intact.imported.size());
    EXPECT_EQ(damaged.supported, intact.supported);
}

namespace {

// A float32 .npy file (format 1.0) of the given shape and values.
void writeNpy(const fs::path& file, const std::vector<int64_t>& shape, const std::vector<float>& values) {
    std::string dims;
    for (int64_t d : shape) dims += std::to_string(d) + ", ";
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
    header.append(63 - (10 + header.size()) % 64, ' ');
    header += '\n';
    std::ofstream out(file, std::ios::binary);
    const uint16_t length = static_cast<uint16_t>(header.size());
    out << "\x93NUMPY" << '\x01' << '\x00';
    out.write(reinterpret_cast<const char*>(&length), 2);
    out << header;
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
}

std::string tensorEntry(const std::string& file, const std::vector<int64_t>& shape) {
    std::string dims;
    for (int64_t d : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    return R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [)" + dims +
           R"(], "requires_grad": false, "data_name": ")" + file + R"("})";
}

}  // namespace

// A layer-sized call (x of 128 KiB): its large tensors are compressed on the import's worker
// threads and written as finished chunks; any --jobs gives the same, compressed datasets.
TEST(MsprobeImport, LargeTensorsAreCompressedTheSameForAnyJobs) {
    opscope::test::ScratchDir dir("msprobe");
    const fs::path rank = fs::path(dir.file("dump")) / "step0" / "rank0";
    fs::create_directories(rank / "dump_tensor_data");
    const std::vector<int64_t> xShape{64, 8, 64}, gShape{64}, rShape{64, 8, 1};
    std::vector<float> x(64 * 8 * 64), g(64, 1.0f), r(64 * 8, 0.5f);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f - 0.5f;
    const std::string p = "NPU.npu_rms_norm.0.";
    const std::vector<std::tuple<std::string, std::vector<int64_t>, const std::vector<float>*>> files = {
        {p + "forward.input.0.npy", xShape, &x},  {p + "forward.input.1.npy", gShape, &g},
        {p + "forward.output.0.npy", xShape, &x}, {p + "forward.output.1.npy", rShape, &r},
        {p + "backward.input.0.npy", xShape, &x}, {p + "backward.output.0.npy", xShape, &x},
        {p + "backward.output.1.npy", gShape, &g}};
    std::vector<std::string> entry;
    for (const auto& [name, shape, values] : files) {
        writeNpy(rank / "dump_tensor_data" / name, shape, *values);
        entry.push_back(tensorEntry(name, shape));
    }
    std::ofstream(rank / "dump.json") << R"({"task": "tensor", "level": "L1", "framework": "pytorch", "data": {)"
                                      << R"("NPU.npu_rms_norm.0.forward": {"input_args": [)" << entry[0] << ", "
                                      << entry[1] << R"(], "input_kwargs": {}, "output": [)" << entry[2] << ", "
                                      << entry[3] << "]}, "
                                      << R"("NPU.npu_rms_norm.0.backward": {"input": [)" << entry[4]
                                      << R"(, null], "output": [)" << entry[5] << ", " << entry[6] << "]}}}";
    msprobe::ImportOptions one, two;
    two.jobs = 2;
    ASSERT_EQ(1u, msprobe::importDump(dir.file("dump"), dir.file("one.h5"), one).imported.size());
    ASSERT_EQ(1u, msprobe::importDump(dir.file("dump"), dir.file("two.h5"), two).imported.size());
    const std::string call = "/msprobe/step0/rank0/NPU.npu_rms_norm.0";
    const h5::File a = h5::File::openReadOnly(dir.file("one.h5")), b = h5::File::openReadOnly(dir.file("two.h5"));
    const cases::Case ca = cases::readCase(a, call), cb = cases::readCase(b, call);
    ASSERT_EQ(ca.inputs.size(), cb.inputs.size());
    for (std::size_t i = 0; i < ca.inputs.size(); ++i) {
        const HostTensor &ta = ca.inputs[i].second, &tb = cb.inputs[i].second;
        ASSERT_EQ(ta.nbytes(), tb.nbytes());
        EXPECT_EQ(0, std::memcmp(ta.data(), tb.data(), ta.nbytes())) << ca.inputs[i].first;
    }
    const HostTensor* input = ca.input("x");
    ASSERT_NE(input, nullptr);
    ASSERT_EQ(input->nbytes(), x.size() * 4);
    EXPECT_EQ(0, std::memcmp(input->data(), x.data(), input->nbytes()));
    for (const h5::File* f : {&a, &b}) {
        EXPECT_TRUE(h5::datasetInfo(*f, call + "/inputs/x").compressed);
        EXPECT_TRUE(h5::datasetInfo(*f, call + "/npu/dxOut").compressed) << "the device's gradient";
    }
}

// Cancelling (the debugger's Cancel, Ctrl-C in the CLI) stops within a few calls and leaves
// neither the output nor its temporary file behind.
TEST(MsprobeImport, ACancelledImportWritesNothing) {
    for (int jobs : {1, 3}) {
        opscope::test::ScratchDir dir("msprobe");
        msprobe::ImportOptions o;
        o.jobs = jobs;
        std::size_t kept = 0;
        o.progress = [&](std::size_t done, std::size_t) { kept = done; };
        o.cancelled = [&] { return kept >= 2; };
        const auto s = msprobe::importDump((dumps() / "dump_l1").string(), dir.file("out.h5"), o);
        EXPECT_TRUE(s.cancelled);
        EXPECT_FALSE(s.written);
        EXPECT_EQ(2u, s.imported.size() + s.skipped.size()) << "calls kept before the cancel";
        EXPECT_GT(s.supported, 2u);
        EXPECT_TRUE(fs::is_empty(fs::path(dir.file("out.h5")).parent_path())) << "jobs " << jobs;
    }
}

// A dump of many ranks holds one rank's dump.json in memory at a time, not all of them: eight
// ranks whose dump.json each carry 24 MB import within far less than the 192 MB they add up to.
TEST(MsprobeImport, ManyRanksHoldOneDumpJsonAtATime) {
    opscope::test::ScratchDir dir("msprobe");
    const fs::path root = fs::path(dir.file("dump")) / "step0";
    const fs::path rank0 = dumps() / "dump_l1" / "step0" / "rank0";
    std::string text = readFileText(rank0 / "dump.json").value();
    const std::size_t brace = text.find('{');
    ASSERT_NE(brace, std::string::npos);
    text.insert(brace + 1, "\"padding\": \"" + std::string(24u << 20, 'x') + "\", ");
    constexpr int kRanks = 8;
    for (int r = 0; r < kRanks; ++r) {
        const fs::path rank = root / ("rank" + std::to_string(r));
        fs::create_directories(rank);
        fs::copy(rank0 / "dump_tensor_data", rank / "dump_tensor_data", fs::copy_options::recursive);
        fs::copy(rank0 / "stack.json", rank / "stack.json");
        std::ofstream(rank / "dump.json", std::ios::binary) << text;
    }
    text = std::string();
    text.shrink_to_fit();
    const auto peakBytes = [] {
        rusage u{};
        getrusage(RUSAGE_SELF, &u);
        return static_cast<int64_t>(u.ru_maxrss) * 1024;
    };
    const int64_t before = peakBytes();
    msprobe::ImportOptions o;
    o.jobs = 2;
    const auto s = msprobe::importDump(dir.file("dump"), dir.file("out.h5"), o);
    EXPECT_EQ(s.folders.size(), static_cast<std::size_t>(kRanks));
    msprobe::ImportSummary one;
    msprobe::importCases(rank0.string(), {}, &one);
    EXPECT_EQ(s.imported.size(), kRanks * one.imported.size());
    const int64_t grown = peakBytes() - before;
    if (!test::kSanitizedAllocator)
        EXPECT_LT(grown, int64_t{3} * (24 << 20)) << "peak memory grew by " << grown / (1 << 20) << " MiB";
}
