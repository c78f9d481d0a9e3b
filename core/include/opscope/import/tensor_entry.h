// One tensor a numpy or PyTorch file holds, as its header or pickle declares it (no data read).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opscope/dtype.h"

namespace opscope::import {

struct TensorEntry {
    std::string key;  // FILE:KEY's key; "" for a file of one bare tensor (.npy, a .pt of a tensor)
    DType dtype = DType::Undefined;
    std::vector<int64_t> shape;
};

}  // namespace opscope::import
