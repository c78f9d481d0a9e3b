// One tensor argument of the form: shows the bound tensor's origin, dtype and shape, accepts a
// dataset dragged from the file tree, asks for the tree's selected dataset on a double-click
// when empty, binds a .npy/.npz/.pt/.safetensors file ("…": Bind from file), and can be cleared.
#pragma once

#include <QFrame>
#include <QStringList>

#include <functional>

class QLabel;
class QToolButton;

namespace opscope::gui {

class TensorSlotWidget : public QFrame {
    Q_OBJECT
public:
    explicit TensorSlotWidget(bool optional, QWidget* parent = nullptr);
    // Empty origin = unbound.
    void setBinding(const QString& origin, const QString& description);
    // What a chosen file binds as: the file itself (an .npy, a .pt of one tensor, or a file that
    // cannot be read, whose reading then says why), FILE:KEY for the one key of an .npz or a .pt
    // dict, or for the key `pickKey` returns among several; "" when it returns "" (cancelled).
    static QString specForFile(const QString& path, const std::function<QString(const QStringList&)>& pickKey);

Q_SIGNALS:
    void datasetDropped(const QString& datasetPath);
    // "x.npy", "d.npz:key" or "w.pt", as opscope-cli run --bind takes them.
    void fileChosen(const QString& spec);
    void emptySlotDoubleClicked();
    void cleared();

protected:
    void dragEnterEvent(QDragEnterEvent*) override;
    void dragLeaveEvent(QDragLeaveEvent*) override;
    void dropEvent(QDropEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;

private:
    void setHighlight(bool on);
    void chooseFile();
    bool optional_;
    bool bound_ = false;
    QLabel* text_;
    QToolButton* fromFile_;
    QToolButton* clear_;
};

}  // namespace opscope::gui
