#include "opscope/view/slice_export.h"

#include <charconv>
#include <cmath>

namespace opscope::view {

std::string fullPrecisionText(double value, DType dtype) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buf[64];
    std::to_chars_result r{};
    if (!isFloatingType(dtype) && value < 0)
        r = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(value));
    else if (!isFloatingType(dtype))
        r = std::to_chars(buf, buf + sizeof buf, static_cast<unsigned long long>(value));
    else if (dtype == DType::Float64)
        r = std::to_chars(buf, buf + sizeof buf, value);
    else  // float32, float16 and bfloat16 values are all exact floats
        r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(value));
    return std::string(buf, r.ptr);
}

std::string planeCsv(const Plane& plane, DType dtype) {
    std::string out;
    for (int64_t r = 0; r < plane.rows; ++r) {
        for (int64_t c = 0; c < plane.cols; ++c) {
            if (c) out += ',';
            out += fullPrecisionText(plane.at(r, c), dtype);
        }
        out += '\n';
    }
    return out;
}

}  // namespace opscope::view
