// The few colours and number formats every view shares: verdicts (msprobe's green, orange,
// red), and compact numbers for tables.
#pragma once

#include <QColor>
#include <QString>
#include <cmath>

#include "opscope/metrics.h"

namespace opscope::gui {

// How a verdict looks in every view: one row per verdict.
struct VerdictStyle {
    metrics::Verdict verdict;
    QRgb background;
    QRgb foreground;
    const char* text;  // the result tables' word: a failure in capitals
};

inline const VerdictStyle& verdictStyle(metrics::Verdict v) {
    static constexpr VerdictStyle kStyles[] = {{metrics::Verdict::Pass, 0xffc8e6c9, 0xff1b5e20, "pass"},
                                               {metrics::Verdict::Warning, 0xffffe0b2, 0xffb25e00, "warning"},
                                               {metrics::Verdict::Fail, 0xffffcdd2, 0xffb71c1c, "FAIL"}};
    for (const VerdictStyle& s : kStyles)
        if (s.verdict == v) return s;
    return kStyles[2];
}

inline QColor verdictBackground(metrics::Verdict v) { return QColor::fromRgb(verdictStyle(v).background); }
inline QColor verdictForeground(metrics::Verdict v) { return QColor::fromRgb(verdictStyle(v).foreground); }
inline QString verdictText(metrics::Verdict v) { return QString::fromLatin1(verdictStyle(v).text); }

// 6 significant digits, "nan"/"inf" spelled out: what every table cell shows.
inline QString formatNumber(double v, int precision = 6) {
    if (std::isnan(v)) return QStringLiteral("nan");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', precision);
}

inline QString formatShape(const std::vector<int64_t>& shape) {
    QString s = QStringLiteral("[");
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? QStringLiteral(", ") : QString()) + QString::number(shape[i]);
    return s + QStringLiteral("]");
}

inline QString formatBytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    return QString::number(bytes, 'g', u == 0 ? 6 : 4) + QLatin1Char(' ') + QLatin1String(units[u]);
}

}  // namespace opscope::gui
