// The one error of the tensor-file readers (.npy, .npz, .pt, zip archives, msprobe dumps): a
// sentence that names the file and what is wrong with it.
#pragma once

#include <stdexcept>
#include <string>

namespace opscope::import {

class FormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace opscope::import
