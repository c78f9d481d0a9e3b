// The picked element's value after each step that wrote it (RenderDoc's pixel history), as a
// table and a small chart with the reference value as a line.
#pragma once

#include <QWidget>

class QChartView;
class QLabel;
class QTableView;

namespace opscope::gui {

class DebugContext;
class ElementHistoryModel;

class ElementHistoryPanel : public QWidget {
    Q_OBJECT
public:
    explicit ElementHistoryPanel(DebugContext* context, QWidget* parent = nullptr);
    ElementHistoryModel* model() const { return model_; }

private:
    void refresh();
    DebugContext* context_;
    QLabel* title_;
    QTableView* table_;
    QChartView* chart_;
    ElementHistoryModel* model_;
};

}  // namespace opscope::gui
