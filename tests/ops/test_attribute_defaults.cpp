// What the debugger prefills from bound shapes (ops/attribute_defaults.h) and what its
// "Bind to" menu says about a dataset (ops/argument_fit.h).
#include <gtest/gtest.h>

#include "opscope/ops/argument_fit.h"
#include "opscope/ops/attribute_defaults.h"

namespace opscope::ops {
namespace {

const OpSchema& schemaOf(const char* name) { return findOperator(name)->schema(); }

std::vector<int64_t> ints(const ParamValue& v) { return std::get<std::vector<int64_t>>(v); }

TEST(AttributeDefaults, ConvolutionGetsOneValuePerSpatialDimensionOfTheInput) {
    const OpSchema& s = schemaOf("aclnnConvolutionBackward");
    const ImpliedAttributes a =
        impliedAttributes(s, {{"input", {2, 3, 8, 8, 8}}}, {{"stride", std::vector<int64_t>{2}}});
    EXPECT_EQ(ints(a.values.at("stride")), (std::vector<int64_t>{2, 2, 2}));
    EXPECT_EQ(ints(a.values.at("padding")), (std::vector<int64_t>{0, 0, 0}));
    EXPECT_EQ(ints(a.values.at("dilation")), (std::vector<int64_t>{1, 1, 1}));
    EXPECT_EQ(ints(a.values.at("outputPadding")), (std::vector<int64_t>{0, 0, 0}));
    EXPECT_EQ(a.values.count("groups"), 0u) << "groups does not follow from shapes";
    EXPECT_TRUE(a.notes.empty());
}

TEST(AttributeDefaults, ConvolutionKeepsValuesThatAlreadyFit) {
    const OpSchema& s = schemaOf("aclnnConvolutionBackward");
    const ImpliedAttributes a =
        impliedAttributes(s, {{"input", {1, 4, 9, 7}}, {"weight", {4, 4, 3}}},
                          {{"padding", std::vector<int64_t>{1, 2, 3, 4}}, {"stride", std::vector<int64_t>{2, 1}}});
    EXPECT_EQ(ints(a.values.at("padding")), (std::vector<int64_t>{1, 2, 3, 4})) << "2-D takes four paddings";
    EXPECT_EQ(ints(a.values.at("stride")), (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(ints(a.values.at("dilation")), (std::vector<int64_t>{1, 1})) << "the input's rank, not the weight's";
}

TEST(AttributeDefaults, ConvolutionUsesTheWeightWhenNoInputIsBoundAndNothingWithoutSpatialDims) {
    const OpSchema& s = schemaOf("aclnnConvolutionBackward");
    EXPECT_EQ(ints(impliedAttributes(s, {{"weight", {4, 4, 3}}}, {}).values.at("stride")), (std::vector<int64_t>{1}));
    EXPECT_TRUE(impliedAttributes(s, {{"input", {4, 4}}}, {}).values.empty());
    EXPECT_TRUE(impliedAttributes(s, {{"gradOutput", {4, 4, 4, 4}}}, {}).values.empty());
}

TEST(AttributeDefaults, GroupNormTakesNCAndHxWFromTheInput) {
    const OpSchema& s = schemaOf("aclnnGroupNormBackward");
    const ImpliedAttributes a = impliedAttributes(s, {{"input", {2, 6, 5, 7}}}, {{"group", int64_t{3}}});
    EXPECT_EQ(std::get<int64_t>(a.values.at("N")), 2);
    EXPECT_EQ(std::get<int64_t>(a.values.at("C")), 6);
    EXPECT_EQ(std::get<int64_t>(a.values.at("HxW")), 35);
    EXPECT_EQ(a.values.count("group"), 0u) << "group is left as the user set it";
    EXPECT_TRUE(a.notes.empty());
    const ImpliedAttributes flat = impliedAttributes(s, {{"gradOut", {4, 8}}}, {});
    EXPECT_EQ(std::get<int64_t>(flat.values.at("HxW")), 1) << "[N, C] has one element per channel";
}

TEST(AttributeDefaults, GroupNormChecksTheGroupItKeeps) {
    const OpSchema& s = schemaOf("aclnnGroupNormBackward");
    const ImpliedAttributes bad = impliedAttributes(s, {{"input", {2, 4, 3}}}, {{"group", int64_t{3}}});
    ASSERT_EQ(bad.notes.size(), 1u);
    EXPECT_EQ(bad.notes[0], "group (3) does not divide C (4)");
    const ImpliedAttributes mean =
        impliedAttributes(s, {{"input", {2, 4, 3}}, {"mean", {2, 4}}}, {{"group", int64_t{2}}});
    ASSERT_EQ(mean.notes.size(), 1u);
    EXPECT_EQ(mean.notes[0], "mean has 8 elements, N*group = 2*2 = 4");
}

TEST(AttributeDefaults, RmsNormGradAndGridSamplerHaveNothingThatFollowsFromShapes) {
    EXPECT_TRUE(impliedAttributes(schemaOf("aclnnRmsNormGrad"), {{"x", {4, 8}}}, {}).values.empty());
    EXPECT_TRUE(
        impliedAttributes(schemaOf("aclnnGridSampler2DBackward"), {{"input", {1, 2, 4, 4}}}, {}).values.empty());
}

TEST(AttributeDefaults, ConvolutionPrepareUsesTheSameRuleForOmittedAttributes) {
    const Operator* op = findOperator("aclnnConvolutionBackward");
    OpArguments args;
    args.tensors["gradOutput"] = HostTensor(DType::Float32, {1, 2, 3, 3});
    args.tensors["input"] = HostTensor(DType::Float32, {1, 2, 5, 5});
    args.tensors["weight"] = HostTensor(DType::Float32, {2, 2, 3, 3});
    const OpArguments filled = op->withDefaults(args);
    EXPECT_EQ(filled.intArrayAttr("stride"), (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(filled.intArrayAttr("padding"), (std::vector<int64_t>{0, 0}));
}

TEST(ArgumentFit, DtypeMustBeANumericFloatingTensor) {
    const OpSchema& s = schemaOf("aclnnRmsNormGrad");
    EXPECT_EQ(argumentMismatch(s, "x", DType::Undefined, {4}, {}), "not a numeric tensor");
    EXPECT_EQ(argumentMismatch(s, "x", DType::Int64, {4}, {}), "int64, expects a floating dtype");
    EXPECT_EQ(argumentMismatch(s, "x", DType::Float16, {4}, {}), "");
    EXPECT_EQ(argumentMismatch(s, "rstd", DType::Float16, {4}, {}), "float16, expects float32");
}

TEST(ArgumentFit, RanksAndShapesSharedWithBoundArguments) {
    const OpSchema& rms = schemaOf("aclnnRmsNormGrad");
    EXPECT_EQ(argumentMismatch(rms, "dy", DType::Float32, {4, 5}, {{"x", {2, 3}}}),
              "shape [4, 5] differs from x [2, 3]");
    EXPECT_EQ(argumentMismatch(rms, "dy", DType::Float32, {2, 3}, {{"x", {2, 3}}, {"dy", {9}}}), "")
        << "the argument's own binding is being replaced";
    EXPECT_EQ(argumentMismatch(rms, "gamma", DType::Float32, {3}, {{"x", {2, 3}}}), "");
    EXPECT_EQ(argumentMismatch(rms, "gamma", DType::Float32, {2}, {{"x", {2, 3}}}),
              "shape [2] is not x's trailing axes [2, 3]");
    const OpSchema& conv = schemaOf("aclnnConvolutionBackward");
    EXPECT_EQ(argumentMismatch(conv, "input", DType::Float32, {32768, 4096}, {}), "rank 2, expects 3-D to 5-D");
    EXPECT_EQ(argumentMismatch(conv, "weight", DType::Float32, {4, 4, 3}, {{"input", {1, 4, 8, 8}}}),
              "rank 3 differs from input's 4");
    const OpSchema& gn = schemaOf("aclnnGroupNormBackward");
    EXPECT_EQ(argumentMismatch(gn, "gradOut", DType::Float32, {2, 3, 16}, {{"input", {5, 5}}}),
              "96 elements differ from input's 25");
    EXPECT_EQ(argumentMismatch(gn, "gamma", DType::Float32, {3}, {{"input", {2, 4, 3}}}),
              "3 elements, input has C = 4");
    const OpSchema& grid = schemaOf("aclnnGridSampler2DBackward");
    EXPECT_EQ(argumentMismatch(grid, "grid", DType::Float32, {1, 4, 4, 3}, {}), "last dimension 3, expects 2");
    EXPECT_EQ(argumentMismatch(grid, "input", DType::Float32, {1, 4, 4}, {}), "rank 3, expects 4-D");
}

TEST(ArgumentFit, AnOverflowingShapeIsAMismatchNotACrash) {
    const OpSchema& gn = schemaOf("aclnnGroupNormBackward");
    const int64_t big = int64_t{1} << 40;
    EXPECT_NE(argumentMismatch(gn, "gradOut", DType::Float32, {big, big}, {{"input", {2, 2}}}), "");
}

}  // namespace
}  // namespace opscope::ops
