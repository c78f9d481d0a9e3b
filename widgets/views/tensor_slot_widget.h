// One tensor argument of the form: shows the bound tensor's origin, dtype and shape, accepts a
// dataset dragged from the file tree, asks for the tree's selected dataset on a double-click
// when empty, and can be cleared.
#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace opscope::gui {

class TensorSlotWidget : public QFrame {
    Q_OBJECT
public:
    explicit TensorSlotWidget(bool optional, QWidget* parent = nullptr);
    // Empty origin = unbound.
    void setBinding(const QString& origin, const QString& description);

Q_SIGNALS:
    void datasetDropped(const QString& datasetPath);
    void emptySlotDoubleClicked();
    void cleared();

protected:
    void dragEnterEvent(QDragEnterEvent*) override;
    void dragLeaveEvent(QDragLeaveEvent*) override;
    void dropEvent(QDropEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;

private:
    void setHighlight(bool on);
    bool optional_;
    bool bound_ = false;
    QLabel* text_;
    QToolButton* clear_;
};

}  // namespace opscope::gui
