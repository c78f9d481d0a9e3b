#include "views/import_progress.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>
#include <algorithm>
#include <climits>

namespace opscope::gui {

ImportProgress::ImportProgress(QWidget* parent)
    : QWidget(parent), label_(new QLabel(this)), bar_(new QProgressBar(this)), cancel_(new QToolButton(this)) {
    setObjectName("importProgress");
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addStretch(1);  // label, bar and Cancel together at the right
    bar_->setMinimumWidth(170);
    bar_->setMaximumWidth(220);
    bar_->setTextVisible(true);
    cancel_->setObjectName("cancelImport");
    cancel_->setText(tr("Cancel"));
    cancel_->setToolTip(tr("Stop the import: nothing is written and the open file stays"));
    row->addWidget(label_);
    row->addWidget(bar_);
    row->addWidget(cancel_);
    connect(cancel_, &QToolButton::clicked, this, &ImportProgress::cancel);
    hide();
}

ImportProgress::~ImportProgress() {
    if (cancelled_) *cancelled_ = true;
}

ImportProgress::Flag ImportProgress::start(const QString& what) {
    if (cancelled_) *cancelled_ = true;  // one import at a time: a new one replaces the last
    cancelled_ = std::make_shared<std::atomic<bool>>(false);
    label_->setText(tr("Importing %1").arg(what));
    bar_->setRange(0, 0);  // busy until the first call is done (the dump is being read)
    bar_->setFormat(tr("reading the dump"));
    cancel_->setEnabled(true);
    show();
    return cancelled_;
}

void ImportProgress::setProgress(const Flag& of, qulonglong done, qulonglong total) {
    if (of != cancelled_ || total == 0 || !cancel_->isEnabled()) return;
    bar_->setRange(0, static_cast<int>(std::min<qulonglong>(total, INT_MAX)));
    bar_->setValue(static_cast<int>(std::min(done, total)));
    bar_->setFormat(tr("%1 / %2 calls").arg(done).arg(total));
}

void ImportProgress::finish(const Flag& of) {
    if (of != cancelled_) return;
    cancelled_.reset();
    hide();
}

void ImportProgress::cancel() {
    if (!cancelled_) return;
    *cancelled_ = true;
    cancel_->setEnabled(false);
    bar_->setFormat(tr("cancelling…"));
}

QString ImportProgress::text() const { return label_->text() + ": " + bar_->text(); }

}  // namespace opscope::gui
