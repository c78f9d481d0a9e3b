// The operator call as a form generated from the operator's schema: a chooser, the product
// and "run as" dtype, one row per tensor argument (drop targets showing dtype and shape), one
// editor per attribute (integers, booleans, named enums, arrays, output-mask boxes) and, after
// a failed prepare, the aclnn status and message beside the argument at fault.
#pragma once

#include <QWidget>
#include <map>
#include <string>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;
class QVBoxLayout;

namespace opscope::gui {

class DebugContext;
class TensorSlotWidget;

class ArgumentForm : public QWidget {
    Q_OBJECT
public:
    explicit ArgumentForm(DebugContext* context, QWidget* parent = nullptr);
    ~ArgumentForm() override;

    // The error text shown beside an argument ("" when none): for tests.
    QString errorFor(const std::string& argument) const;
    QWidget* editorFor(const std::string& argument) const;

private:
    struct Row {
        QWidget* editor = nullptr;
        QLabel* error = nullptr;
        TensorSlotWidget* tensor = nullptr;
        std::vector<QCheckBox*> mask;  // output-mask boxes
    };
    void rebuild();
    void refreshValues();
    void showError(const QString& argument, int code, const QString& message);
    void clearErrors();
    void bindSelected(const std::string& argument);
    void showShapeNotes();
    void onArgumentsChanged();
    void commitAttribute(const std::string& name);
    QWidget* makeAttributeEditor(std::size_t index);

    DebugContext* context_;
    QComboBox* operator_;
    QLabel* summary_;
    QComboBox* product_;
    QComboBox* runAs_;
    QWidget* fields_ = nullptr;
    QVBoxLayout* fieldsHost_;
    QLabel* generalError_;
    QLabel* planSummary_;
    QPushButton* prepare_;
    std::map<std::string, Row> rows_;
    bool updating_ = false;
};

}  // namespace opscope::gui
