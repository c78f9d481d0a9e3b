#include "views/chart_axes.h"

#include <QLogValueAxis>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace opscope::gui {

QLogValueAxis* logAxis(const QString& title, double lo, double hi) {
    auto* a = new QLogValueAxis();
    a->setTitleText(title);
    // A label per decade over 30 decades leaves each a few pixels: Qt Charts then elides them
    // to "…" (":" when tilted). Labels every `step` decades keep them whole and upright.
    const double decades = std::log10(hi / lo);
    const int step = std::isfinite(decades) ? std::max(1, int(std::ceil(decades / kMaxLogLabels))) : 1;
    a->setBase(std::pow(10.0, step));
    a->setLabelFormat("%.0e");
    a->setRange(lo, hi);
    // -1 draws base - 2 minor ticks per label: the 8 of a decade, but millions for 10^step.
    a->setMinorTickCount(step == 1 ? -1 : step - 1);
    QFont f = a->labelsFont();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    a->setLabelsFont(f);
    return a;
}

QValueAxis* valueAxis(const QString& title, double lo, double hi) {
    auto* a = new QValueAxis();
    a->setTitleText(title);
    a->setRange(lo, hi);
    a->applyNiceNumbers();
    return a;
}

}  // namespace opscope::gui
