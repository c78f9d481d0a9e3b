#include "views/log_panel.h"

#include <QTime>

namespace opscope::gui {

LogPanel::LogPanel(QWidget* parent) : QPlainTextEdit(parent) {
    setReadOnly(true);
    setMaximumBlockCount(5000);
    setLineWrapMode(QPlainTextEdit::WidgetWidth);
}

void LogPanel::addMessage(const QString& text, bool isError) {
    const QString time = QTime::currentTime().toString(QStringLiteral("HH:mm:ss"));
    appendHtml(
        QStringLiteral("<span style='color:gray'>%1</span> <span style='color:%2'>%3</span>")
            .arg(time, isError ? QStringLiteral("#b71c1c") : QStringLiteral("palette(text)"), text.toHtmlEscaped()));
}

}  // namespace opscope::gui
