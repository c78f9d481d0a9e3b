// numpy's .npy (format versions 1, 2 and 3) and .npz (a zip of .npy files), read natively.
// Every dtype OpScope holds (float16/32/64, int8-64, uint8-64, bool), either byte order, C or
// Fortran order; the result is a contiguous row-major HostTensor. uint16 stays uint16 (numpy
// has no bfloat16; see readNpy's bfloat16 option).
#pragma once

#include <string>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/import/tensor_entry.h"

namespace opscope::import {

struct NpyOptions {
    bool uint16AsBFloat16 = false;  // bfloat16 bits saved as uint16 (as OpScope's HDF5 files do)
};

// Throws FormatError naming `what` (the file, or "FILE.npz:key") when the bytes are not a
// well-formed .npy whose data fits the declared shape.
HostTensor parseNpy(const std::string& bytes, const std::string& what, const NpyOptions& options = {});
HostTensor readNpy(const std::string& path, const NpyOptions& options = {});

// The dtype and shape the header declares, reading the header only (not a check of the data).
TensorEntry describeNpy(const std::string& path);
// An .npz's arrays: TensorFile (tensor_file.h).

// The tensor as .npy bytes (format 1.0, little-endian, C order); what parseNpy reads back. numpy
// has no bfloat16: bfloat16 is written as its uint16 bits (read back with uint16AsBFloat16), as
// OpScope's HDF5 files store it. Any strides; throws std::invalid_argument for an undefined dtype.
std::string npyBytes(const TensorView& tensor);
// Writes npyBytes atomically (h5/atomic_write.h); refuses to replace any of `inputs`.
void writeNpy(const std::string& path, const TensorView& tensor, const std::vector<std::string>& inputs = {});

}  // namespace opscope::import
