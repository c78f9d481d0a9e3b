// The enum name tables (opscope/names.h) and the names every table gives: written names round
// trip, aliases parse to their value, and unknown text or values get the caller's fallback.
#include <gtest/gtest.h>

#include "opscope/dtype.h"
#include "opscope/metrics.h"
#include "opscope/names.h"
#include "opscope/plan.h"
#include "opscope/product.h"
#include "opscope/trace.h"
#include "opscope/view/colormap.h"
#include "opscope/view/scale.h"

namespace opscope {
namespace {

enum class Fruit { Apple, Pear, Plum };
constexpr Named<Fruit> kFruits[] = {
    {Fruit::Apple, "apple"}, {Fruit::Pear, "pear"}, {Fruit::Apple, "malus"}, {Fruit::Apple, "apple-again"}};

TEST(Names, TheFirstRowForAValueIsItsName) {
    EXPECT_STREQ(nameOf(kFruits, Fruit::Apple), "apple");
    EXPECT_STREQ(nameOf(kFruits, Fruit::Pear), "pear");
    EXPECT_STREQ(nameOf(kFruits, Fruit::Plum), "?");
    EXPECT_STREQ(nameOf(kFruits, Fruit::Plum, "no fruit"), "no fruit");
}

TEST(Names, EveryRowParsesExactly) {
    EXPECT_EQ(valueNamed("malus", kFruits), Fruit::Apple);
    EXPECT_EQ(valueNamed("pear", kFruits), Fruit::Pear);
    EXPECT_EQ(valueNamed("Pear", kFruits), std::nullopt);
    EXPECT_EQ(valueNamed("", kFruits), std::nullopt);
    Fruit f = Fruit::Plum;
    EXPECT_TRUE(parseNamed("pear", kFruits, &f));
    EXPECT_EQ(f, Fruit::Pear);
    EXPECT_FALSE(parseNamed("plum", kFruits, &f));
    EXPECT_EQ(f, Fruit::Pear);  // untouched on failure
    EXPECT_TRUE(parseNamed("apple", kFruits, static_cast<Fruit*>(nullptr)));
}

TEST(Names, ValuesOfListsEachValueOnceInFirstRowOrder) {
    constexpr Named<Fruit> kPearFirst[] = {{Fruit::Pear, "pear"}, {Fruit::Apple, "apple"}, {Fruit::Pear, "pyrus"}};
    EXPECT_EQ(valuesOf(kFruits), (std::vector<Fruit>{Fruit::Apple, Fruit::Pear}));
    EXPECT_EQ(valuesOf(kPearFirst), (std::vector<Fruit>{Fruit::Pear, Fruit::Apple}));
    // The lists the menus and loops use, taken from the name tables, in the order they had.
    EXPECT_EQ(allProducts(), (std::vector<Product>{Product::AtlasTraining, Product::AtlasA2, Product::AtlasA3,
                                                   Product::AtlasInference}));
    EXPECT_EQ(view::allColormaps(), (std::vector<view::Colormap>{view::Colormap::CoolWarm, view::Colormap::Viridis,
                                                                 view::Colormap::Magma, view::Colormap::Gray}));
}

TEST(Names, WrittenNamesRoundTrip) {
    for (Product p : allProducts()) {
        Product back = Product::AtlasA2;
        ASSERT_TRUE(parseProduct(productId(p), &back)) << productId(p);
        EXPECT_EQ(back, p);
    }
    for (DType t : {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64, DType::Int8, DType::UInt64,
                    DType::Bool, DType::Complex128, DType::Undefined})
        EXPECT_EQ(dtypeFromName(dtypeName(t)), t) << dtypeName(t);
    for (TraceLevel l : {TraceLevel::Metadata, TraceLevel::Stats, TraceLevel::Full}) {
        TraceLevel back = TraceLevel::Stats;
        ASSERT_TRUE(parseTraceLevel(traceLevelName(l), &back));
        EXPECT_EQ(back, l);
    }
    for (metrics::Verdict v : {metrics::Verdict::Pass, metrics::Verdict::Warning, metrics::Verdict::Fail})
        EXPECT_EQ(metrics::verdictNamed(metrics::verdictName(v)), v);
    EXPECT_EQ(metrics::verdictNamed("FAIL"), std::nullopt);
    for (view::Colormap c : view::allColormaps()) {
        view::Colormap back = view::Colormap::Gray;
        ASSERT_TRUE(view::parseColormap(view::colormapName(c), &back));
        EXPECT_EQ(back, c);
    }
}

TEST(Names, AliasesAndFallbacksStayAsBefore) {
    EXPECT_EQ(dtypeFromName("BF16"), DType::BFloat16);
    EXPECT_EQ(dtypeFromName("double"), DType::Float64);
    EXPECT_EQ(dtypeFromName("float8"), DType::Undefined);
    EXPECT_STREQ(dtypeName(static_cast<DType>(5)), "unknown");
    Product p = Product::AtlasA2;
    EXPECT_TRUE(parseProduct("Ascend910B", &p));
    EXPECT_EQ(p, Product::AtlasA2);
    EXPECT_TRUE(parseProduct("310p", &p));
    EXPECT_EQ(p, Product::AtlasInference);
    EXPECT_FALSE(parseProduct("910x", &p));
    EXPECT_STREQ(productId(static_cast<Product>(99)), "a2");
    TraceLevel l = TraceLevel::Stats;
    EXPECT_TRUE(parseTraceLevel("tensors", &l));
    EXPECT_EQ(l, TraceLevel::Full);
    EXPECT_STREQ(traceLevelName(static_cast<TraceLevel>(9)), "stats");
    EXPECT_STREQ(metrics::verdictName(static_cast<metrics::Verdict>(9)), "fail");
    EXPECT_STREQ(slotKindName(SlotKind::Scratch), "scratch");
    view::ScaleKind s = view::ScaleKind::Linear;
    EXPECT_TRUE(view::parseScale("symlog", &s));
    EXPECT_EQ(s, view::ScaleKind::SymLog);
    EXPECT_FALSE(view::parseScale("Log", &s));
    view::RangeMode m = view::RangeMode::Autofit;
    EXPECT_TRUE(view::parseRangeMode("percentile", &m));
    EXPECT_EQ(m, view::RangeMode::Percentile);
}

}  // namespace
}  // namespace opscope
