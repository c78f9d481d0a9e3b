// Shared by the benchmark programs: device tensors through the public C API, and the
// phase-1 + phase-2 + synchronize loop users run.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace opscope::bench {

inline size_t dtypeBytes(aclDataType t) {
    switch (t) {
        case ACL_FLOAT16:
        case ACL_BF16: return 2;
        case ACL_DOUBLE: return 8;
        default: return 4;
    }
}

// Fills with uniform values in [lo, hi), converted to the dtype (fp16/bf16 by truncation of
// float bits is fine for timing; values stay finite).
class BenchTensor {
public:
    BenchTensor(const std::vector<int64_t>& shape, aclDataType dtype, float lo = -1.f, float hi = 1.f,
                uint32_t seed = 1)
        : shape_(shape), dtype_(dtype) {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        bytes_ = static_cast<size_t>(n) * dtypeBytes(dtype);
        if (aclrtMalloc(&dev_, bytes_ ? bytes_ : 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
            throw std::runtime_error(aclGetRecentErrMsg());
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> u(lo, hi);
        auto* p = static_cast<unsigned char*>(dev_);
        for (int64_t i = 0; i < n; ++i) {
            float v = u(rng);
            uint32_t bits;
            std::memcpy(&bits, &v, 4);
            if (dtype == ACL_FLOAT)
                std::memcpy(p + 4 * i, &v, 4);
            else if (dtype == ACL_BF16) {
                uint16_t h = static_cast<uint16_t>(bits >> 16);
                std::memcpy(p + 2 * i, &h, 2);
            } else if (dtype == ACL_FLOAT16) {
                // float -> half for |v| < 65504 (round toward zero; timing data only)
                const uint32_t sign = (bits >> 16) & 0x8000u;
                const int exp = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
                uint16_t h = static_cast<uint16_t>(sign);
                if (exp > 0 && exp < 31) h = static_cast<uint16_t>(sign | (exp << 10) | ((bits >> 13) & 0x3ff));
                std::memcpy(p + 2 * i, &h, 2);
            } else if (dtype == ACL_DOUBLE) {
                double d = v;
                std::memcpy(p + 8 * i, &d, 8);
            }
        }
        std::vector<int64_t> strides(shape.size(), 1);
        for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
        tensor_ = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                                  shape.size(), dev_);
        if (!tensor_) throw std::runtime_error(aclGetRecentErrMsg());
    }
    ~BenchTensor() {
        aclDestroyTensor(tensor_);
        aclrtFree(dev_);
    }
    BenchTensor(const BenchTensor&) = delete;
    BenchTensor& operator=(const BenchTensor&) = delete;
    operator aclTensor*() const { return tensor_; }
    size_t bytes() const { return bytes_; }
    void* data() const { return dev_; }

private:
    std::vector<int64_t> shape_;
    aclDataType dtype_;
    void* dev_ = nullptr;
    aclTensor* tensor_ = nullptr;
    size_t bytes_ = 0;
};

// Phase 2 with a workspace allocated and freed per call, then synchronize: what a user does.
template <class Launch>
void runAndSync(benchmark::State& state, aclnnStatus phase1Status, uint64_t wsSize, aclOpExecutor* exe, Launch launch,
                aclrtStream stream) {
    if (phase1Status != ACLNN_SUCCESS) {
        state.SkipWithError(aclGetRecentErrMsg());
        return;
    }
    void* ws = nullptr;
    if (wsSize > 0) aclrtMalloc(&ws, wsSize, ACL_MEM_MALLOC_HUGE_FIRST);
    if (launch(ws, wsSize, exe, stream) != ACLNN_SUCCESS) state.SkipWithError(aclGetRecentErrMsg());
    aclrtSynchronizeStream(stream);
    if (ws) aclrtFree(ws);
    state.counters["workspace_MB"] = static_cast<double>(wsSize) / 1e6;
}

// Peak resident memory of this process (VmHWM): unlike getrusage's maxrss, it is not inherited
// from the parent across fork, so a benchmark run as a child reports only its own.
inline double peakResidentMB() {
    FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    double kb = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "VmHWM: %lf kB", &kb) == 1) break;
    std::fclose(f);
    return kb / 1024.0;
}

// CPU time of the whole process (every thread, the pool's too) in ms. On a shared machine the
// wall time also measures the scheduler; the CPU a call consumes moves far less.
inline double processCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Records cpu_ms (process CPU per iteration) for the benchmark loop it spans.
class CpuPerIteration {
public:
    explicit CpuPerIteration(benchmark::State& state) : state_(state), start_(processCpuMs()) {}
    ~CpuPerIteration() {
        if (state_.iterations() > 0)
            state_.counters["cpu_ms"] = (processCpuMs() - start_) / static_cast<double>(state_.iterations());
    }
    CpuPerIteration(const CpuPerIteration&) = delete;
    CpuPerIteration& operator=(const CpuPerIteration&) = delete;

private:
    benchmark::State& state_;
    double start_;
};

inline const char* dtypeLabel(aclDataType t) {
    switch (t) {
        case ACL_FLOAT16: return "fp16";
        case ACL_BF16: return "bf16";
        case ACL_DOUBLE: return "fp64";
        default: return "fp32";
    }
}

// What every operator benchmark reports beside its time: the bytes its tensors hold, the
// process's peak resident memory, and the dtype as the label.
inline void reportFootprint(benchmark::State& state, size_t tensorBytes, aclDataType dtype) {
    state.counters["data_MB"] = static_cast<double>(tensorBytes) / 1e6;
    state.counters["peak_MB"] = peakResidentMB();
    state.SetLabel(dtypeLabel(dtype));
}

}  // namespace opscope::bench
