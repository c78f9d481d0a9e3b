#include "opscope/ops/argument_fit.h"

#include "opscope/tensor_view.h"

namespace opscope::ops {
namespace {

int64_t numel(const std::vector<int64_t>& s) { return shapeNumel(s); }  // throws on overflow

std::string rankRange(std::size_t rank, std::size_t lo, std::size_t hi) {
    if (rank >= lo && rank <= hi) return {};
    const std::string want =
        lo == hi ? std::to_string(lo) + "-D" : std::to_string(lo) + "-D to " + std::to_string(hi) + "-D";
    return "rank " + std::to_string(rank) + ", expects " + want;
}

// The first of `others` that is bound and whose shape `differs` from this one's, as a phrase.
std::string sharedShape(const std::vector<int64_t>& shape, const TensorShapes& bound,
                        std::initializer_list<const char*> others, bool byElementCount) {
    for (const char* other : others) {
        auto it = bound.find(other);
        if (it == bound.end()) continue;
        const bool same = byElementCount ? numel(it->second) == numel(shape) : it->second == shape;
        if (!same)
            return (byElementCount
                        ? std::to_string(numel(shape)) + " elements differ from " + other + "'s " +
                              std::to_string(numel(it->second))
                        : "shape " + shapeToString(shape) + " differs from " + other + " " + shapeToString(it->second));
    }
    return {};
}

std::string convolutionFit(const std::string& arg, const std::vector<int64_t>& shape, const TensorShapes& bound) {
    std::string why = rankRange(shape.size(), 3, 5);
    for (const char* other : {"gradOutput", "input", "weight"}) {
        auto it = bound.find(other);
        if (why.empty() && other != arg && it != bound.end() && it->second.size() != shape.size())
            why = "rank " + std::to_string(shape.size()) + " differs from " + other + "'s " +
                  std::to_string(it->second.size());
    }
    return why;
}

std::string groupNormFit(const std::string& arg, const std::vector<int64_t>& shape, const TensorShapes& bound) {
    if (arg == "gradOut" || arg == "input") {
        if (shape.size() < 2) return "rank " + std::to_string(shape.size()) + ", expects [N, C, ...]";
        return sharedShape(shape, bound, {arg == "input" ? "gradOut" : "input"}, true);
    }
    auto x = bound.find("input");
    if (arg == "gamma" && x != bound.end() && x->second.size() >= 2 && numel(shape) != x->second[1])
        return std::to_string(numel(shape)) + " elements, input has C = " + std::to_string(x->second[1]);
    return {};
}

std::string rmsNormFit(const std::string& arg, DType dtype, const std::vector<int64_t>& shape,
                       const TensorShapes& bound) {
    if (arg == "dy" || arg == "x") {
        const std::string why = rankRange(shape.size(), 1, 8);
        return why.empty() ? sharedShape(shape, bound, {arg == "x" ? "dy" : "x"}, false) : why;
    }
    if (arg == "rstd" && dtype != DType::Float32) return std::string(dtypeName(dtype)) + ", expects float32";
    auto x = bound.find("x");
    if (arg == "gamma" && x != bound.end()) {
        const bool trailing =
            shape.size() <= x->second.size() && std::equal(shape.rbegin(), shape.rend(), x->second.rbegin());
        if (!trailing) return "shape " + shapeToString(shape) + " is not x's trailing axes " + shapeToString(x->second);
    }
    return {};
}

std::string gridSamplerFit(const std::string& arg, const std::vector<int64_t>& shape) {
    const std::string why = rankRange(shape.size(), 4, 4);
    if (why.empty() && arg == "grid" && shape[3] != 2)
        return "last dimension " + std::to_string(shape[3]) + ", expects 2";
    return why;
}

std::string operatorFit(const OpSchema& schema, const std::string& argument, DType dtype,
                        const std::vector<int64_t>& shape, const TensorShapes& others) {
    if (schema.name == "aclnnConvolutionBackward") return convolutionFit(argument, shape, others);
    if (schema.name == "aclnnGroupNormBackward") return groupNormFit(argument, shape, others);
    if (schema.name == "aclnnRmsNormGrad") return rmsNormFit(argument, dtype, shape, others);
    if (schema.name == "aclnnGridSampler2DBackward") return gridSamplerFit(argument, shape);
    return {};
}

}  // namespace

std::string argumentMismatch(const OpSchema& schema, const std::string& argument, DType dtype,
                             const std::vector<int64_t>& shape, const TensorShapes& bound) {
    if (dtype == DType::Undefined) return "not a numeric tensor";
    if (!isFloatingType(dtype)) return std::string(dtypeName(dtype)) + ", expects a floating dtype";
    TensorShapes others = bound;
    others.erase(argument);
    try {
        return operatorFit(schema, argument, dtype, shape, others);
    } catch (const std::exception&) {  // shapeNumel: the element count overflows
        return "shape " + shapeToString(shape) + " has more elements than 64 bits count";
    }
}

}  // namespace opscope::ops
