#include "views/group_compare_panel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <filesystem>

#include "models/set_comparison_model.h"
#include "opscope/ops/tensor_sets.h"
#include "session/gui_invoke.h"
#include "views/standard_picker.h"

namespace opscope::gui {

GroupComparePanel::GroupComparePanel(QWidget* parent)
    : QWidget(parent),
      title_(new QLabel(tr("Right-click a group in the file tree › Compare Group With File… to compare every dataset "
                           "below it with the same group in another file (two checkpoints)."),
                        this)),
      standardPicker_(
          newStandardPicker(this, tr("The standard every key is judged by (opscope-cli compare --standard)"))),
      progress_(new QProgressBar(this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      status_(new QLabel(this)),
      table_(new QTableView(this)),
      model_(new SetComparisonModel(this)),
      sorted_(new QSortFilterProxyModel(this)) {
    setObjectName("GroupComparePanel");
    title_->setWordWrap(true);
    title_->setObjectName("groupCompareTitle");
    cancel_->setObjectName("cancelGroupCompare");
    status_->setObjectName("groupCompareStatus");
    status_->setWordWrap(true);
    progress_->setVisible(false);
    cancel_->setVisible(false);
    sorted_->setSourceModel(model_);
    sorted_->setSortRole(SetComparisonModel::kSortRole);
    table_->setObjectName("groupCompareTable");
    table_->setModel(sorted_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder);  // the compare's order until a header is clicked
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);
    table_->setWordWrap(false);  // numbers stay on one line; the reason is whole in its tooltip
    // Fitted to the first rows and again at the end, not on every row: measuring thousands of
    // rows per insert would slow the GUI thread down as the table grows.
    table_->horizontalHeader()->setStretchLastSection(true);
    standardPicker_->setObjectName("groupCompareStandard");
    standardPicker_->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Fixed);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Standard:"), this));
    bar->addWidget(standardPicker_);
    bar->addWidget(progress_, 1);
    bar->addWidget(cancel_);
    bar->addStretch(0);  // the space the hidden progress bar leaves, after the picker
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addLayout(bar);
    layout->addWidget(status_);
    layout->addWidget(table_, 1);
    connect(cancel_, &QPushButton::clicked, this, &GroupComparePanel::cancel);
    connect(standardPicker_, &QComboBox::activated, this, [this] {
        if (!a_.file.isEmpty()) compare(a_, b_);  // judged again, read again: what the CLI would print
    });
    connect(table_, &QTableView::activated, this, &GroupComparePanel::activate);
    // Quitting waits for the thread pool: a compare of thousands of keys stops at the next key.
    connect(qApp, &QCoreApplication::aboutToQuit, this, &GroupComparePanel::cancel);
}

// Stops a running compare at its next key, without signals: the window is going.
GroupComparePanel::~GroupComparePanel() {
    if (cancelled_) cancelled_->store(true);
}

void GroupComparePanel::compare(const DatasetRef& a, const DatasetRef& b) {
    cancel();
    const uint64_t generation = ++generation_;
    cancelled_ = std::make_shared<std::atomic<bool>>(false);
    a_ = a;
    b_ = b;
    running_ = true;
    model_->clear();
    standard_.clear();
    error_.clear();
    wasCancelled_ = false;
    total_ = 0;
    title_->setText(tr("%1  against  %2 (the reference)").arg(a.label(), b.label()));
    status_->setText(tr("Listing the tensors of both sides (an HDF5 file is vetted first)…"));
    status_->setStyleSheet({});
    progress_->setRange(0, 0);  // busy until the keys are known
    progress_->setVisible(true);
    cancel_->setVisible(true);
    const std::string fileA = a.file.toStdString(), groupA = a.path.toStdString();
    const std::string fileB = b.file.toStdString(), groupB = b.path.toStdString();
    const std::string nameA = a.label().toStdString(), nameB = b.label().toStdString();
    const std::string standard = standardPicker_->currentData().toString().toStdString();
    // Rows go to the GUI thread through the application object: the panel may be gone by then,
    // and is asked (QPointer) only there.
    QPointer<GroupComparePanel> guard(this);
    runInBackground<bool>(
        this,
        [guard, generation, cancelled = cancelled_, fileA, groupA, fileB, groupB, nameA, nameB, standard] {
            // A tensor file (no group) is a set of its keys, a folder of its tensor files; an HDF5
            // file's group, of its datasets.
            auto setOf = [](const std::string& file, const std::string& group, const std::string& name) {
                if (!group.empty()) return ops::hdf5GroupSet(file, group, name);
                std::error_code ec;
                return std::filesystem::is_directory(file, ec) ? ops::tensorFolderSet(file) : ops::tensorFileSet(file);
            };
            const ops::TensorSet actual = setOf(fileA, groupA, nameA);
            const ops::TensorSet reference = setOf(fileB, groupB, nameB);
            ops::SetCompareControl control;
            control.cancelled = cancelled.get();
            control.compared = [guard, generation](const ops::Comparison& c, std::size_t done, std::size_t total) {
                QMetaObject::invokeMethod(
                    QCoreApplication::instance(),
                    [guard, generation, c, done, total] {
                        if (guard) guard->onCompared(generation, c, static_cast<int>(done), static_cast<int>(total));
                    },
                    Qt::QueuedConnection);
            };
            ops::compareTensorSets(actual, reference, metrics::parseStandard(standard), control);
            return true;
        },
        [this, generation](bool, QString error) { onFinished(generation, error); });
}

void GroupComparePanel::setStandard(const QString& spec) {
    selectStandard(standardPicker_, spec);
    if (!a_.file.isEmpty()) compare(a_, b_);
}

QString GroupComparePanel::standard() const { return standardPicker_->currentData().toString(); }

void GroupComparePanel::cancel() {
    if (cancelled_) cancelled_->store(true);
    if (!running_) return;
    running_ = false;
    ++generation_;  // rows still on their way are dropped
    progress_->setVisible(false);
    cancel_->setVisible(false);
    wasCancelled_ = true;
    status_->setText(status());
    Q_EMIT finished();
}

void GroupComparePanel::onCompared(uint64_t generation, const ops::Comparison& c, int done, int total) {
    if (generation != generation_) return;  // a later compare (or a cancel) owns the table
    if (standard_.isEmpty()) standard_ = QString::fromStdString(c.judgement.standard);
    model_->append(c);
    if (model_->rowCount() <= 20) fitColumns();
    total_ = total;
    progress_->setRange(0, total);
    progress_->setValue(done);
    status_->setText(status());
}

void GroupComparePanel::onFinished(uint64_t generation, const QString& error) {
    if (generation != generation_) return;
    running_ = false;
    progress_->setVisible(false);
    cancel_->setVisible(false);
    error_ = error;
    if (!error.isEmpty()) {
        status_->setText(tr("Cannot compare: %1").arg(error));
        status_->setStyleSheet(QStringLiteral("color: #b71c1c;"));
    } else {
        status_->setText(status());
    }
    fitColumns();
    Q_EMIT finished();
}

// Every column fitted to its text but the reason, which takes the width left (its whole text is
// in the tooltip).
void GroupComparePanel::fitColumns() {
    table_->resizeColumnsToContents();
    table_->horizontalHeader()->resizeSection(SetComparisonModel::Why, 80);
}

QString GroupComparePanel::status() const {
    const int rows = model_->rowCount(), failed = model_->failedCount();
    QString text = tr("%1 tensors: %2 passed, %3 failed or not compared").arg(rows).arg(rows - failed).arg(failed);
    if (total_ > rows) text = tr("%1 of %2 compared · ").arg(rows).arg(total_) + text;
    if (!standard_.isEmpty()) text += tr(" · standard: %1").arg(standard_);
    if (wasCancelled_) text += tr(" · cancelled");
    if (!running_ && rows > 0) text += tr(" · double-click a row to see the pair");
    return text;
}

void GroupComparePanel::activate(const QModelIndex& index) {
    if (!index.isValid()) return;
    const ops::Comparison& c = model_->comparison(sorted_->mapToSource(index).row());
    const QString key = QString::fromStdString(c.output);
    auto below = [&key](const DatasetRef& group) {
        if (group.path.isEmpty() && QFileInfo(group.file).isDir())  // a folder's tensor file, its one tensor
            return DatasetRef{QDir(group.file).filePath(key), {}};
        if (group.path.isEmpty()) return DatasetRef{group.file, key};  // a tensor file's key
        return DatasetRef{group.file, (group.path == QLatin1String("/") ? QString() : group.path) + "/" + key};
    };
    Q_EMIT pairActivated(below(a_), below(b_));
}

}  // namespace opscope::gui
