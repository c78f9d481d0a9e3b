// What the generic phase 2 (and the end of phase 1) checks about the memory an executor uses,
// so that misuse is a status code instead of a write into freed or foreign memory.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "opscope/device_memory.h"
#include "opscope/plan.h"

namespace opscope {

// Phase 1: 161002 when an output has a dimension of size > 1 with stride 0: several of its
// elements share one address, so what lands there would depend on the order of writes.
void checkOutputsDoNotOverlapThemselves(const Plan& plan);

// Phase 1 end: the aclrtMalloc block under each caller tensor, by slot id (base == nullptr
// for scratch, empty tensors and memory that is not device memory).
std::vector<device::Region> callerBlocks(const Plan& plan);

// Phase 2, before running: 361001 naming the tensor and the sizes when a caller tensor's memory
// is not the block it lay in at phase 1 (freed, even if another allocation now sits there, or
// never from aclrtMalloc) or that block is too small for its view; and when a workspace inside
// an aclrtMalloc block has fewer bytes from there than workspaceSize claims.
void checkLaunchMemory(const Plan& plan, const std::vector<device::Region>& blocks, const void* workspace,
                       uint64_t workspaceSize);

// Phase 2: on the device, kernels write into workspace tensors and the outputs are written last
// (ViewCopy), so an output that shares memory with an input does not change what the kernels
// read. While alive, every input an output overlaps is read from a copy taken at construction.
class InputSnapshot {
public:
    explicit InputSnapshot(Plan& plan);
    ~InputSnapshot();
    InputSnapshot(const InputSnapshot&) = delete;
    InputSnapshot& operator=(const InputSnapshot&) = delete;

private:
    struct Saved {
        int slot;
        void* data;
        int64_t offset;
    };
    Plan& plan_;
    std::vector<Saved> saved_;
    std::vector<std::unique_ptr<char[]>> copies_;
};

}  // namespace opscope
