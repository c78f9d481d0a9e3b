// Prints an FNV-1a hash of every output of every issue-14 workload and of some depthwise
// variants (fp32 and bf16, the benchmark's inputs and call): two builds of the operators give bitwise the same results
// when the lines are equal. Run ONE binary against both builds' libraries (the inputs' float arithmetic depends on this
// program's compile flags), at a fixed thread count:
//   OPSCOPE_NUM_THREADS=2 build/release/bench/opscope_conv_hashes > mine.txt
//   OPSCOPE_NUM_THREADS=2 LD_LIBRARY_PATH=/work/main/build/release/ops:/work/main/build/release/core \
//       build/release/bench/opscope_conv_hashes > main.txt
#include <cinttypes>
#include <cstdio>

#include "../conv_call.h"

namespace {

// Beyond the workloads: depthwise shapes (groups = C = K) off the benchmark's path, so that each
// branch of the depthwise kernels is compared (strides, dilation, padding wider than the kernel,
// rows wider than one 64-value register block, 1D, 3D, transposed, a 5x5 kernel).
const std::vector<opscope::bench::ConvWorkload>& depthwiseVariants() {
    static const std::vector<opscope::bench::ConvWorkload> list = {
        {"dw_s2", {2, 8, 17, 19}, 8, {3, 3}, {2, 2}, {1, 1}, 8},
        {"dw_s1x2", {2, 8, 13, 21}, 8, {3, 3}, {1, 2}, {1, 1}, 8},
        {"dw_s2x1", {2, 8, 13, 21}, 8, {3, 3}, {2, 1}, {1, 1}, 8},
        {"dw_dil2_pad3", {2, 8, 15, 71}, 8, {3, 3}, {1, 1}, {3, 3}, 8, false, {2, 2}},
        {"dw_5x5_wide", {1, 6, 9, 133}, 6, {5, 5}, {1, 1}, {2, 2}, 6},
        {"dw_1d_k7", {2, 8, 300}, 8, {7}, {1}, {3}, 8},
        {"dw_3d", {1, 4, 6, 9, 10}, 4, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, 4},
        {"dw_3d_s2", {1, 4, 7, 9, 10}, 4, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, 4},
        {"dw_t_s1", {2, 8, 11, 12}, 8, {3, 3}, {1, 1}, {1, 1}, 8, true},
        {"dw_t_s2", {2, 8, 11, 12}, 8, {4, 4}, {2, 2}, {1, 1}, 8, true},
    };
    return list;
}

uint64_t fnv1a(const void* data, size_t bytes) {
    uint64_t h = 1469598103934665603ull;
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

}  // namespace

int main() {
    using namespace opscope::bench;
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    int failures = 0;
    std::vector<ConvWorkload> all = convWorkloads();
    all.insert(all.end(), depthwiseVariants().begin(), depthwiseVariants().end());
    for (const ConvWorkload& wl : all)
        for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
            ConvCall c(wl, dtype);
            uint64_t wsSize = 0;
            aclOpExecutor* exe = nullptr;
            void* ws = nullptr;
            aclnnStatus st = c.prepare(&wsSize, &exe);
            if (st == ACLNN_SUCCESS && wsSize > 0) aclrtMalloc(&ws, wsSize, ACL_MEM_MALLOC_HUGE_FIRST);
            if (st == ACLNN_SUCCESS) st = aclnnConvolutionBackward(ws, wsSize, exe, stream);
            aclrtSynchronizeStream(stream);
            if (ws) aclrtFree(ws);
            failures += st != ACLNN_SUCCESS;
            std::printf("%s/%d status %d gradInput %016" PRIx64 " gradWeight %016" PRIx64 " gradBias %016" PRIx64 "\n",
                        wl.name.c_str(), static_cast<int>(dtype), static_cast<int>(st),
                        fnv1a(c.dx.data(), c.dx.bytes()), fnv1a(c.dw.data(), c.dw.bytes()),
                        fnv1a(c.db.data(), c.db.bytes()));
        }
    aclrtDestroyStream(stream);
    return failures == 0 ? 0 : 1;
}
