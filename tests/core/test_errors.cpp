// The one error family (opscope/error.h): each kind is thrown where its cause is, callers can
// tell the kinds apart by class or by kind(), and readers of optional things return nothing
// instead of throwing.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "opscope/case_file.h"
#include "opscope/error.h"
#include "opscope/h5/attribute_value.h"
#include "opscope/h5/file_safety.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/host_tensor.h"
#include "opscope/import/format_error.h"
#include "opscope/metrics.h"
#include "opscope/trace.h"
#include "scratch_dir.h"

namespace opscope {
namespace {

using test::ScratchDir;

// Runs f and returns the kind of the opscope::Error it throws; fails when it throws nothing.
template <class F>
ErrorKind kindThrownBy(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.kind();
    }
    ADD_FAILURE() << "nothing was thrown";
    return ErrorKind::Usage;
}

TEST(ErrorFamily, EveryClassHasItsKindAndIsARuntimeError) {
    EXPECT_EQ(ContentError("c").kind(), ErrorKind::Content);
    EXPECT_EQ(IoError("i").kind(), ErrorKind::Io);
    EXPECT_EQ(StatusError(status::kParamInvalid, "s").kind(), ErrorKind::Status);
    EXPECT_EQ(StatusError(status::kParamInvalid, "s").code(), status::kParamInvalid);
    EXPECT_EQ(UsageError("u").kind(), ErrorKind::Usage);
    EXPECT_EQ(import::FormatError("f").kind(), ErrorKind::Content);
    EXPECT_EQ(h5::ExternalDataError("x").kind(), ErrorKind::Content);
    EXPECT_STREQ(ContentError("one sentence").what(), "one sentence");
    // A file error is content or I/O: what every reader of a file may throw.
    EXPECT_THROW(throw ContentError("c"), FileError);
    EXPECT_THROW(throw IoError("i"), FileError);
    EXPECT_THROW(throw UsageError("u"), std::runtime_error);
    EXPECT_THROW(throw StatusError(1, "s"), Error);
}

TEST(ErrorFamily, AFileHdf5CannotOpenIsAnIoError) {
    ScratchDir dir;
    const std::string path = dir.file("not_hdf5.h5");
    std::ofstream(path) << "plain text, not HDF5\n";
    EXPECT_EQ(kindThrownBy([&] { h5::File::openReadOnly(path); }), ErrorKind::Io);
}

TEST(ErrorFamily, AFileWithTheWrongContentIsAContentError) {
    ScratchDir dir;
    const std::string path = dir.file("plain.h5");
    {
        h5::File f = h5::File::create(path);
        h5::writeTensor(f, "/t", HostTensor(DType::Float32, {2}));
        f.createGroup("/g");
    }
    const h5::File f = h5::File::openReadOnly(path);
    EXPECT_EQ(kindThrownBy([&] { h5::readTensor(f, "/missing"); }), ErrorKind::Content);
    EXPECT_EQ(kindThrownBy([&] { h5::readTensor(f, "/g"); }), ErrorKind::Content);
    EXPECT_EQ(kindThrownBy([&] { readTraceExecutor(f, 0); }), ErrorKind::Content);
    EXPECT_EQ(kindThrownBy([&] { cases::readCase(f, "/g"); }), ErrorKind::Content);
}

TEST(ErrorFamily, AWrongArgumentIsAUsageError) {
    EXPECT_EQ(kindThrownBy([] { metrics::parseStandard("strict"); }), ErrorKind::Usage);
    EXPECT_EQ(kindThrownBy([] { HostTensor(DType::Float32, {-1}); }), ErrorKind::Usage);
    EXPECT_EQ(kindThrownBy([] { paramFromString("int", "1.5"); }), ErrorKind::Usage);
}

TEST(ErrorFamily, TheCApiGuardReturnsTheStatusCodeAndOtherKindsAsInner) {
    EXPECT_EQ(guardCApi("aclnnX", [] { fail(status::kParamNullptr, "self is null"); }), status::kParamNullptr);
    EXPECT_STREQ(recentErrorMessage(), "[161001] aclnnX: self is null");
    EXPECT_EQ(guardCApi("aclnnX", [] { throw UsageError("bad"); }), status::kInner);
    EXPECT_EQ(guardCApi("aclnnX", [] {}), status::kSuccess);
}

// Readers of optional things: an attribute that is absent or of another type is nothing, not an
// exception caught and forgotten.
TEST(OptionalReaders, AttributesOfAnotherTypeAreNothing) {
    ScratchDir dir;
    const std::string path = dir.file("attrs.h5");
    {
        h5::File f = h5::File::create(path);
        f.createGroup("/numbered");
        f.writeAttribute("/numbered", "op", int64_t{3});
        f.createGroup("/named");
        f.writeAttribute("/named", "op", "aclnnRmsNormGrad");
        f.writeAttribute("/named", "pair", std::vector<std::string>{"a", "b"});
        f.writeAttribute("/", "opscope_format", int64_t{2});
    }
    const h5::File f = h5::File::openReadOnly(path);
    EXPECT_FALSE(cases::isCaseGroup(f, "/numbered"));  // someone else's data
    EXPECT_TRUE(cases::isCaseGroup(f, "/named"));
    EXPECT_FALSE(cases::isTraceFile(f));
    EXPECT_EQ(h5::readStringAttributeIfPresent(f, "/named", "op"), std::optional<std::string>("aclnnRmsNormGrad"));
    EXPECT_EQ(h5::readStringAttributeIfPresent(f, "/named", "absent"), std::nullopt);
    EXPECT_EQ(h5::readStringAttributeIfPresent(f, "/numbered", "op"), std::nullopt);
    EXPECT_FALSE(h5::readAttributeValueIfParameter(f, "/named", "pair").has_value());
    EXPECT_EQ(kindThrownBy([&] { h5::readAttributeValue(f, "/named", "pair"); }), ErrorKind::Content);
}

}  // namespace
}  // namespace opscope
