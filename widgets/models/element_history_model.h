// The picked element after each step that wrote a tensor of its shape, with the reference
// value and the errors: where along the plan a value went wrong.
#pragma once

#include "models/context_table_model.h"

namespace opscope::gui {

class ElementHistoryModel : public ContextTableModel {
    Q_OBJECT
public:
    enum Column { Step, StepName, Tensor, Value, Reference, AbsError, RelError, ColumnCount };
    explicit ElementHistoryModel(DebugContext* context, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    // The reference value of the picked element, if the baseline has it.
    bool referenceValue(double* out) const;

private:
};

}  // namespace opscope::gui
