// runOrdered: produce and consume run on the calling thread in order, work on the workers,
// results come back in order whatever the workers' timing, and an exception in work reaches
// the caller after the workers have stopped.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "opscope/ordered_work.h"

using opscope::runOrdered;

TEST(OrderedWork, KeepsOrderAndThreadsForAnyWorkerCount) {
    for (int workers : {1, 2, 3, 8}) {
        const std::thread::id caller = std::this_thread::get_id();
        std::vector<std::size_t> produced, consumed;
        std::vector<int> results;
        runOrdered(
            50, workers,
            [&](std::size_t i) {
                EXPECT_EQ(std::this_thread::get_id(), caller);
                produced.push_back(i);
                return static_cast<int>(i);
            },
            [](int& v) {
                // Later items finish first: the order must not follow the timing.
                std::this_thread::sleep_for(std::chrono::microseconds(50 * (v % 5 == 0 ? 20 : 1)));
                return v * v;
            },
            [&](std::size_t i, int& r) {
                EXPECT_EQ(std::this_thread::get_id(), caller);
                consumed.push_back(i);
                results.push_back(r);
            });
        ASSERT_EQ(consumed.size(), 50u) << workers;
        for (std::size_t i = 0; i < 50; ++i) {
            EXPECT_EQ(produced[i], i);
            EXPECT_EQ(consumed[i], i);
            EXPECT_EQ(results[i], static_cast<int>(i * i));
        }
    }
}

TEST(OrderedWork, AnExceptionInWorkReachesTheCaller) {
    std::size_t consumed = 0;
    EXPECT_THROW(runOrdered(
                     20, 3, [](std::size_t i) { return i; },
                     [](std::size_t& i) -> std::size_t {
                         if (i == 7) throw std::runtime_error("item 7");
                         return i;
                     },
                     [&](std::size_t, std::size_t&) { ++consumed; }),
                 std::runtime_error);
    EXPECT_EQ(consumed, 7u);  // items 0..6, in order, before the failure
}
