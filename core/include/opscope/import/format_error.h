// The one error of the tensor-file readers (.npy, .npz, .pt, .safetensors, zip archives, msprobe dumps): a
// sentence that names the file and what is wrong with it.
#pragma once

#include <string>

#include "opscope/error.h"

namespace opscope::import {

class FormatError : public ContentError {
public:
    using ContentError::ContentError;
};

}  // namespace opscope::import
