// The event browser: the plan's steps (status, time, output statistics, verdict, breakpoints)
// and its tensor slots. Selecting a step shows what it wrote in the tensor view (through the
// context); the context menu runs to a step or toggles its breakpoint.
#pragma once

#include <QWidget>
#include <optional>

class QLabel;
class QTableView;
class QTabWidget;

namespace opscope::gui {

class DebugContext;
class SlotTableModel;
class StepListModel;

class StepListPanel : public QWidget {
    Q_OBJECT
public:
    explicit StepListPanel(DebugContext* context, QWidget* parent = nullptr);
    std::optional<std::size_t> selectedStep() const;
    QTableView* stepView() const { return steps_; }

private:
    void updateSummary();
    void showMenu(const QPoint& pos);

    DebugContext* context_;
    QLabel* summary_;
    QTabWidget* tabs_;
    QTableView* steps_;
    QTableView* slots_;
    StepListModel* stepModel_;
    SlotTableModel* slotModel_;
};

}  // namespace opscope::gui
