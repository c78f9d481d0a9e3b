// A flat table over the debug context's state: the context, fixed column titles, and the
// whole-table reset and repaint its subclasses do when the context changes.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

namespace opscope::gui {

class DebugContext;

class ContextTableModel : public QAbstractTableModel {
public:
    int columnCount(const QModelIndex& parent = {}) const override;
    // The title of a column (display role, horizontal); nothing else.
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

protected:
    // `titles` already translated, one per column.
    ContextTableModel(DebugContext* context, QStringList titles, QObject* parent);
    void resetAll();
    void repaintRows(int first, int last);  // every column of rows first..last
    void repaintAll();

    DebugContext* context_;

private:
    QStringList titles_;
};

}  // namespace opscope::gui
