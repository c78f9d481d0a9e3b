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

namespace {

// The id each product is written with comes first; the rest are the spellings `parseProduct` accepts.
constexpr Named<Product> kProductIds[] = {{Product::AtlasTraining, "training"},
                                          {Product::AtlasA2, "a2"},
                                          {Product::AtlasA3, "a3"},
                                          {Product::AtlasInference, "inference"},
                                          {Product::AtlasTraining, "910"},
                                          {Product::AtlasTraining, "ascend910"},
                                          {Product::AtlasTraining, "atlas-training"},
                                          {Product::AtlasA2, "910b"},
                                          {Product::AtlasA2, "ascend910b"},
                                          {Product::AtlasA2, "atlas-a2"},
                                          {Product::AtlasA3, "910c"},
                                          {Product::AtlasA3, "atlas-a3"},
                                          {Product::AtlasInference, "310p"},
                                          {Product::AtlasInference, "ascend310p"},
                                          {Product::AtlasInference, "atlas-inference"}};

constexpr Named<Product> kProductNames[] = {
    {Product::AtlasTraining, "Atlas training series (Ascend 910)"},
    {Product::AtlasA2, "Atlas A2 training series / Atlas 800I A2 (Ascend 910B)"},
    {Product::AtlasA3, "Atlas A3 training / inference series"},
    {Product::AtlasInference, "Atlas inference series (Ascend 310P)"}};

}  // namespace

const char* productId(Product p) { return nameOf(kProductIds, p, "a2"); }

const char* productName(Product p) { return nameOf(kProductNames, p); }

bool parseProduct(const std::string& text, Product* out) { return parseNamed(lowerCase(text), kProductIds, out); }

std::vector<Product> allProducts() { return valuesOf(kProductNames); }

}  // namespace opscope
