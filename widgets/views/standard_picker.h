// The standard picker of the views that compare (the Dataset view, the Group compare): the
// builtin standards by name, and any parseStandard spec the user gives ("rtol=1e-3,atol=1e-5").
#pragma once

#include <QComboBox>

#include "opscope/metrics.h"

namespace opscope::gui {

inline QComboBox* newStandardPicker(QWidget* parent, const QString& toolTip) {
    auto* box = new QComboBox(parent);
    for (const metrics::Standard& s : metrics::builtinStandards())
        box->addItem(QString::fromStdString(s.name), QString::fromStdString(s.name));
    box->setToolTip(toolTip);
    return box;
}

// Selects `spec`, added first when it is not a builtin's name.
inline void selectStandard(QComboBox* box, const QString& spec) {
    int i = box->findData(spec);
    if (i < 0) {
        box->addItem(spec, spec);
        i = box->count() - 1;
    }
    box->setCurrentIndex(i);
}

}  // namespace opscope::gui
