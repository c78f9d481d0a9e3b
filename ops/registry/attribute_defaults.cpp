#include "opscope/ops/attribute_defaults.h"

#include "opscope/tensor_view.h"

namespace opscope::ops {
namespace {

// The current values with the schema defaults for the absent ones, readable with the
// OpArguments coercions.
OpArguments currentValues(const OpSchema& schema, const std::map<std::string, ParamValue>& attributes) {
    OpArguments a;
    for (const ArgSpec& spec : schema.attributes) a.attributes[spec.name] = spec.defaultValue;
    for (const auto& [name, value] : attributes) a.attributes[name] = value;
    return a;
}

const std::vector<int64_t>* firstShape(const TensorShapes& shapes, std::initializer_list<const char*> names) {
    for (const char* n : names) {
        auto it = shapes.find(n);
        if (it != shapes.end()) return &it->second;
    }
    return nullptr;
}

// One value per spatial dimension: a list that already has them stays, otherwise its first
// value (the schema default when empty) is repeated.
std::vector<int64_t> perSpatialDim(std::vector<int64_t> v, std::size_t spatial, bool fourPaddingsFit) {
    if (v.size() == spatial || (fourPaddingsFit && spatial == 2 && v.size() == 4)) return v;
    return std::vector<int64_t>(spatial, v.empty() ? 0 : v[0]);
}

void convolutionRules(const TensorShapes& shapes, const OpArguments& current, ImpliedAttributes* out) {
    const std::vector<int64_t>* x = firstShape(shapes, {"input", "weight"});
    if (!x || x->size() < 3) return;  // no spatial dimension: the operator's checks say why
    const std::size_t spatial = x->size() - 2;
    for (const char* name : {"stride", "padding", "dilation", "outputPadding"}) {
        try {
            out->values[name] = perSpatialDim(current.intArrayAttr(name), spatial, std::string(name) == "padding");
        } catch (const ArgumentError&) {
            // An attribute of the wrong kind is left for the operator's checks to name.
        }
    }
}

void groupNormRules(const TensorShapes& shapes, const OpArguments& current, ImpliedAttributes* out) {
    const std::vector<int64_t>* x = firstShape(shapes, {"input", "gradOut"});
    if (!x || x->size() < 2) return;
    const int64_t n = (*x)[0], c = (*x)[1];
    int64_t hxw = 0;
    try {
        hxw = shapeNumel(std::vector<int64_t>(x->begin() + 2, x->end()));
    } catch (const std::exception&) {
        return;  // more elements than 64 bits count: nothing sensible to prefill
    }
    out->values["N"] = n;
    out->values["C"] = c;
    out->values["HxW"] = hxw;
    int64_t group = 0;
    try {
        group = current.intAttr("group");
    } catch (const ArgumentError&) {
        return;
    }
    if (group <= 0 || c % group != 0) {
        out->notes.push_back("group (" + std::to_string(group) + ") does not divide C (" + std::to_string(c) + ")");
        return;
    }
    if (const std::vector<int64_t>* mean = firstShape(shapes, {"mean"})) {
        int64_t seen = 0;
        try {
            seen = shapeNumel(*mean);
        } catch (const std::exception&) {
            return;
        }
        if (seen != n * group)
            out->notes.push_back("mean has " + std::to_string(seen) + " elements, N*group = " + std::to_string(n) +
                                 "*" + std::to_string(group) + " = " + std::to_string(n * group));
    }
}

}  // namespace

ImpliedAttributes impliedAttributes(const OpSchema& schema, const TensorShapes& shapes,
                                    const std::map<std::string, ParamValue>& attributes) {
    ImpliedAttributes out;
    const OpArguments current = currentValues(schema, attributes);
    if (schema.name == "aclnnConvolutionBackward") convolutionRules(shapes, current, &out);
    if (schema.name == "aclnnGroupNormBackward") groupNormRules(shapes, current, &out);
    return out;
}

}  // namespace opscope::ops
