// The verdicts and metrics of every output against the baseline (msprobe's table): what the
// outputs are compared with, under which standard, and the overall verdict in colour.
#pragma once

#include <QColor>
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace opscope::gui {

class DebugContext;
class MetricsTableModel;

class MetricsPanel : public QWidget {
    Q_OBJECT
public:
    explicit MetricsPanel(DebugContext* context, QWidget* parent = nullptr);
    MetricsTableModel* model() const { return model_; }
    QString verdictText() const;
    QColor verdictBackground() const;  // the banner's colour (the verdict shown)

Q_SIGNALS:
    // The banner's "Export a reproducer…", shown while the device fails the call.
    void exportReproRequested();

private:
    void refreshChoices();
    void refreshVerdict();

    DebugContext* context_;
    QComboBox* baseline_;
    QComboBox* standard_;
    QLabel* verdict_;
    QPushButton* exportRepro_;
    QColor verdictBackground_;  // invalid while there is no verdict
    QLabel* standardInfo_;
    QTableView* table_;
    MetricsTableModel* model_;
};

}  // namespace opscope::gui
