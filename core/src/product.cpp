#include "opscope/product.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "opscope/names.h"

namespace opscope {
namespace {

Product productFromEnvironment() {
    const char* env = std::getenv("OPSCOPE_PRODUCT");
    Product p = Product::AtlasA2;
    if (env && *env && !parseProduct(env, &p)) {
        std::fprintf(stderr,
                     "opscope: OPSCOPE_PRODUCT='%s' is not a known product "
                     "(training, a2, a3, inference); using a2\n",
                     env);
        p = Product::AtlasA2;
    }
    return p;
}

std::atomic<int>& productSlot() {
    static std::atomic<int> slot{static_cast<int>(productFromEnvironment())};
    return slot;
}

}  // namespace

Product currentProduct() { return static_cast<Product>(productSlot().load()); }
void setProduct(Product p) { productSlot().store(static_cast<int>(p)); }

const char* productId(Product p) {
    switch (p) {
        case Product::AtlasTraining: return "training";
        case Product::AtlasA2: return "a2";
        case Product::AtlasA3: return "a3";
        case Product::AtlasInference: return "inference";
    }
    return "a2";
}

const char* productName(Product p) {
    switch (p) {
        case Product::AtlasTraining: return "Atlas training series (Ascend 910)";
        case Product::AtlasA2: return "Atlas A2 training series / Atlas 800I A2 (Ascend 910B)";
        case Product::AtlasA3: return "Atlas A3 training / inference series";
        case Product::AtlasInference: return "Atlas inference series (Ascend 310P)";
    }
    return "?";
}

bool parseProduct(const std::string& text, Product* out) {
    static const std::pair<const char*, Product> aliases[] = {
        {"training", Product::AtlasTraining},
        {"910", Product::AtlasTraining},
        {"ascend910", Product::AtlasTraining},
        {"atlas-training", Product::AtlasTraining},
        {"a2", Product::AtlasA2},
        {"910b", Product::AtlasA2},
        {"ascend910b", Product::AtlasA2},
        {"atlas-a2", Product::AtlasA2},
        {"a3", Product::AtlasA3},
        {"910c", Product::AtlasA3},
        {"atlas-a3", Product::AtlasA3},
        {"inference", Product::AtlasInference},
        {"310p", Product::AtlasInference},
        {"ascend310p", Product::AtlasInference},
        {"atlas-inference", Product::AtlasInference},
    };
    const std::optional<Product> p = findAlias(lowerCase(text), aliases);
    if (p && out) *out = *p;
    return p.has_value();
}

std::vector<Product> allProducts() {
    return {Product::AtlasTraining, Product::AtlasA2, Product::AtlasA3, Product::AtlasInference};
}

}  // namespace opscope
