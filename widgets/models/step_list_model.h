// The executor's steps as a table (the event browser): breakpoint, index, name, status,
// duration, statistics of what the step wrote, and the verdict against the reference.
#pragma once

#include "models/context_table_model.h"

#include "session/session_types.h"

namespace opscope::gui {

class StepListModel : public ContextTableModel {
    Q_OBJECT
public:
    // The verdict and NaN columns come first: they are what a user scans for.
    enum Column {
        Break,
        Index,
        Name,
        Status,
        Verdict,
        NonFinite,
        MaxRel,
        Duration,
        Writes,
        Min,
        Max,
        MeanAbs,
        ColumnCount
    };

    explicit StepListModel(DebugContext* context, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;

private:
    void onStepChanged(std::size_t step);
    void onPositionChanged(std::size_t next);
    QVariant styleData(std::size_t row, int column, int role) const;
    QVariant displayText(std::size_t row, int column) const;
    static QString nonFiniteText(const StepState& state);
    std::size_t shownPosition_ = 0;
};

}  // namespace opscope::gui
