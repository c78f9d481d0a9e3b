// The key-by-key compare of two groups as a table: a row a key (tensor, verdict, dtype, shape,
// max abs, max rel, and why it is not a pass, as `opscope-cli compare` notes under the row),
// appended as each key is compared. The verdict cell is coloured as every
// verdict of the debugger; its tooltip is the reason. Sorting (through a proxy) uses
// kSortRole: numbers as numbers, verdicts worst first.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "opscope/ops/evaluation.h"

namespace opscope::gui {

class SetComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Tensor,
        Verdict,
        Dtype,
        Shape,
        MaxAbs,
        MaxRel,
        Why,
        ColumnCount
    };  // the verdict where a narrow view shows it
    static constexpr int kSortRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;
    void clear();
    void append(ops::Comparison comparison);
    const ops::Comparison& comparison(int row) const { return rows_[static_cast<std::size_t>(row)]; }
    const std::vector<ops::Comparison>& comparisons() const { return rows_; }
    int failedCount() const { return failed_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<ops::Comparison> rows_;
    int failed_ = 0;
};

}  // namespace opscope::gui
