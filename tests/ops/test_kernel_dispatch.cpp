// The one dtype switch of the kernels (dispatchKernel in opscope/dispatch.h) and the one dtype
// promotion rule of ConvolutionBackward's outputs.
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <type_traits>

#include "dtype_promotion.h"
#include "opscope/dispatch.h"

namespace opscope {
namespace {

template <class Types>
DType storageDtype(DType t) {
    return dispatchKernel<Types>(t, "TestKernel", [](auto tag) { return dtypeOf<typename decltype(tag)::type>(); });
}

TEST(KernelDispatch, Float32FamilyCallsTheStorageTypeOfEachDtype) {
    for (DType t : {DType::Float32, DType::Float16, DType::BFloat16}) EXPECT_EQ(storageDtype<Float32Family>(t), t);
    int calls = 0;
    dispatchKernel<Float32Family>(DType::Float16, "TestKernel", [&](auto tag) {
        calls += std::is_same_v<typename decltype(tag)::type, half> ? 1 : 100;
    });
    EXPECT_EQ(calls, 1);
}

TEST(KernelDispatch, Float32OrFloat64TakesTheGoldenType) {
    EXPECT_EQ(storageDtype<Float32OrFloat64>(DType::Float32), DType::Float32);
    EXPECT_EQ(storageDtype<Float32OrFloat64>(DType::Float64), DType::Float64);
}

TEST(KernelDispatch, ADtypeTheKernelDoesNotTakeIsAnInternalErrorNamingTheKernel) {
    const auto expectNoVariant = [](auto call, const std::string& what) {
        try {
            call();
            ADD_FAILURE() << "no error for " << what;
        } catch (const StatusError& e) {
            EXPECT_EQ(e.code(), status::kInner);
            EXPECT_EQ(std::string(e.what()), what);
        }
    };
    expectNoVariant([] { storageDtype<Float32Family>(DType::Float64); }, "TestKernel has no float64 variant");
    expectNoVariant([] { storageDtype<Float32Family>(DType::Int32); }, "TestKernel has no int32 variant");
    expectNoVariant([] { storageDtype<Float32OrFloat64>(DType::BFloat16); }, "TestKernel has no bfloat16 variant");
}

// dispatchAll shares the kernels' dispatch over every storage type: each tensor dtype reaches
// its own type, and the dtypes without numeric storage are a parameter error.
TEST(KernelDispatch, DispatchAllReachesEveryStorageTypeAndRefusesTheRest) {
    for (DType t : kStorageDTypes) {
        const DType reached = dispatchAll(t, [](auto tag) { return dtypeOf<typename decltype(tag)::type>(); });
        EXPECT_EQ(reached, t) << dtypeName(t);
        EXPECT_EQ(dispatchAll(t, [](auto tag) { return sizeof(typename decltype(tag)::type); }), dtypeSize(t));
    }
    EXPECT_EQ(std::size(kStorageDTypes), 13u);
    for (DType t : {DType::String, DType::Complex64, DType::Complex128, DType::Undefined}) {
        try {
            dispatchAll(t, [](auto) { return 0; });
            ADD_FAILURE() << "no error for " << dtypeName(t);
        } catch (const StatusError& e) {
            EXPECT_EQ(e.code(), status::kParamInvalid);
            EXPECT_EQ(std::string(e.what()), std::string("dtype ") + dtypeName(t) + " has no numeric storage");
        }
    }
}

TEST(ConvolutionDtypePromotion, EqualStaysMorePreciseWinsHalfWithBFloat16IsFloat32) {
    EXPECT_EQ(conv::promoteDtype(DType::Float16, DType::Float16), DType::Float16);
    EXPECT_EQ(conv::promoteDtype(DType::BFloat16, DType::BFloat16), DType::BFloat16);
    EXPECT_EQ(conv::promoteDtype(DType::Float16, DType::Float32), DType::Float32);
    EXPECT_EQ(conv::promoteDtype(DType::Float32, DType::BFloat16), DType::Float32);
    EXPECT_EQ(conv::promoteDtype(DType::Float16, DType::BFloat16), DType::Float32);
    EXPECT_EQ(conv::promoteDtype(DType::BFloat16, DType::Float16), DType::Float32);
    EXPECT_EQ(conv::promoteDtype(DType::Float64, DType::Float32), DType::Float64);
}

}  // namespace
}  // namespace opscope
