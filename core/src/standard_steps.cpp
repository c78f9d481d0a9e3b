#include "opscope/standard_steps.h"

#include "opscope/convert.h"

namespace opscope {
namespace {

void addCopyStep(Plan& plan, const char* name, int from, int to, const std::string& detail) {
    plan.addStep({name, detail, {from}, {to}, [from, to](const StepContext& ctx) {
                      copyConvert(ctx.tensor(from), ctx.tensor(to));
                  }});
}

}  // namespace

int materializeInput(Plan& plan, int input, DType want) {
    const Slot s = plan.slot(input);
    int current = input;
    if (!s.view.isContiguous()) {
        current = plan.addScratch(s.name + ".contiguous", s.view.dtype, s.view.shape);
        addCopyStep(plan, "Contiguous", input, current, "pack strided " + s.name + " densely");
    }
    if (s.view.dtype != want) {
        const int cast = plan.addScratch(s.name + "." + dtypeName(want), want, s.view.shape);
        addCopyStep(plan, "Cast", current, cast, s.name + " " + dtypeName(s.view.dtype) + " -> " + dtypeName(want));
        current = cast;
    }
    return current;
}

OutputTarget prepareOutput(Plan& plan, int userOutput, DType computeDtype) {
    const Slot& s = plan.slot(userOutput);
    if (s.view.isContiguous() && s.view.dtype == computeDtype) return {userOutput, userOutput};
    return {userOutput, plan.addScratch(s.name + "." + dtypeName(computeDtype), computeDtype, s.view.shape)};
}

void deliverOutput(Plan& plan, const OutputTarget& t) {
    if (t.compute == t.user) return;
    const Slot computed = plan.slot(t.compute);
    const Slot user = plan.slot(t.user);
    int current = t.compute;
    if (computed.view.dtype != user.view.dtype) {
        if (user.view.isContiguous()) {
            addCopyStep(plan, "Cast", current, t.user,
                        user.name + " " + dtypeName(computed.view.dtype) + " -> " + dtypeName(user.view.dtype));
            return;
        }
        const int cast =
            plan.addScratch(user.name + "." + dtypeName(user.view.dtype), user.view.dtype, user.view.shape);
        addCopyStep(plan, "Cast", current, cast,
                    user.name + " " + dtypeName(computed.view.dtype) + " -> " + dtypeName(user.view.dtype));
        current = cast;
    }
    addCopyStep(plan, "ViewCopy", current, t.user, "write " + user.name + " into its strided view");
}

void addZeroFill(Plan& plan, int slot) {
    plan.addStep({"ZeroFill", "set " + plan.slot(slot).name + " to zero", {}, {slot}, [slot](const StepContext& ctx) {
                      fillZero(ctx.tensor(slot));
                  }});
}

}  // namespace opscope
