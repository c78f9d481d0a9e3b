// Phase-1 checks of aclnnGroupNormBackward, numbered as in ops/group_norm_backward/README.md.
// The first failing check wins; every message names the argument and the values seen.
#include "group_norm_backward_checks.h"

#include <initializer_list>

#include "opscope/op_support.h"

namespace opscope::group_norm {

const char* const kOutputNames[3] = {"gradInput", "gradGammaOut", "gradBetaOut"};

namespace {

constexpr const char* kOp = "aclnnGroupNormBackward";
constexpr int64_t kMaxChannelsPerGroupA2 = 8000;

int64_t checkedProduct(std::initializer_list<int64_t> factors, const char* what) {
    int64_t p = 1;
    for (int64_t f : factors)
        if (__builtin_mul_overflow(p, f, &p)) fail(status::kParamInvalid, Msg() << what << " overflows int64");
    return p;
}

void checkNumel(const TensorView& v, const char* name, int64_t expected, const char* formula) {
    if (v.numel() != expected)
        fail(status::kParamInvalid, Msg() << name << " has " << v.numel() << " elements (shape "
                                          << shapeToString(v.shape) << ") but " << formula << " = " << expected);
}

// 1. Required pointers; the output mask has 3 entries and each output it selects is given.
void checkPointersAndMask(const GroupNormArgs& a, GroupNormProblem& p) {
    p.gradOut = &requireTensor(a.gradOut, "gradOut");
    p.input = &requireTensor(a.input, "input");
    p.mean = &requireTensor(a.mean, "mean");
    p.rstd = &requireTensor(a.rstd, "rstd");
    p.gamma = optionalTensor(a.gamma, "gamma");
    p.mask = requireBoolArray(a.outputMask, "outputMask");
    checkMaskedOutputs(p.mask, {a.gradInput, a.gradGammaOut, a.gradBetaOut},
                       {kOutputNames[0], kOutputNames[1], kOutputNames[2]}, p.outputs);
}

// 2b. gradOut's dtype is one the product normalises in; every other tensor has it.
void checkDtypes(const GroupNormProblem& p, Product product) {
    checkDtypeIn(*p.gradOut, "gradOut", normDtypesFor(product), product);
    checkSameDtype(*p.input, "input", *p.gradOut, "gradOut");
    checkSameDtype(*p.mean, "mean", *p.gradOut, "gradOut");
    checkSameDtype(*p.rstd, "rstd", *p.gradOut, "gradOut");
    if (p.gamma) checkSameDtype(*p.gamma, "gamma", *p.gradOut, "gradOut");
    for (int i = 0; i < 3; ++i)
        if (p.outputs[i]) checkSameDtype(*p.outputs[i], kOutputNames[i], *p.gradOut, "gradOut");
}

// 3. Formats: ND (origin formats are accepted as ND; private layouts are not).
void checkFormats(const GroupNormProblem& p) {
    checkPlainFormat(*p.gradOut, "gradOut");
    checkPlainFormat(*p.input, "input");
    for (int i = 0; i < 3; ++i)
        if (p.outputs[i]) checkPlainFormat(*p.outputs[i], kOutputNames[i]);
}

// 4. Attributes: group > 0; N, C, HxW >= 0; C divisible by group.
void checkAttributes(const GroupNormArgs& a, GroupNormProblem& p) {
    if (a.group <= 0) fail(status::kParamInvalid, Msg() << "group must be greater than 0, got " << a.group);
    if (a.N < 0 || a.C < 0 || a.HxW < 0)
        fail(status::kParamInvalid,
             Msg() << "N, C, HxW must be non-negative, got N=" << a.N << " C=" << a.C << " HxW=" << a.HxW);
    if (a.C % a.group != 0)
        fail(status::kParamInvalid, Msg() << "C (" << a.C << ") must be divisible by group (" << a.group << ")");
    p.N = a.N;
    p.C = a.C;
    p.HxW = a.HxW;
    p.group = a.group;
}

// 5a. Ranks 0-8 (the documentation's limit for every tensor), gradOut first as on the device.
void checkRanks(const GroupNormProblem& p) {
    checkRankRange(*p.gradOut, "gradOut", 0, kMaxRank);
    checkRankRange(*p.input, "input", 0, kMaxRank);
    checkRankRange(*p.mean, "mean", 0, kMaxRank);
    checkRankRange(*p.rstd, "rstd", 0, kMaxRank);
    if (p.gamma) checkRankRange(*p.gamma, "gamma", 0, kMaxRank);
    for (int i = 0; i < 3; ++i)
        if (p.outputs[i]) checkRankRange(*p.outputs[i], kOutputNames[i], 0, kMaxRank);
}

// 5b. Element counts: input, gradOut = N*C*HxW; mean, rstd = N*group; gamma = C.
void checkElementCounts(GroupNormProblem& p) {
    p.total = checkedProduct({p.N, p.C, p.HxW}, "N * C * HxW");
    const int64_t stats = checkedProduct({p.N, p.group}, "N * group");
    checkNumel(*p.input, "input", p.total, "N * C * HxW");
    checkNumel(*p.gradOut, "gradOut", p.total, "N * C * HxW");
    checkNumel(*p.mean, "mean", stats, "N * group");
    checkNumel(*p.rstd, "rstd", stats, "N * group");
    if (p.gamma) checkNumel(*p.gamma, "gamma", p.C, "C");
}

// 5c. Output shapes: gradInput = input; gradGammaOut, gradBetaOut = gamma (C elements without gamma).
void checkOutputShapes(const GroupNormProblem& p) {
    if (p.outputs[0]) checkSameShape(*p.outputs[0], "gradInput", *p.input, "input");
    for (int i = 1; i < 3; ++i) {
        if (!p.outputs[i]) continue;
        if (p.gamma)
            checkSameShape(*p.outputs[i], kOutputNames[i], *p.gamma, "gamma");
        else
            checkNumel(*p.outputs[i], kOutputNames[i], p.C, "C");
    }
}

// 6. Product limits: C / group <= 8000 on A2/A3.
void checkProductLimits(const GroupNormProblem& p, Product product) {
    if (isA2Generation(product) && p.C / p.group > kMaxChannelsPerGroupA2)
        fail(status::kParamInvalid, Msg() << "C / group = " << p.C / p.group << " exceeds " << kMaxChannelsPerGroupA2
                                          << " on " << productName(product));
}

}  // namespace

GroupNormProblem validateGroupNormBackward(const GroupNormArgs& a, Product product) {
    GroupNormProblem p;
    checkPointersAndMask(a, p);                                      // 1
    checkProductHasOperator(kOp, product, Product::AtlasInference);  // 2a
    checkDtypes(p, product);                                         // 2b
    checkFormats(p);                                                 // 3
    checkAttributes(a, p);                                           // 4
    checkRanks(p);                                                   // 5a
    checkElementCounts(p);                                           // 5b
    checkOutputShapes(p);                                            // 5c
    checkProductLimits(p, product);                                  // 6
    return p;
}

}  // namespace opscope::group_norm
