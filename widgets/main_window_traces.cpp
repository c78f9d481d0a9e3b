// The main window's Timeline dock: the executors of an open trace on a time axis, tabbed with
// the Steps panel, raised when a trace is opened.
#include <QDockWidget>
#include <QScrollArea>

#include "main_window.h"
#include "session/debug_context.h"
#include "views/step_list_panel.h"
#include "views/timeline_panel.h"

namespace opscope::gui {

void MainWindow::createTimelineDock() {
    timeline_ = new TimelinePanel(context_, this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(timeline_);
    scroll->setWidgetResizable(true);
    QDockWidget* d = dock(tr("Timeline"), "TimelineDock", scroll, Qt::BottomDockWidgetArea);
    if (QDockWidget* steps = dockOf(steps_)) tabifyDockWidget(steps, d);
    if (QDockWidget* steps = dockOf(steps_)) steps->raise();
    connect(context_, &DebugContext::fileChanged, this, [this] {
        if (context_->isTraceFile()) raisePanel(timeline_);
    });
    // A recorded run that cannot be replayed: its steps are the thing to read.
    connect(context_, &DebugContext::planChanged, this, [this] {
        if (context_->isRecordedOnly()) raisePanel(steps_);
    });
}

}  // namespace opscope::gui
