// Two checkpoints compared in the debugger: every numeric dataset below a group of one HDF5 file
// (or every tensor of a .pt/.safetensors/.npz file) against the same key of another, by ops::compareTensorSets (what
// `opscope-cli compare A.h5:/g B.h5:/g` runs, so both give the same verdicts), on the thread pool.
// A row appears as each key is compared, with a progress bar and Cancel; a new compare, or
// Cancel, stops the one running between keys and its late rows are dropped, so the table never
// mixes two compares. Double-clicking a row asks for that pair in the Dataset view.
#pragma once

#include <QWidget>
#include <atomic>
#include <cstdint>
#include <memory>

#include "opscope/ops/evaluation.h"
#include "views/dataset_view_panel.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace opscope::gui {

class SetComparisonModel;

class GroupComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit GroupComparePanel(QWidget* parent = nullptr);
    ~GroupComparePanel() override;

    // A (the actual) against B (the reference): each a group of an HDF5 file ("/" for the whole
    // file), or, with an empty path, a tensor file (.pt, .safetensors, .npz, a shard index) or a
    // folder of tensor files (an msprobe dump's dump_tensor_data).
    void compare(const DatasetRef& a, const DatasetRef& b);
    void cancel();
    // A metrics::parseStandard spec ("cann", the CLI's default; "rtol=1e-3,atol=1e-5"): the
    // compare shown runs again under it, as `opscope-cli compare --standard` would.
    void setStandard(const QString& spec);
    QString standard() const;
    bool isRunning() const { return running_; }
    SetComparisonModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    QString status() const;
    QString error() const { return error_; }  // why the last compare could not run, "" if it did

Q_SIGNALS:
    void pairActivated(const DatasetRef& a, const DatasetRef& b);
    void finished();  // the compare ended: done, cancelled or failed

private:
    void onCompared(uint64_t generation, const ops::Comparison& c, int done, int total);
    void onFinished(uint64_t generation, const QString& error);
    void activate(const QModelIndex& index);
    void fitColumns();

    QLabel* title_;
    QComboBox* standardPicker_;
    QProgressBar* progress_;
    QPushButton* cancel_;
    QLabel* status_;
    QTableView* table_;
    SetComparisonModel* model_;
    QSortFilterProxyModel* sorted_;
    DatasetRef a_, b_;
    uint64_t generation_ = 0;
    std::shared_ptr<std::atomic<bool>> cancelled_;
    bool running_ = false;
    bool wasCancelled_ = false;
    int total_ = 0;  // keys of the compare, once known
    QString standard_;
    QString error_;
};

}  // namespace opscope::gui
