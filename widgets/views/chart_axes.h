// The charts' axes, built so that no label is ever elided ("…", or ":" when tilted): at most a
// handful of short numeric labels whatever the range, and short titles.
#pragma once

#include <QString>

class QLogValueAxis;
class QValueAxis;

namespace opscope::gui {

// Labels "1e-08" at powers of ten, one every k decades so there are at most kMaxLogLabels.
constexpr int kMaxLogLabels = 5;
QLogValueAxis* logAxis(const QString& title, double lo, double hi);
// Nice round ticks over [lo, hi].
QValueAxis* valueAxis(const QString& title, double lo, double hi);

}  // namespace opscope::gui
