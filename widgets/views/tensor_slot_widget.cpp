#include "views/tensor_slot_widget.h"

#include <QDragEnterEvent>
#include <QFileDialog>
#include <QInputDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMimeData>
#include <QToolButton>

#include "models/h5_tree_model.h"
#include "opscope/import/tensor_file.h"

namespace opscope::gui {

TensorSlotWidget::TensorSlotWidget(bool optional, QWidget* parent) : QFrame(parent), optional_(optional) {
    setAcceptDrops(true);
    setFrameShape(QFrame::StyledPanel);
    auto* l = new QHBoxLayout(this);
    l->setContentsMargins(4, 2, 2, 2);
    text_ = new QLabel(this);
    text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Long dataset paths must not widen the form: the label gives way (full path in the tooltip).
    text_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    text_->setMinimumWidth(80);
    l->addWidget(text_, 1);
    fromFile_ = new QToolButton(this);
    fromFile_->setObjectName("bindFromFile");
    fromFile_->setText(QStringLiteral("…"));
    fromFile_->setToolTip(tr("Bind from file… (.npy, .npz, .pt, .safetensors)"));
    fromFile_->setAutoRaise(true);
    l->addWidget(fromFile_);
    connect(fromFile_, &QToolButton::clicked, this, &TensorSlotWidget::chooseFile);
    clear_ = new QToolButton(this);
    clear_->setText(QStringLiteral("✕"));
    clear_->setToolTip(tr("Unbind this tensor"));
    clear_->setAutoRaise(true);
    l->addWidget(clear_);
    connect(clear_, &QToolButton::clicked, this, &TensorSlotWidget::cleared);
    setBinding({}, {});
}

void TensorSlotWidget::setBinding(const QString& origin, const QString& description) {
    if (origin.isEmpty()) {
        text_->setText(optional_ ? tr("<i>absent (optional) — drop a dataset, double-click, or bind a file (…)</i>")
                                 : tr("<i>drop a dataset, double-click, or bind a file (…)</i>"));
        setToolTip(
            tr("Drag a dataset from the file tree onto this argument, select it in the tree and double-click "
               "here, or bind a .npy/.npz/.pt/.safetensors file (…)"));
    } else {
        text_->setText(QStringLiteral("<b>%1</b>  <span style='color:gray'>%2</span>")
                           .arg(description.toHtmlEscaped(), origin.toHtmlEscaped()));
        setToolTip(origin);
    }
    clear_->setVisible(!origin.isEmpty());
    bound_ = !origin.isEmpty();
}

void TensorSlotWidget::mouseDoubleClickEvent(QMouseEvent* e) {
    QFrame::mouseDoubleClickEvent(e);
    if (!bound_) Q_EMIT emptySlotDoubleClicked();
}

QString TensorSlotWidget::specForFile(const QString& path, const std::function<QString(const QStringList&)>& pickKey) {
    QStringList keys;  // an .npz's arrays, a .pt state dict's or a .safetensors' tensors
    try {
        for (const std::string& k : import::tensorFileKeys(path.toStdString())) keys << QString::fromStdString(k);
    } catch (const std::exception&) {
        return path;  // reading it says what is wrong
    }
    if (keys.isEmpty()) return path;
    const QString key = keys.size() == 1 ? keys.front() : pickKey(keys);
    return key.isEmpty() ? QString() : path + ":" + key;
}

void TensorSlotWidget::chooseFile() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Bind a tensor from a file"), QString(),
        tr("Tensor files (*.npy *.npz *.pt *.pth *.bin *.safetensors *.safetensors.index.json);;All files (*)"));
    if (path.isEmpty()) return;
    const QString spec = specForFile(path, [&](const QStringList& keys) {
        bool ok = false;
        const QString key =
            QInputDialog::getItem(this, tr("Which tensor?"), tr("Tensors of %1:").arg(path), keys, 0, false, &ok);
        return ok ? key : QString();
    });
    if (!spec.isEmpty()) Q_EMIT fileChosen(spec);
}

void TensorSlotWidget::setHighlight(bool on) {
    setStyleSheet(on ? QStringLiteral("TensorSlotWidget, opscope--gui--TensorSlotWidget { background: #e3f2fd; }")
                     : QString());
    setFrameShadow(on ? QFrame::Sunken : QFrame::Plain);
    setLineWidth(on ? 2 : 1);
}

void TensorSlotWidget::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasFormat(H5TreeModel::kDatasetMime)) {
        e->acceptProposedAction();
        setHighlight(true);
    }
}

void TensorSlotWidget::dragLeaveEvent(QDragLeaveEvent*) { setHighlight(false); }

void TensorSlotWidget::dropEvent(QDropEvent* e) {
    setHighlight(false);
    const QByteArray path = e->mimeData()->data(H5TreeModel::kDatasetMime);
    if (path.isEmpty()) return;
    e->acceptProposedAction();
    Q_EMIT datasetDropped(QString::fromUtf8(path));
}

}  // namespace opscope::gui
