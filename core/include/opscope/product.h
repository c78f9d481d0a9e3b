// The emulated Ascend product ("SoC"). Validation rules differ by product; Atlas A2 is the
// default. Chosen by OPSCOPE_PRODUCT (read once, at first use) or setProduct().
#pragma once

#include <string>
#include <vector>

namespace opscope {

enum class Product {
    AtlasTraining,   // Atlas training series (Ascend 910)
    AtlasA2,         // Atlas A2 training / 800I A2 inference (Ascend 910B)
    AtlasA3,         // Atlas A3 training / inference
    AtlasInference,  // Atlas inference series (Ascend 310P)
};

Product currentProduct();
void setProduct(Product p);
// Short id used in env vars, CLI flags and traces: "training", "a2", "a3", "inference".
const char* productId(Product p);
// Full marketing name for messages: "Atlas A2 training series".
const char* productName(Product p);
// Parses an id or alias ("910", "910b", "310p", "A2", ...); returns false if unknown.
bool parseProduct(const std::string& text, Product* out);
std::vector<Product> allProducts();

// Ascend 910B and later (Atlas A2, A3): the newer rules, bfloat16 and HF32 in the cube unit, and a
// default precision mode that keeps float32 (before them, torch_npu's allows fp32 -> fp16).
inline bool isA2Generation(Product p) { return p == Product::AtlasA2 || p == Product::AtlasA3; }
inline bool productHasBFloat16(Product p) { return isA2Generation(p); }

}  // namespace opscope
