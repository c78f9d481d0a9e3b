// Pickle bytes written by hand for the torch.save reader tests: the opcodes torch.save's pickle
// uses for a tensor, so that a test can build a file no PyTorch run would (a storage of 256 MiB
// that is mostly a hole, a declared size the file does not hold).
#pragma once

#include <cstdint>
#include <string>

namespace opscope::test {

inline void put16(std::string& s, uint32_t v) {
    s += std::string{static_cast<char>(v & 0xff), static_cast<char>(v >> 8 & 0xff)};
}
inline void put32(std::string& s, uint32_t v) {
    put16(s, v & 0xffff);
    put16(s, v >> 16);
}

// Pickle's BINUNICODE of `t`.
inline std::string text(const std::string& t) {
    std::string s = "X";
    put32(s, static_cast<uint32_t>(t.size()));
    return s + t;
}

// Pickle's BININT of `v`.
inline std::string binint(int32_t v) {
    std::string s = "J";
    put32(s, static_cast<uint32_t>(v));
    return s;
}

// The first six arguments of a tensor's rebuild (storage, offset, size, stride, requires_grad,
// hooks), after a MARK: storage "0" of `numel` float32 saved from `location`, a 1-D view of `size`
// elements from `offset`, `stride` apart. The legacy layout's persistent id has a sixth item, the
// storage view (None).
inline std::string tensorArguments(int32_t numel, int32_t offset, int32_t size, int32_t stride, bool legacy,
                                   const std::string& location = "cpu") {
    return "((" + text("storage") + "ctorch\nFloatStorage\n" + text("0") + text(location) + binint(numel) +
           (legacy ? "N" : "") + "tQ" + binint(offset) + binint(size) + "\x85" + binint(stride) + "\x85\x89" +
           "ccollections\nOrderedDict\n)R";
}

// Pickle opcodes (protocol 2) for torch._utils._rebuild_tensor_v2 over those arguments.
inline std::string rebuiltView(int32_t numel, int32_t offset, int32_t size, int32_t stride = 1, bool legacy = false) {
    return "ctorch._utils\n_rebuild_tensor_v2\n" + tensorArguments(numel, offset, size, stride, legacy) + "tR";
}

// torch_npu's _rebuild_npu_tensor over those arguments and the tensor's device format (an
// IntEnum torch_npu.npu._format.Format, 29 = FRACTAL_NZ), as torch.save of an NPU tensor writes it.
inline std::string rebuiltNpuView(int32_t numel, int32_t size, const std::string& location, int32_t npuFormat = 29) {
    return "ctorch_npu.utils.storage\n_rebuild_npu_tensor\n" + tensorArguments(numel, 0, size, 1, false, location) +
           "ctorch_npu.npu._format\nFormat\n" + binint(npuFormat) + "\x85RtR";
}

}  // namespace opscope::test
