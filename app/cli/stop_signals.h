// SIGINT and SIGTERM as a request to stop, for commands that must clean up first (stop their
// worker processes, drop a half-written output): while a StopSignals lives, the signals set a
// flag (and interrupt poll(), no SA_RESTART) instead of killing the process. The previous
// actions come back when it goes out of scope.
#pragma once

#include <signal.h>

namespace opscope::cli {

class StopSignals {
public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    // The signal received since construction, or 0.
    static int received();
    // Ends the process by the signal received (as the shell expects of an interrupted command),
    // after the caller has cleaned up; returns if none was received.
    static void dieOfReceived();

private:
    struct sigaction oldInt_ {
    }, oldTerm_{};
};

}  // namespace opscope::cli
