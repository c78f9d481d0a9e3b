// PreparedCall's copy-on-write outputs: a snapshot that shares an output's storage keeps the
// values it saw while the executor goes on, and the run's results do not change because of it.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "opscope/ops/operator.h"

namespace opscope::ops {
namespace {

HostTensor randomTensor(DType dtype, std::vector<int64_t> shape, unsigned seed) {
    HostTensor t(dtype, std::move(shape));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> value(0.5, 1.5);
    for (int64_t i = 0; i < t.numel(); ++i) t.setFromDouble(i, value(rng));
    return t;
}

// A bf16 RmsNormGrad: several steps (casts, the kernel stages), two outputs.
std::unique_ptr<PreparedCall> preparedRmsNormGrad() {
    OpArguments a;
    a.tensors["dy"] = randomTensor(DType::BFloat16, {6, 40}, 1);
    a.tensors["x"] = randomTensor(DType::BFloat16, {6, 40}, 2);
    a.tensors["rstd"] = randomTensor(DType::Float32, {6, 1}, 3);
    a.tensors["gamma"] = randomTensor(DType::BFloat16, {40}, 4);
    auto call = findOperator("rms_norm_grad")->prepare(a);
    call->bindWorkspace();
    return call;
}

bool sameBytes(const HostTensor& a, const HostTensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

std::vector<HostTensor> deepCopies(const PreparedCall& call) {
    std::vector<HostTensor> out;
    for (const auto& named : call.outputs()) out.push_back(HostTensor::copyOf(named.second.view()));
    return out;
}

TEST(PreparedCallOutputs, ASnapshotTakenMidRunKeepsItsValuesAndTheRunItsResult) {
    auto plain = preparedRmsNormGrad();
    plain->runToEnd();
    const std::vector<HostTensor> expected = deepCopies(*plain);

    auto call = preparedRmsNormGrad();
    ASSERT_GE(call->executor().stepCount(), 2u);
    while (!call->executor().atEnd()) {
        call->executor().runNext();
        const std::vector<std::pair<std::string, HostTensor>> shared = call->outputs();  // shallow
        const std::vector<HostTensor> seen = deepCopies(*call);
        call->detachSharedOutputs(/*keepValues=*/true);
        for (std::size_t i = 0; i < shared.size(); ++i)
            EXPECT_NE(shared[i].second.data(), call->outputs()[i].second.data()) << "output " << i << " did not move";
        if (!call->executor().atEnd()) call->executor().runNext();
        for (std::size_t i = 0; i < shared.size(); ++i)
            EXPECT_TRUE(sameBytes(shared[i].second, seen[i])) << shared[i].first << " changed under its snapshot";
    }
    for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_TRUE(sameBytes(call->outputs()[i].second, expected[i])) << call->outputs()[i].first;
}

TEST(PreparedCallOutputs, ARerunWritesFreshStorageAndLeavesTheSnapshotAlone) {
    auto call = preparedRmsNormGrad();
    call->runToEnd();
    const std::vector<std::pair<std::string, HostTensor>> shared = call->outputs();
    const std::vector<HostTensor> seen = deepCopies(*call);
    call->detachSharedOutputs(/*keepValues=*/false);
    for (const auto& named : call->outputs())
        for (int64_t i = 0; i < named.second.numel(); ++i)
            ASSERT_EQ(named.second.getAsDouble(i), 0.0) << named.first << " moved without its values: zeroed";
    call->bindWorkspace();
    call->runToEnd();
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_TRUE(sameBytes(shared[i].second, seen[i])) << shared[i].first << " snapshot changed";
        EXPECT_TRUE(sameBytes(call->outputs()[i].second, seen[i])) << shared[i].first << " rerun differs";
    }
}

TEST(PreparedCallOutputs, AnOutputNobodyHoldsStaysWhereItIs) {
    auto call = preparedRmsNormGrad();
    call->runToEnd();
    const void* before = call->outputs()[0].second.data();
    call->detachSharedOutputs(true);
    EXPECT_EQ(before, call->outputs()[0].second.data());
}

}  // namespace
}  // namespace opscope::ops
