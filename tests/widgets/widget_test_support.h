// Shared fixtures of the widget tests: a small GroupNormBackward call built in memory and
// written as a case file, so the tests need no bundled dataset and no Python.
#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <string>
#include <utility>

#include "group_norm_params.h"
#include "opscope/case_file.h"
#include "opscope/host_tensor.h"
#include "session/debug_context.h"

namespace opscope::gui::test {

inline HostTensor ramp(DType dt, std::vector<int64_t> shape, double scale, double offset) {
    std::vector<double> v(static_cast<std::size_t>(shapeNumel(shape)));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = offset + scale * std::sin(0.37 * double(i) + 0.1);
    return HostTensor::fromDoubles(dt, std::move(shape), v);
}

// aclnnGroupNormBackward with N=2, C=4, HxW=6, group=2 (inputs shaped [N, C, 2, 3]).
inline cases::Case groupNormCase(const std::string& path = "/gn/basic", DType dt = DType::Float32) {
    cases::Case c;
    c.path = path;
    c.op = "aclnnGroupNormBackward";
    c.description = "small synthetic case";
    c.params = fixtures::groupNormParams(2, 4, 6, 2);
    c.inputs = {{"gradOut", ramp(dt, {2, 4, 2, 3}, 1.0, 0.0)},
                {"input", ramp(dt, {2, 4, 2, 3}, 2.0, 0.5)},
                {"mean", ramp(dt, {2, 2}, 0.1, 0.5)},
                {"rstd", ramp(dt, {2, 2}, 0.1, 1.2)},
                {"gamma", ramp(dt, {4}, 0.5, 1.0)}};
    return c;
}

// A GroupNormBackward case of N x C x HxW elements (group 4), for responsiveness tests.
inline cases::Case largeGroupNormCase(int64_t N, int64_t C, int64_t HxW) {
    cases::Case c;
    c.path = "/gn/large";
    c.op = "aclnnGroupNormBackward";
    c.params = fixtures::groupNormParams(N, C, HxW, 4);
    c.inputs = {{"gradOut", ramp(DType::Float32, {N, C, HxW}, 1.0, 0.0)},
                {"input", ramp(DType::Float32, {N, C, HxW}, 2.0, 0.5)},
                {"mean", ramp(DType::Float32, {N, 4}, 0.1, 0.5)},
                {"rstd", ramp(DType::Float32, {N, 4}, 0.1, 1.2)},
                {"gamma", ramp(DType::Float32, {C}, 0.5, 1.0)}};
    return c;
}

// Writes a case file with two cases into the test's temporary directory.
inline QString writeCaseFile(const QString& dir) {
    const QString path = QDir(dir).filePath("cases.h5");
    cases::Case bad = groupNormCase("/gn/bad_group");
    bad.params[3].value = int64_t{3};  // C % group != 0
    cases::writeCaseFile(path.toStdString(), {groupNormCase(), bad});
    return path;
}

// For initTestCase: keeps the user's settings alone (a test organisation) and writes the case file.
inline QString useTestSettingsAndCaseFile(const QString& dir) {
    QCoreApplication::setOrganizationName("OpScopeTest");
    return writeCaseFile(dir);
}

// For initTestCase of a test comparing two files: the case file, and another in dir/other (the
// same cases; the test adds what it compares).
inline std::pair<QString, QString> useTestSettingsAndTwoCaseFiles(const QString& dir) {
    const QString first = useTestSettingsAndCaseFile(dir);
    QDir(dir).mkdir("other");
    return {first, writeCaseFile(QDir(dir).filePath("other"))};
}

// Waits for the context to become idle (no prepare/run/reference/analysis in flight).
inline bool waitIdle(DebugContext& ctx, int timeoutMs = 20000) {
    return QTest::qWaitFor([&] { return ctx.isIdle(); }, timeoutMs);
}

// Shows a top-level widget (resized first when a size is given); true once it is on screen.
inline bool showExposed(QWidget& w, QSize size = {}) {
    if (size.isValid()) w.resize(size);
    w.show();
    return QTest::qWaitForWindowExposed(&w);
}

// Loads a case of the open file; true once it is prepared and the context idle.
inline bool loadPrepared(DebugContext& ctx, const QString& casePath, int timeoutMs = 20000) {
    ctx.loadCase(casePath);
    return QTest::qWaitFor([&] { return ctx.isPrepared(); }, timeoutMs) && waitIdle(ctx, timeoutMs);
}

// The action of `menu` or of any of its submenus with this object name; null when none.
inline QAction* menuAction(QMenu& menu, const QString& name) {
    for (QAction* a : menu.findChildren<QAction*>())
        if (a->objectName() == name) return a;
    return nullptr;
}

}  // namespace opscope::gui::test
