// EdgeIndex (the metrics' histogram bins and tolerance counts) against std::upper_bound, which it
// replaces: the same answer for every kind of double and every kind of edge list.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "edge_index.h"
#include "element_access.h"
#include "opscope/error.h"
#include "opscope/metrics.h"

using opscope::metrics::detail::EdgeIndex;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double fromBits(uint64_t b) {
    double v;
    std::memcpy(&v, &b, sizeof v);
    return v;
}

// Values where an off-by-one would show: each edge and its neighbours, both zeros, the smallest
// and largest of each sign, infinities, NaNs of both signs, and random bit patterns.
std::vector<double> probesFor(const std::vector<double>& edges) {
    std::vector<double> v{0.0,
                          -0.0,
                          std::numeric_limits<double>::denorm_min(),
                          -std::numeric_limits<double>::denorm_min(),
                          std::numeric_limits<double>::min(),
                          std::numeric_limits<double>::max(),
                          -std::numeric_limits<double>::max(),
                          kInf,
                          -kInf,
                          std::numeric_limits<double>::quiet_NaN(),
                          -std::numeric_limits<double>::quiet_NaN(),
                          fromBits(0x7ff0000000000001ull),
                          fromBits(0xfff8000000000001ull)};
    for (double e : edges)
        for (double x : {e, std::nextafter(e, kInf), std::nextafter(e, -kInf), -e, e * 2, e / 2}) v.push_back(x);
    std::mt19937_64 rng(3);
    std::normal_distribution<double> normal(0, 1);
    for (int i = 0; i < 200000; ++i) {
        v.push_back(fromBits(rng()));
        v.push_back(std::fabs(normal(rng)) * std::pow(10.0, static_cast<double>(i % 24) - 14));
    }
    return v;
}

void expectUpperBound(const std::vector<double>& edges) {
    const EdgeIndex index(edges, "edges");
    for (double v : probesFor(edges)) {
        const auto want = static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin());
        ASSERT_EQ(index.upperBound(v), want) << "value " << v << " among " << edges.size() << " edges";
    }
}

}  // namespace

TEST(EdgeIndex, MatchesUpperBoundOnTheChartsEdges) {
    std::vector<double> bins;
    const opscope::metrics::LogHistogram h = opscope::metrics::detail::emptyLogHistogram(-10, 2, 4);  // the charts'
    for (std::size_t i = 0; i <= h.counts.size(); ++i) bins.push_back(h.edge(i));
    expectUpperBound(bins);
    expectUpperBound(opscope::metrics::logTolerances(-8, 0, 4));
}

TEST(EdgeIndex, MatchesUpperBoundOnUnusualEdges) {
    expectUpperBound({});
    expectUpperBound({1.0});
    expectUpperBound({-kInf, -1.0, -0.0, 0.0, 1e-300, 1.0, 1.0, 1.0, kInf});  // signs, repeats, infinities
    std::vector<double> dense;  // many edges within one binary exponent: the halving search
    for (int i = 0; i < 64; ++i) dense.push_back(1.0 + i / 64.0);
    expectUpperBound(dense);
    std::vector<double> wide;  // every exponent
    for (int e = -1074; e <= 1023; e += 7) wide.push_back(std::ldexp(1.0, e));
    expectUpperBound(wide);
}

TEST(EdgeIndex, RefusesUnsortedOrNaNEdges) {
    EXPECT_THROW(EdgeIndex({2.0, 1.0}, "edges"), opscope::UsageError);
    EXPECT_THROW(EdgeIndex({1.0, std::numeric_limits<double>::quiet_NaN()}, "edges"), opscope::UsageError);
}
