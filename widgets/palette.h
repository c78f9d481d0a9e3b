// The few colours and number formats every view shares: verdicts (msprobe's green, orange,
// red), and compact numbers for tables.
#pragma once

#include <QColor>
#include <QString>
#include <cmath>

#include "opscope/metrics.h"

namespace opscope::gui {

inline QColor verdictBackground(metrics::Verdict v) {
    switch (v) {
        case metrics::Verdict::Pass: return QColor(0xc8, 0xe6, 0xc9);
        case metrics::Verdict::Warning: return QColor(0xff, 0xe0, 0xb2);
        case metrics::Verdict::Fail: return QColor(0xff, 0xcd, 0xd2);
    }
    return {};
}

inline QColor verdictForeground(metrics::Verdict v) {
    switch (v) {
        case metrics::Verdict::Pass: return QColor(0x1b, 0x5e, 0x20);
        case metrics::Verdict::Warning: return QColor(0xb2, 0x5e, 0x00);
        case metrics::Verdict::Fail: return QColor(0xb7, 0x1c, 0x1c);
    }
    return {};
}

inline QString verdictText(metrics::Verdict v) {
    switch (v) {
        case metrics::Verdict::Pass: return QStringLiteral("pass");
        case metrics::Verdict::Warning: return QStringLiteral("warning");
        case metrics::Verdict::Fail: return QStringLiteral("FAIL");
    }
    return {};
}

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
