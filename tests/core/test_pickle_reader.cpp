// The pickle reader's values are shared, and a pickle may hold itself (Python pickles a dict with
// a reference to itself without complaint: datasets/msprobe/readers/cycle.pt). What it built must
// still be freed, whether the load succeeds or stops half-way.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "opscope/import/format_error.h"
#include "pickle_reader.h"

namespace opscope::import::detail {
namespace {

// {"self": <the dict itself>}: EMPTY_DICT, BINPUT 0, MARK, "self", BINGET 0, SETITEMS, STOP.
const std::string kSelfDict = std::string("\x80\x02}q\x00(X\x04\x00\x00\x00selfh\x00u.", 19);

TEST(PickleReader, ADictHoldingItselfIsFreedWithItsArena) {
    std::weak_ptr<PyValue> seen;
    {
        PickleArena arena;
        const PyRef root = loadPickle(kSelfDict, "self.pkl", {}, arena);
        ASSERT_EQ(root->kind, PyValue::Kind::Dict);
        ASSERT_EQ(root->items.size(), 2u);
        EXPECT_EQ(root->items[1], root);  // the cycle is there while the arena is
        seen = root;
    }
    EXPECT_TRUE(seen.expired());
}

TEST(PickleReader, APickleThatFailsHalfWayLeavesNoCycleBehind) {
    // The same dict, handed to a call (which keeps a weak reference to it), then a string that
    // declares 16 bytes and holds 2 where STOP should be.
    using namespace std::string_literals;  // the bytes hold NULs
    const std::string pickle =
        kSelfDict.substr(0, kSelfDict.size() - 1) + "c__main__\nf\nh\x00\x85R"s + "X\x10\x00\x00\x00"s + "ab";
    std::weak_ptr<PyValue> seen;
    bool called = false;
    PickleHooks hooks;
    hooks.call = [&](const std::string&, const PyRef& args) {
        called = true;
        seen = args->items.at(0);
        return makeValue(PyValue::Kind::None);
    };
    PickleArena arena;
    EXPECT_THROW(loadPickle(pickle, "cut.pkl", hooks, arena), FormatError);
    ASSERT_TRUE(called);
    EXPECT_TRUE(seen.expired());
}

}  // namespace
}  // namespace opscope::import::detail
