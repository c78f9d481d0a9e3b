// Case files: write and read back, finding nested cases, summaries from metadata, attributes
// of every h5py type as parameters (a fixture written with the raw C API), one-sentence
// errors, atomic writes that refuse inputs, and traces replayed as cases.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "group_norm_params.h"
#include "opscope/case_file.h"
#include "opscope/h5/attribute_value.h"
#include "opscope/h5/h5_file.h"
#include "scratch_dir.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/trace.h"

namespace fs = std::filesystem;
using namespace opscope;
using namespace opscope::cases;

namespace {

using test::errorOf;
using test::ScratchDir;

Case sampleCase(const std::string& path) {
    Case c;
    c.path = path;
    c.op = "aclnnGroupNormBackward";
    c.description = "two groups";
    c.params = fixtures::groupNormParams(2, 4, 3, 2, {true, false, true});
    // Beside them, one parameter of every other kind.
    c.params.insert(c.params.end(), {{"eps", 1e-5},
                                     {"stride", std::vector<int64_t>{1, 2}},
                                     {"transposed", false},
                                     {"mode", std::string("bilinear")}});
    std::vector<double> x(24);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.25 * static_cast<double>(i) - 3;
    c.inputs.emplace_back("input", HostTensor::fromDoubles(DType::Float32, {2, 4, 3}, x));
    c.inputs.emplace_back("gamma", HostTensor::fromDoubles(DType::BFloat16, {4}, {1, 1.5, 2, 0.5}));
    OutputSource expected;
    expected.name = "expected";
    expected.description = "PyTorch float64";
    expected.tensors.emplace_back("gradInput", HostTensor::fromDoubles(DType::Float64, {2, 4, 3}, x));
    OutputSource npu;
    npu.name = "npu";
    npu.role = SourceRole::Actual;
    npu.tensors.emplace_back("gradInput", HostTensor::fromDoubles(DType::Float32, {2, 4, 3}, x));
    c.sources = {expected, npu};
    return c;
}

bool sameBits(const HostTensor& a, const HostTensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

const Param* findParam(const std::vector<Param>& params, const std::string& name) {
    for (const Param& p : params)
        if (p.name == name) return &p;
    return nullptr;
}

}  // namespace

TEST(CaseFile, WriteAndReadBack) {
    ScratchDir dir;
    const std::string path = dir.file("cases.h5");
    writeCaseFile(path, {sampleCase("/gn/fp32/basic"), sampleCase("/gn/other")});

    h5::File f = h5::File::openReadOnly(path);
    EXPECT_EQ(f.readAttribute<std::string>("/", "opscope_format"), "cases");
    EXPECT_EQ(findCases(f), (std::vector<std::string>{"/gn/fp32/basic", "/gn/other"}));
    const Case c = readCase(f, "/gn/fp32/basic");
    EXPECT_EQ(c.op, "aclnnGroupNormBackward");
    EXPECT_EQ(c.description, "two groups");
    EXPECT_EQ(c.origin, "case");
    // Parameters come back with their types (attribute order is by name).
    ASSERT_EQ(c.params.size(), 9u);
    EXPECT_EQ(std::get<int64_t>(findParam(c.params, "N")->value), 2);
    EXPECT_EQ(std::get<std::vector<bool>>(findParam(c.params, "outputMask")->value),
              (std::vector<bool>{true, false, true}));
    EXPECT_DOUBLE_EQ(std::get<double>(findParam(c.params, "eps")->value), 1e-5);
    EXPECT_EQ(std::get<std::vector<int64_t>>(findParam(c.params, "stride")->value), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(std::get<bool>(findParam(c.params, "transposed")->value), false);
    EXPECT_EQ(std::get<std::string>(findParam(c.params, "mode")->value), "bilinear");
    // Inputs keep dtype, shape and values.
    ASSERT_NE(c.input("gamma"), nullptr);
    EXPECT_EQ(c.input("gamma")->dtype(), DType::BFloat16);
    EXPECT_DOUBLE_EQ(c.input("gamma")->getAsDouble(1), 1.5);
    EXPECT_EQ(c.input("input")->shape(), (std::vector<int64_t>{2, 4, 3}));
    EXPECT_DOUBLE_EQ(c.input("input")->getAsDouble(5), -1.75);
    // Sources with their roles.
    ASSERT_EQ(c.sources.size(), 2u);
    ASSERT_NE(c.source("expected"), nullptr);
    EXPECT_EQ(c.source("expected")->role, SourceRole::Reference);
    EXPECT_EQ(c.source("expected")->description, "PyTorch float64");
    EXPECT_EQ(c.source("expected")->find("gradInput")->dtype(), DType::Float64);
    EXPECT_EQ(c.source("npu")->role, SourceRole::Actual);
    EXPECT_EQ(c.source("npu")->find("gradBetaOut"), nullptr);
}

// An import's workers compress a case's large tensors (prepareCase) and its writer only writes
// them: the case reads back the same, its large tensors stored compressed as writeCase stores them.
TEST(CaseFile, PreparedCasesWriteTheSameCase) {
    ScratchDir dir;
    Case c = sampleCase("/gn/large");
    std::vector<double> big(40000);  // 160 KB of float32: over the 64 KiB from which tensors compress
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = std::sin(0.01 * static_cast<double>(i));
    c.inputs.emplace_back("big", HostTensor::fromDoubles(DType::Float32, {200, 200}, big));
    c.sources[1].tensors.emplace_back("bigGrad", HostTensor::fromDoubles(DType::BFloat16, {400, 100}, big));
    const PreparedCase prepared = prepareCase(c);
    EXPECT_EQ(2u, prepared.compressed.size());
    EXPECT_EQ(1u, prepared.compressed.count("inputs/big"));
    EXPECT_EQ(1u, prepared.compressed.count("npu/bigGrad"));
    {
        CaseFileWriter writer(dir.file("prepared.h5"));
        writer.add(prepared);
        writer.commit();
    }
    writeCaseFile(dir.file("plain.h5"), {c});
    h5::File plain = h5::File::openReadOnly(dir.file("plain.h5"));
    h5::File fromPrepared = h5::File::openReadOnly(dir.file("prepared.h5"));
    const Case a = readCase(plain, "/gn/large"), b = readCase(fromPrepared, "/gn/large");
    ASSERT_EQ(a.inputs.size(), b.inputs.size());
    for (std::size_t i = 0; i < a.inputs.size(); ++i) EXPECT_TRUE(sameBits(a.inputs[i].second, b.inputs[i].second));
    ASSERT_EQ(a.sources.size(), b.sources.size());
    for (std::size_t s = 0; s < a.sources.size(); ++s)
        for (std::size_t t = 0; t < a.sources[s].tensors.size(); ++t)
            EXPECT_TRUE(sameBits(a.sources[s].tensors[t].second, b.sources[s].tensors[t].second));
    EXPECT_TRUE(sameBits(*c.input("big"), *b.input("big")));
    for (const char* big : {"/gn/large/inputs/big", "/gn/large/npu/bigGrad"}) {
        EXPECT_TRUE(h5::datasetInfo(fromPrepared, big).compressed) << big;
        EXPECT_EQ(h5::datasetInfo(plain, big).storageBytes, h5::datasetInfo(fromPrepared, big).storageBytes) << big;
    }
}

TEST(CaseFile, CompactTensorsReadBackAsTheOlderContiguousOnes) {
    // The writer stores small tensors compact (in their object headers); files written before,
    // with every tensor contiguous, read back to the same case.
    ScratchDir dir;
    const Case c = sampleCase("/gn/basic");
    writeCaseFile(dir.file("compact.h5"), {c});
    {
        h5::File old = h5::File::create(dir.file("contiguous.h5"));
        old.writeAttribute("/", "opscope_format", "cases");
        old.createGroup(c.path);
        old.writeAttribute(c.path, kOpAttribute, c.op);
        old.writeAttribute(c.path, kDescriptionAttribute, c.description);
        for (const Param& p : c.params) h5::writeAttributeValue(old, c.path, p.name, p.value);
        for (const auto& [name, t] : c.inputs) h5::writeTensor(old, c.path + "/inputs/" + name, t);
        for (const OutputSource& s : c.sources) {
            old.createGroup(c.path + "/" + s.name);
            old.writeAttribute(c.path + "/" + s.name, kRoleAttribute, sourceRoleName(s.role));
            if (!s.description.empty()) old.writeAttribute(c.path + "/" + s.name, kDescriptionAttribute, s.description);
            for (const auto& [name, t] : s.tensors) h5::writeTensor(old, c.path + "/" + s.name + "/" + name, t);
        }
        old.close();
    }
    const h5::File compact = h5::File::openReadOnly(dir.file("compact.h5"));
    const h5::File contiguous = h5::File::openReadOnly(dir.file("contiguous.h5"));
    EXPECT_FALSE(h5::datasetInfo(compact, "/gn/basic/inputs/input").chunked);
    const Case a = readCase(compact, c.path), b = readCase(contiguous, c.path);
    EXPECT_EQ(a.op, b.op);
    EXPECT_EQ(a.description, b.description);
    ASSERT_EQ(a.params.size(), b.params.size());
    for (std::size_t i = 0; i < a.params.size(); ++i) {
        EXPECT_EQ(a.params[i].name, b.params[i].name);
        EXPECT_EQ(a.params[i].value, b.params[i].value);
    }
    ASSERT_EQ(a.inputs.size(), b.inputs.size());
    for (std::size_t i = 0; i < a.inputs.size(); ++i) {
        EXPECT_EQ(a.inputs[i].first, b.inputs[i].first);
        EXPECT_TRUE(sameBits(a.inputs[i].second, b.inputs[i].second)) << a.inputs[i].first;
        EXPECT_TRUE(sameBits(a.inputs[i].second, *c.input(a.inputs[i].first))) << a.inputs[i].first;
    }
    ASSERT_EQ(a.sources.size(), b.sources.size());
    for (std::size_t i = 0; i < a.sources.size(); ++i) {
        EXPECT_EQ(a.sources[i].name, b.sources[i].name);
        EXPECT_EQ(a.sources[i].role, b.sources[i].role);
        ASSERT_EQ(a.sources[i].tensors.size(), b.sources[i].tensors.size());
        for (std::size_t k = 0; k < a.sources[i].tensors.size(); ++k)
            EXPECT_TRUE(sameBits(a.sources[i].tensors[k].second, b.sources[i].tensors[k].second));
    }
}

TEST(CaseFile, SummaryFromMetadata) {
    ScratchDir dir;
    const std::string path = dir.file("cases.h5");
    writeCaseFile(path, {sampleCase("/a")});
    h5::File f = h5::File::openReadOnly(path);
    const CaseSummary s = inspectCase(f, "/a");
    EXPECT_EQ(s.op, "aclnnGroupNormBackward");
    ASSERT_EQ(s.inputs.size(), 2u);
    EXPECT_EQ(s.inputs[0].name, "gamma");
    EXPECT_EQ(s.inputs[0].dtype, DType::BFloat16);
    EXPECT_EQ(s.inputs[1].shape, (std::vector<int64_t>{2, 4, 3}));
    ASSERT_EQ(s.sources.size(), 2u);
    EXPECT_EQ(s.sources[1].name, "npu");
    EXPECT_EQ(s.sources[1].tensors[0].typeName, "float32");
}

TEST(CaseFile, FindsNestedCasesButNotInsideACase) {
    ScratchDir dir;
    const std::string path = dir.file("nested.h5");
    {
        h5::File f = h5::File::create(path);
        f.createGroup("/weights/layer1");
        h5::writeTensor(f, "/weights/layer1/kernel", HostTensor(DType::Float32, {3, 3}));
        for (const char* p : {"/z/case", "/a/b/c/case", "/a/case"}) writeCase(f, p, sampleCase(p));
        // A group inside a case with an 'op' attribute is part of that case, not another case.
        f.writeAttribute("/a/case/expected", "op", "shadow");
        // An 'op' attribute that is not a string does not make a case.
        f.createGroup("/numbers");
        f.writeAttribute("/numbers", "op", int64_t{3});
    }
    h5::File f = h5::File::openReadOnly(path);
    EXPECT_EQ(findCases(f), (std::vector<std::string>{"/a/b/c/case", "/a/case", "/z/case"}));
    EXPECT_EQ(findCases(f, "/a/b"), (std::vector<std::string>{"/a/b/c/case"}));
    EXPECT_EQ(findCases(f, "/a/case"), (std::vector<std::string>{"/a/case"}));
    EXPECT_TRUE(findCases(f, "/weights").empty());
    EXPECT_CONTAINS(errorOf([&] { findCases(f, "/nowhere"); }), "no group '/nowhere'");
    EXPECT_CONTAINS(errorOf([&] { findCases(f, "/weights/layer1/kernel"); }), "is a dataset, not a group");
}

TEST(CaseFile, AttributesOfEveryH5pyTypeAsParameters) {
    // The raw C API, writing what h5py writes for Python values and numpy arrays.
    ScratchDir dir;
    const std::string path = dir.file("h5py_like.h5");
    {
        const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const hid_t group = H5Gcreate2(file, "/case", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        auto attr = [&](const char* name, hid_t type, hid_t space, const void* data) {
            const hid_t a = H5Acreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
            H5Awrite(a, type, data);
            H5Aclose(a);
        };
        const hid_t scalar = H5Screate(H5S_SCALAR);
        const hsize_t three[1] = {3}, one[1] = {1};
        const hid_t vec3 = H5Screate_simple(1, three, nullptr);
        const hid_t vec1 = H5Screate_simple(1, one, nullptr);
        const int32_t i32 = 7;
        attr("int32", H5T_STD_I32LE, scalar, &i32);
        const uint8_t u8[3] = {1, 2, 250};
        attr("uint8s", H5T_STD_U8LE, vec3, u8);
        const float f32[3] = {0.5f, 1.5f, -2.0f};
        attr("floats", H5T_IEEE_F32LE, vec3, f32);
        const int64_t single[1] = {42};
        attr("one_int", H5T_STD_I64LE, vec1, single);
        h5::Handle boolType = h5::makeBoolType();
        const int8_t mask[3] = {1, 0, 1};
        attr("mask", boolType.id(), vec3, mask);
        const int8_t yes = 1;
        attr("flag", boolType.id(), scalar, &yes);
        const hid_t fixed = H5Tcopy(H5T_C_S1);
        H5Tset_size(fixed, 8);
        H5Tset_strpad(fixed, H5T_STR_NULLPAD);
        const char text[8] = {'n', 'e', 'a', 'r', 'e', 's', 't', 0};
        attr("fixed_string", fixed, scalar, text);
        const hid_t compound = H5Tcreate(H5T_COMPOUND, 8);
        H5Tinsert(compound, "a", 0, H5T_NATIVE_INT32);
        H5Tinsert(compound, "b", 4, H5T_NATIVE_FLOAT);
        const char raw[8] = {};
        attr("pair", compound, scalar, raw);
        H5Tclose(compound);
        H5Tclose(fixed);
        H5Sclose(vec1);
        H5Sclose(vec3);
        H5Sclose(scalar);
        H5Gclose(group);
        H5Fclose(file);
    }
    h5::File f = h5::File::openReadOnly(path);
    using V = ParamValue;
    EXPECT_EQ(h5::readAttributeValue(f, "/case", "int32"), V(int64_t{7}));
    EXPECT_EQ(h5::readAttributeValue(f, "/case", "uint8s"), V(std::vector<int64_t>{1, 2, 250}));
    EXPECT_EQ(h5::readAttributeValue(f, "/case", "floats"), V(std::vector<double>{0.5, 1.5, -2.0}));
    EXPECT_EQ(h5::readAttributeValue(f, "/case", "one_int"), V(std::vector<int64_t>{42}));
    EXPECT_EQ(h5::readAttributeValue(f, "/case", "mask"), V(std::vector<bool>{true, false, true}));
    EXPECT_EQ(h5::readAttributeValue(f, "/case", "flag"), V(true));
    EXPECT_EQ(h5::readAttributeValue(f, "/case", "fixed_string"), V(std::string("nearest")));
    EXPECT_CONTAINS(errorOf([&] { h5::readAttributeValue(f, "/case", "pair"); }), "no operator parameter takes");
    EXPECT_CONTAINS(errorOf([&] { h5::readAttributeValue(f, "/case", "missing"); }), "no attribute 'missing'");
    EXPECT_EQ(h5::describeAttribute(f, "/case", "mask"), "bool[3]");
    EXPECT_EQ(h5::describeAttribute(f, "/case", "int32"), "int32");
    EXPECT_EQ(h5::attributeText(f, "/case", "floats"), "[0.5, 1.5, -2]");
    EXPECT_EQ(h5::attributeText(f, "/case", "fixed_string"), "\"nearest\"");
    EXPECT_EQ(h5::attributeText(f, "/case", "pair"), "<compound>");
}

TEST(CaseFile, ErrorsAreOneSentenceNamingThePath) {
    ScratchDir dir;
    const std::string path = dir.file("bad.h5");
    {
        h5::File f = h5::File::create(path);
        f.createGroup("/no_inputs");
        f.writeAttribute("/no_inputs", "op", "aclnnGroupNormBackward");
        writeCase(f, "/loose", sampleCase("/loose"));
        h5::writeTensor(f, "/loose/stray", HostTensor(DType::Float32, {2}));
        writeCase(f, "/nested_input", sampleCase("/nested_input"));
        f.createGroup("/nested_input/inputs/deeper");
        writeCase(f, "/bad_role", sampleCase("/bad_role"));
        f.writeAttribute("/bad_role/npu", "role", "judge");
        writeCase(f, "/strings", sampleCase("/strings"));
        f.writeAttribute("/strings", "names", std::vector<std::string>{"a", "b"});
        f.createGroup("/plain");
    }
    h5::File f = h5::File::openReadOnly(path);
    EXPECT_CONTAINS(errorOf([&] { readCase(f, "/no_inputs"); }), "has no group 'inputs'");
    EXPECT_CONTAINS(errorOf([&] { readCase(f, "/loose"); }),
                    "'/loose/stray' in '" + path + "' is a dataset directly inside the case");
    EXPECT_CONTAINS(errorOf([&] { readCase(f, "/nested_input"); }), "may hold only tensor datasets");
    EXPECT_CONTAINS(errorOf([&] { readCase(f, "/bad_role"); }), "has role \"judge\"");
    EXPECT_CONTAINS(errorOf([&] { readCase(f, "/strings"); }), "array of 2 strings");
    EXPECT_CONTAINS(errorOf([&] { readCase(f, "/plain"); }), "is not a case");
    EXPECT_CONTAINS(errorOf([&] { readCase(f, "/missing"); }), "no case '/missing'");
    // The summary is lenient about parameters it cannot type, for listings.
    const CaseSummary s = inspectCase(f, "/strings");
    EXPECT_EQ(std::get<std::string>(findParam(s.params, "names")->value), "<string[2]>");
}

TEST(CaseFile, WritingIsAtomicAndNeverOverwritesAnInput) {
    ScratchDir dir;
    const std::string input = dir.file("in.h5");
    writeCaseFile(input, {sampleCase("/a")});
    const auto before = fs::file_size(input);
    EXPECT_CONTAINS(errorOf([&] { writeCaseFile(input, {sampleCase("/b")}, {input}); }), "it is also an input");
    EXPECT_EQ(fs::file_size(input), before);
    EXPECT_EQ(findCases(h5::File::openReadOnly(input)), std::vector<std::string>{"/a"});
    // A failure while writing leaves the old file and no temporary behind.
    Case reserved = sampleCase("/b");
    reserved.params.push_back({"op_name", int64_t{1}});
    reserved.params.push_back({"opscope_hidden", int64_t{1}});
    EXPECT_CONTAINS(errorOf([&] { writeCaseFile(input, {reserved}); }), "parameter name 'opscope_hidden' is reserved");
    EXPECT_EQ(findCases(h5::File::openReadOnly(input)), std::vector<std::string>{"/a"});
    int files = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(input).parent_path())) files += entry.is_regular_file();
    EXPECT_EQ(files, 1);
    // Two cases at one path.
    EXPECT_CONTAINS(errorOf([&] {
                        writeCaseFile(dir.file("twice.h5"), {sampleCase("/a"), sampleCase("/a")});
                    }),
                    "already exists");
    EXPECT_FALSE(isReservedAttribute("group"));
    EXPECT_TRUE(isReservedAttribute("standard"));
}

// The product a file's cases came from (import msprobe --product) reads back with each case; a
// file that names a product OpScope does not know still reads, and says what it names.
TEST(CaseFile, TheRecordedProductReadsBackWithTheCases) {
    ScratchDir dir;
    for (const auto& [id, expected] :
         std::vector<std::pair<std::string, std::optional<Product>>>{{"training", Product::AtlasTraining},
                                                                     {"A2", Product::AtlasA2},
                                                                     {"a5", std::nullopt},
                                                                     {"", std::nullopt}}) {
        SCOPED_TRACE(id);
        const std::string path = dir.file("product_" + id + ".h5");
        CaseFileWriter writer(path);
        writer.add(sampleCase("/gn/basic"));
        if (!id.empty()) writer.setRootAttribute(kProductAttribute, id);
        writer.commit();
        const h5::File f = h5::File::openReadOnly(path);
        std::string unknown = "stale";
        EXPECT_EQ(recordedProductOf(f, &unknown), expected);
        EXPECT_EQ(unknown, id == "a5" ? "a5" : "");
        EXPECT_EQ(readCase(f, "/gn/basic").product, expected);
    }
    const std::string number = dir.file("product_number.h5");  // not text at all
    writeCaseFile(number, {sampleCase("/gn/basic")});
    h5::File::openReadWrite(number).writeAttribute("/", kProductAttribute, int64_t{5});
    std::string unknown;
    EXPECT_EQ(recordedProductOf(h5::File::openReadOnly(number), &unknown), std::nullopt);
    EXPECT_EQ(unknown, "5");
}

TEST(CaseFile, TracesReplayAsCases) {
    ScratchDir dir;
    const std::string path = dir.file("trace.h5");
    auto run = [](int64_t alpha) {
        HostTensor x = HostTensor::fromDoubles(DType::Float32, {2, 2}, {1, 2, 3, 4});
        HostTensor y(DType::Float32, {2, 2});
        Executor e("aclnnToy");
        e.addParam("alpha", alpha);
        e.addParam("dtype", std::string("float32"));
        Plan& p = e.plan();
        const int in = p.addInput("x", x.view());
        const int out = p.addOutput("y", y.view());
        p.addStep({"Toy.Scale", "y = alpha*x", {in}, {out}, [=](const StepContext& c) {
                       for (int i = 0; i < 4; ++i)
                           c.data<float>(out)[i] = static_cast<float>(alpha) * c.data<float>(in)[i];
                   }});
        char ws[1];
        e.bindWorkspace(ws, 0);
        e.runToEnd();
    };
    auto trace = startTrace(path, TraceLevel::Full);
    run(2);
    run(3);
    stopTrace(trace);
    {
        h5::File f = h5::File::openReadOnly(path);
        EXPECT_TRUE(isTraceFile(f));
        EXPECT_TRUE(findCases(f).empty());
    }
    std::vector<std::string> skipped;
    const std::vector<Case> cases = casesFromTrace(path, &skipped);
    EXPECT_TRUE(skipped.empty());
    ASSERT_EQ(cases.size(), 2u);
    const Case& c = cases[1];
    EXPECT_EQ(c.path, "/executors/000001");
    EXPECT_EQ(c.op, "aclnnToy");
    EXPECT_EQ(c.origin, "trace");
    ASSERT_NE(findParam(c.params, "alpha"), nullptr);
    EXPECT_EQ(std::get<int64_t>(findParam(c.params, "alpha")->value), 3);
    ASSERT_NE(c.input("x"), nullptr);
    EXPECT_DOUBLE_EQ(c.input("x")->getAsDouble(3), 4.0);
    ASSERT_NE(c.source("trace"), nullptr);
    EXPECT_EQ(c.source("trace")->role, SourceRole::Reference);
    EXPECT_DOUBLE_EQ(c.source("trace")->find("y")->getAsDouble(3), 12.0);
    EXPECT_EQ(c.product, currentProduct());  // the product it was recorded on

    // At level stats there are no values to replay: every executor is skipped with a reason.
    const std::string stats = dir.file("stats.h5");
    auto t2 = startTrace(stats, TraceLevel::Stats);
    run(2);
    stopTrace(t2);
    skipped.clear();
    EXPECT_TRUE(casesFromTrace(stats, &skipped).empty());
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_CONTAINS(skipped[0], "has no values for input 'x'");
    // A case file is not a trace.
    writeCaseFile(dir.file("c.h5"), {sampleCase("/a")});
    EXPECT_CONTAINS(errorOf([&] { casesFromTrace(dir.file("c.h5")); }), "not an OpScope trace");
}
