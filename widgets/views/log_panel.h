// Messages of the session (status, validation errors, notes), newest last.
#pragma once

#include <QPlainTextEdit>

namespace opscope::gui {

class LogPanel : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit LogPanel(QWidget* parent = nullptr);
    void addMessage(const QString& text, bool isError);
};

}  // namespace opscope::gui
