// ops::deviceVerdict: which side is wrong, from the comparisons against the golden alone (the one
// function the CLI's run and the debugger's metrics panel call).
#include <gtest/gtest.h>

#include "opscope/ops/evaluation.h"

namespace opscope::ops {
namespace {

Comparison judged(const std::string& actual, const std::string& output, bool pass,
                  const std::string& reference = kGolden) {
    Comparison c;
    c.output = output;
    c.actual = actual;
    c.reference = reference;
    c.judgement.verdict = pass ? metrics::Verdict::Pass : metrics::Verdict::Fail;
    c.judgement.reason = pass ? "within" : "max rel 0.5 > 0.001";
    return c;
}

TEST(DeviceVerdict, NoDeviceWithoutAnActualSourceAgainstTheGolden) {
    EXPECT_EQ(deviceVerdict({}).kind, DeviceVerdict::Kind::NoDevice);
    EXPECT_EQ(deviceVerdict({judged("opscope", "gradInput", false)}).kind, DeviceVerdict::Kind::NoDevice);
    // npu against "expected" is not the device against the golden.
    EXPECT_EQ(deviceVerdict({judged("npu", "gradInput", false, "expected")}).kind, DeviceVerdict::Kind::NoDevice);
}

TEST(DeviceVerdict, SaysWhichSideFails) {
    const DeviceVerdict fails =
        deviceVerdict({judged("opscope", "gradWeight", true), judged("npu", "gradWeight", false)});
    EXPECT_EQ(fails.kind, DeviceVerdict::Kind::DeviceFails);
    EXPECT_NE(fails.line.find("npu/gradWeight"), std::string::npos) << fails.line;
    EXPECT_STREQ(deviceVerdictName(fails.kind), "device fails");
    EXPECT_EQ(deviceVerdict({judged("opscope", "gradInput", true), judged("npu", "gradInput", true)}).kind,
              DeviceVerdict::Kind::Agree);
    EXPECT_EQ(deviceVerdict({judged("opscope", "gradInput", false), judged("npu", "gradInput", false)}).kind,
              DeviceVerdict::Kind::BothFail);
    EXPECT_EQ(deviceVerdict({judged("opscope", "gradInput", false), judged("npu", "gradInput", true)}).kind,
              DeviceVerdict::Kind::EmulationFails);
}

TEST(DeviceVerdict, IgnoresComparisonsShownForInformationOnly) {
    Comparison info = judged("npu", "gradInput", false);
    info.judged = false;
    EXPECT_EQ(deviceVerdict({judged("opscope", "gradInput", true), info}).kind, DeviceVerdict::Kind::NoDevice);
}

}  // namespace
}  // namespace opscope::ops
