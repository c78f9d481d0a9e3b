// The two ways work crosses threads in the debugger, in one place:
//  - guiInvoke: run a function on the thread of `guard` (the GUI thread for widgets and the
//    context) later; dropped if `guard` is destroyed first, so a late result never touches a
//    closed window (RenderDoc's GUIInvoke).
//  - runInBackground: compute on the shared thread pool, deliver on the GUI thread.
#pragma once

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QThreadPool>
#include <exception>
#include <functional>
#include <memory>
#include <utility>

namespace opscope::gui {

template <class Fn>
void guiInvoke(QObject* guard, Fn&& fn) {
    QMetaObject::invokeMethod(guard, std::forward<Fn>(fn), Qt::QueuedConnection);
}

// Runs work() on QThreadPool::globalInstance(); done(result, error) then runs on the GUI
// thread unless guard is gone by then. error is empty on success; exceptions never escape the
// pool. The guard is checked on the GUI thread, where it is deleted, so the check cannot race.
template <class Result>
void runInBackground(QObject* guard, std::function<Result()> work, std::function<void(Result, QString)> done) {
    QPointer<QObject> target(guard);
    QThreadPool::globalInstance()->start([target, work = std::move(work), done = std::move(done)]() mutable {
        auto result = std::make_shared<Result>();
        QString error;
        try {
            *result = work();
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        } catch (...) {
            error = QStringLiteral("unknown error");
        }
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [target, done = std::move(done), result, error]() {
                if (target) done(std::move(*result), error);
            },
            Qt::QueuedConnection);
    });
}

}  // namespace opscope::gui
